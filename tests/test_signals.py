"""SIGTERM (what CI timeouts and container stops send) ends a run like an interrupt: one line,
its temporary folders and server processes removed, exit 143."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

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


def test_ctrl_c_during_a_model_request_ends_the_run_without_waiting_for_it(
    tmp_path: Path,
) -> None:
    from tests.support.fake_openai import FakeEndpoint, Reply, config_text, scripted_reply, serving

    fixture = write_tiny_fixture(tmp_path / "fixture")
    released = threading.Event()

    def hung_then_scripted(body: dict[str, Any]) -> Reply:
        released.wait(timeout=120)  # a model still thinking: minutes on a CPU
        return scripted_reply(body)

    fake = FakeEndpoint(policy=hung_then_scripted)
    with serving(fake) as endpoint:
        config = tmp_path / "agent.toml"
        config.write_text(config_text(endpoint.base_url, timeout_s=300.0), encoding="utf-8")
        out = tmp_path / "out"
        argv = [
            sys.executable, "-m", "agentic", "run", "--fixture", str(fixture),
            "--agent-config", str(config), "--adapter", "lexical", "--lifecycle", "cold",
            "--promote", "none", "--out", str(out),
        ]  # fmt: skip
        child = subprocess.Popen(
            argv,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            # A job a non-interactive shell started in the background (CI's) ignores SIGINT,
            # and a child inherits that: give it the terminal's default back, as Ctrl-C meets it.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
        )
        deadline = time.monotonic() + STARTED_WITHIN_S
        while not fake.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fake.requests, "the run never asked the model"
        child.send_signal(signal.SIGINT)
        try:
            _, stderr = child.communicate(timeout=30)  # the request alone would hold it 120 s
        finally:
            released.set()
        assert stderr.splitlines()[-1] == "agentic: interrupted"
        assert not out.exists()
        assert (tmp_path / ".agentic-journal-out").is_dir()
        resumed = subprocess.run(
            [*argv, "--resume"], capture_output=True, text=True, check=False, timeout=120
        )
    assert resumed.returncode == 0, resumed.stderr
    assert (out / "report.json").is_file()
