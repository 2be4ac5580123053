"""The kit as a user installs it: built into a real wheel by its own build backend (offline),
installed into a fresh virtualenv outside any checkout. The kit's dependencies come from this
environment through a ``.pth`` file appended after the installed kit, so nothing is downloaded."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.support.backends import REPO

PURELIB = "import sysconfig; print(sysconfig.get_path('purelib'))"


def build_wheel(dist: Path) -> Path:
    """The kit's wheel, built from the checkout into ``dist``."""
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(dist)],
        cwd=REPO, check=True, capture_output=True,
    )  # fmt: skip
    return next(dist.glob("agentic-*.whl"))


def install_wheel(wheel: Path, venv: Path) -> Path:
    """A virtualenv at ``venv`` holding ``wheel``; returns its ``bin/agentic``."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps"]
    subprocess.run([*pip, "--no-index", str(wheel)], check=True, capture_output=True)
    site = subprocess.run(
        [str(venv / "bin" / "python"), "-c", PURELIB],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    # The kit's dependencies from this environment, appended after the installed kit.
    Path(site, "kit_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv / "bin" / "agentic"


def installed_kit(base: Path) -> Path:
    """The kit's wheel built under ``base`` and installed into ``base/venv``."""
    return install_wheel(build_wheel(base / "dist"), base / "venv")


def installed_environment(**changes: str) -> dict[str, str]:
    """This environment for the installed kit's processes, without ``PYTHONPATH``: a checkout
    on it would be imported instead of the wheel."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return {**env, **changes}
