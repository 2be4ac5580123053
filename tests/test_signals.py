"""SIGTERM (what CI timeouts and container stops send) ends a run like an interrupt: one line,
its temporary folders and server processes removed, exit 143."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.processes import processes_mentioning
from tests.support.tiny_fixture import write_tiny_fixture

pytestmark = pytest.mark.real_process

STARTED_WITHIN_S = 60.0


def gone_soon(marker: str, within_s: float = 10.0) -> bool:
    """No live process mentions ``marker`` (allowing the kernel a moment to deliver SIGKILL)."""
    deadline = time.monotonic() + within_s
    while processes_mentioning(marker):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def test_sigterm_mid_lane_cleans_up_and_exits_143(tmp_path: Path) -> None:
    fixture = write_tiny_fixture(tmp_path / "fixture")
    temp = tmp_path / "tmp"
    temp.mkdir()
    child = subprocess.Popen(
        [sys.executable, "-m", "agentic", "run", "--fixture", str(fixture),
         "--adapter", "mcp-reference", "--promote", "none", "--out", str(tmp_path / "out")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temp)},
    )  # fmt: skip
    deadline = time.monotonic() + STARTED_WITHIN_S
    # Wait until the lane is mid-run: its work folder exists and a server process is up.
    while not processes_mentioning(str(temp)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_mentioning(str(temp)), "the lane never started a server"
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=60)

    assert child.returncode == 143
    assert stderr.splitlines()[-1] == "agentic: terminated (SIGTERM); temporary files removed"
    assert list(temp.iterdir()) == []
    assert gone_soon(str(temp))
    assert not (tmp_path / "out").exists()
