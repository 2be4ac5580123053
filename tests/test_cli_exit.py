"""The ``agentic`` command exits without the interpreter's teardown, and loses nothing by it.

Each case runs in a fresh interpreter: exiting is what is under test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agentic import __version__


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    prelude = "import atexit, sys, threading, time\nfrom agentic.cli import exit_promptly\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + code],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def test_the_command_prints_its_version_and_exits_zero() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentic", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, f"agentic {__version__}\n")


def test_the_exit_code_is_the_commands(tmp_path: Path) -> None:
    assert _python("exit_promptly(3)", tmp_path).returncode == 3


def test_buffered_output_is_flushed_before_the_exit(tmp_path: Path) -> None:
    done = _python("print('partial', end=''); sys.stderr.write('err'); exit_promptly(0)", tmp_path)
    assert (done.stdout, done.stderr) == ("partial", "err")


def test_exit_handlers_run_once(tmp_path: Path) -> None:
    done = _python("atexit.register(print, 'handler'); exit_promptly(0)", tmp_path)
    assert done.stdout == "handler\n"


def test_a_running_non_daemon_thread_is_waited_for(tmp_path: Path) -> None:
    code = (
        "def late():\n"
        "    time.sleep(0.3)\n"
        "    open('done', 'w').write('yes')\n"
        "threading.Thread(target=late).start()\n"
        "exit_promptly(5)\n"
    )
    done = _python(code, tmp_path)
    assert done.returncode == 5
    assert (tmp_path / "done").read_text() == "yes"


def test_a_stream_that_cannot_flush_gets_the_usual_exit(tmp_path: Path) -> None:
    code = "atexit.register(print, 'h', file=sys.stderr); sys.stdout.close(); exit_promptly(4)"
    done = _python(code, tmp_path)
    assert (done.returncode, done.stderr) == (4, "h\n")


def test_a_profiled_command_gets_the_usual_exit_and_its_stats(tmp_path: Path) -> None:
    stats = tmp_path / "stats"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "agentic", "tools"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert stats.stat().st_size > 0
