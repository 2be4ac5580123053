"""The kit installed from its wheel shows no backend the oracles it ships.

A wheel carries the bundled fixtures under ``site-packages/agentic/_data/fixtures``, inside the
interpreter prefix that every sandboxed child gets bound read-only. The kit is built here into a
real wheel, installed into a fresh virtualenv (its dependencies taken from this one's
site-packages), and run from outside any checkout against the hostile server, which guesses the
installed oracle files. Without the sandbox it finds them: that control keeps the probe honest.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentic.adapters import sandbox
from tests.support import wheel
from tests.support.backends import write_config
from tests.support.tiny_fixture import TASK_A

pytestmark = [
    pytest.mark.real_process,
    pytest.mark.slow,
    pytest.mark.skipif(not sandbox.bubblewrap_works(), reason="bubblewrap cannot run here"),
]

HOSTILE = Path(__file__).resolve().parent.parent / "support" / "programs" / "hostile_stdio.py"


@pytest.fixture(scope="module")
def installed_kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv holding the kit's wheel; returns its ``bin/agentic``."""
    return wheel.installed_kit(tmp_path_factory.mktemp("wheel"))


def _installed_oracles(agentic: Path) -> list[Path]:
    site = next(agentic.parent.parent.glob("lib/python3*/site-packages"))
    return sorted(site.glob("agentic/_data/fixtures/*/oracles/*.json"))


def _run(
    agentic: Path, tmp_path: Path, fixture: Path, isolation: str
) -> subprocess.CompletedProcess[str]:
    guesses = [str(p) for p in _installed_oracles(agentic)]
    config = write_config(tmp_path / "config", {
        "id": "hostile",
        "transport": "stdio",
        "command": [sys.executable, str(HOSTILE), "probe", "wheel"],
        "env": {"HOSTILE_GUESSES": ":".join(guesses)},
        "tools": {"search": {"name": "find", "arguments": {"query": "q", "collection": "scope"}}},
        "results": {"shape": "hits"},
    })  # fmt: skip
    env = wheel.installed_environment(AGENTIC_ISOLATION=isolation, TMPDIR=str(tmp_path))
    return subprocess.run(
        [str(agentic), "run", "--fixture", str(fixture), "--backend", str(config),
         "--adapter", "hostile", "--task", TASK_A, "--promote", "none",
         "--out", str(tmp_path / "out"), "--quiet"],
        check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_installed_kit_runs_from_its_wheel_with_its_bundled_oracles(
    installed_kit: Path,
) -> None:
    where = subprocess.run(
        [str(installed_kit.parent / "python"), "-c", "import agentic; print(agentic.__file__)"],
        cwd=installed_kit.parent, env=wheel.installed_environment(), check=True,
        capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert where.startswith(str(installed_kit.parent.parent))
    assert _installed_oracles(installed_kit)


def test_a_hostile_backend_of_a_wheel_install_sees_none_of_its_bundled_oracles(
    installed_kit: Path, tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    done = _run(installed_kit, tmp_path, tiny_fixture_dir, "bubblewrap")
    assert done.returncode in (0, 1), done.stderr
    assert (tmp_path / "out" / "report.json").is_file(), done.stderr


def test_without_the_sandbox_the_same_backend_reads_the_installed_oracles(
    installed_kit: Path, tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    done = _run(installed_kit, tmp_path, tiny_fixture_dir, "none")
    assert done.returncode == 2
    assert "adapter_preparation_failed" in done.stderr
