"""Bounded one-shot child processes (``node --version``, ``npm ci``, ``qmd update``).

Each child starts in a new session, so its pid is its process-group id: on timeout the whole
group is killed (qmd's launcher and node-llama-cpp may spawn helpers), then the child is reaped.
Output is captured whole; these commands print little.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from agentic.contract.errors import ContractError

_TAIL_CHARS = 400


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str

    def tail(self) -> str:
        """The end of stderr (else stdout) on one line, for an error message."""
        text = (self.stderr.strip() or self.stdout.strip())[-_TAIL_CHARS:]
        return " ".join(text.split())


def run_bounded(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    timeout_s: float,
    code: str,
) -> Finished:
    """Run to completion within ``timeout_s``; ``code`` names the ContractError on failure to
    start or on timeout (the process group is killed first)."""
    try:
        child = subprocess.Popen(
            list(argv),
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise ContractError(code, f"cannot start {argv[0]}: {exc.strerror}") from None
    try:
        out, err = child.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(child.pid)
        child.communicate()
        message = f"{Path(argv[0]).name} did not finish within {timeout_s:g} s"
        raise ContractError(code, message) from None
    finally:
        kill_group(child.pid)  # a helper the child left behind must not outlive it
    return Finished(
        child.returncode,
        out.decode("utf-8", errors="replace"),
        err.decode("utf-8", errors="replace"),
    )


def kill_group(pid: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
