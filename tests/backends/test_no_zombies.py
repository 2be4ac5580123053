"""No backend process is left ``<defunct>`` after its pair: not a sandbox's first process
re-parented to the harness, not a helper its server detached and the kill ended."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentic.adapters import sandbox
from agentic.processes import become_subreaper, kill_tree
from tests.support.backends import REPO, child_env, stdio_config, write_config
from tests.support.processes import zombie_children
from tests.support.tiny_fixture import TASK_A

pytestmark = pytest.mark.real_process

# Runs a cold lane in this process (the CLI's main, without its exit-time reaping), then prints
# its exit code and how many of its children are zombies.
_RUN_AND_COUNT = """
import sys
from agentic.cli import main
from tests.support.processes import zombie_children

print(main(sys.argv[1:]), len(zombie_children()))
"""


@pytest.mark.skipif(not sandbox.bubblewrap_works(), reason="bubblewrap cannot run here")
def test_cold_pairs_under_the_sandbox_leave_no_defunct_process(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    config = write_config(tmp_path / "config", stdio_config("ok"))
    lane = [
        "run", "--fixture", str(tiny_fixture_dir), "--backend", str(config),
        "--adapter", "misbehaving", "--task", TASK_A, "--lifecycle", "cold",
        "--promote", "none", "--out", str(tmp_path / "out"), "--quiet",
    ]  # fmt: skip
    env = {**child_env(tmp_path / "tmp"), "AGENTIC_ISOLATION": "bubblewrap"}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_AND_COUNT, *lane],
        capture_output=True, text=True, timeout=300, env=env, check=False, cwd=REPO,
    )  # fmt: skip
    code, zombies = done.stdout.split()[-2:]
    assert code in ("0", "1"), done.stderr
    assert zombies == "0"


def test_killing_a_tree_reaps_the_helper_it_detached(tmp_path: Path) -> None:
    become_subreaper()
    ready = tmp_path / "helper.pid"
    # The server starts a helper in a session of its own, then waits: killing the tree ends
    # both, and the helper is re-parented to this process as it dies.
    script = (
        "import subprocess, sys, time\n"
        "helper = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        f"open({str(ready)!r}, 'w').write(str(helper.pid))\n"
        "time.sleep(300)\n"
    )
    server = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    deadline = time.monotonic() + 20
    while not ready.is_file() or not ready.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    helper = int(ready.read_text())
    kill_tree(server.pid)
    assert server.wait(timeout=10) == -signal.SIGKILL
    assert helper not in zombie_children()
