"""The local process pool (``--executor processes`` / ``--jobs`` for a one-pair-at-a-time
agent): a worker process killed with -9 is a harness failure, retried and recorded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.fixture.loader import Fixture
from agentic.lane.executors.processes import share_cores
from agentic.locks import THREADS_ENV

HANG_GUARD_S = 120


def _argv(fixture: Fixture, out: Path, *extra: str) -> list[str]:
    return ["run", "--fixture", str(fixture.root), "--adapter", "lexical,mcp-reference",
            "--promote", "none", "--quiet", "--out", str(out), *extra]  # fmt: skip


def _pool_workers(parent: int) -> list[int]:
    found = []
    for pid in Path("/proc").iterdir():
        if not pid.name.isdigit():
            continue
        try:
            stat = (pid / "stat").read_text().rsplit(")", 1)[1].split()
            command = (pid / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == parent and b"multiprocessing" in command:
            found.append(int(pid.name))
    return found


def _kill_a_worker_once_one_is_busy(argv: list[str]) -> subprocess.CompletedProcess[str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "agentic", *argv], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + HANG_GUARD_S
    # A worker that has started a backend child is inside a unit.
    while not (busy := [w for w in _pool_workers(child.pid) if _has_children(w)]):
        assert child.poll() is None, "the lane ended before a worker was busy"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.kill(busy[0], signal.SIGKILL)
    stdout, stderr = child.communicate(timeout=HANG_GUARD_S)
    return subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)


def _has_children(pid: int) -> bool:
    try:
        tasks = list((Path("/proc") / str(pid) / "task").iterdir())
        return any((task / "children").read_text().strip() for task in tasks)
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.real_process
def test_a_killed_worker_process_is_retried_and_recorded(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alone = tmp_path / "alone"
    assert main(_argv(tiny_fixture, alone)) == 0
    capsys.readouterr()
    out = tmp_path / "out"
    pooled = _argv(tiny_fixture, out, "--executor", "processes", "--jobs", "2", "--retries", "2")
    done = _kill_a_worker_once_one_is_busy(pooled)
    assert done.returncode == 0, done.stderr
    assert (out / "canonical.json").read_bytes() == (alone / "canonical.json").read_bytes()
    report = json.loads((out / "report.json").read_bytes())
    notes = [d for r in report["receipts"] for d in r["observations"]["diagnostics"]]
    assert any(
        n.startswith("retry 1 of the pair after a harness failure: BrokenProcessPool")
        for n in notes
    )


def test_a_worker_takes_its_share_of_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    environ: dict[str, str] = {}
    monkeypatch.setattr(os, "environ", environ)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    share_cores(3)
    assert environ == {THREADS_ENV: "2"}


def test_a_worker_keeps_the_users_thread_count(monkeypatch: pytest.MonkeyPatch) -> None:
    environ = {THREADS_ENV: "5"}
    monkeypatch.setattr(os, "environ", environ)
    share_cores(4)
    assert environ == {THREADS_ENV: "5"}
