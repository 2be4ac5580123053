"""What the Dockerfile promises, read from its text; hadolint where it is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def _final_stage() -> str:
    return DOCKERFILE[DOCKERFILE.rindex("\nFROM ") :]


def test_the_default_base_is_pinned_by_digest() -> None:
    match = re.search(r"^ARG BASE_IMAGE=(\S+)$", DOCKERFILE, re.MULTILINE)
    assert match is not None
    assert re.fullmatch(r"[a-z0-9./-]+:[\w.-]+@sha256:[0-9a-f]{64}", match.group(1))


def test_every_pip_install_from_the_registry_checks_hashes() -> None:
    commands = re.findall(r"pip (?:install|wheel)[^&]*?-r \S+", DOCKERFILE)
    assert len(commands) == 2  # the build tools, then the runtime dependencies
    for command in commands:
        assert "--require-hashes" in command, command


def test_the_image_runs_as_a_non_root_user_with_the_kit_as_entrypoint() -> None:
    final = _final_stage()
    user = re.findall(r"^USER (\S+)$", final, re.MULTILINE)
    assert user, "the final stage sets no USER"
    assert user[-1].split(":")[0] not in ("0", "root")
    assert 'ENTRYPOINT ["agentic"]' in final


def test_the_image_is_offline_and_records_its_build() -> None:
    final = _final_stage()
    for name in ("HF_HUB_OFFLINE=1", "AGENTIC_BUILD_COMMIT=", "AGENTIC_BUILD_DIRTY="):
        assert name in final, name


@pytest.mark.skipif(shutil.which("hadolint") is None, reason="hadolint is not installed")
def test_hadolint_finds_nothing() -> None:
    done = subprocess.run(
        ["hadolint", str(ROOT / "Dockerfile")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout
