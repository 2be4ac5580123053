"""A real local Ray cluster for the Ray executor's tests: one head started with ``ray start``
from the test's own environment, stopped by its temp folder (never ``ray stop``, which would
stop every Ray process on the machine)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

START_TIMEOUT_S = 180
# No usage reports; no token auth, which would write ~/.ray/auth_token (the cluster listens on
# 127.0.0.1 only); the driver (the test process) must run with the same RAY_AUTH_MODE.
RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _uses(pid: Path, marker: str) -> bool:
    try:
        if marker in (pid / "cmdline").read_bytes().decode(errors="replace"):
            return True
        return any(os.readlink(fd).startswith(marker) for fd in (pid / "fd").iterdir())
    except OSError:
        return False


def processes_using(marker: str) -> list[int]:
    return [
        int(pid.name)
        for pid in Path("/proc").iterdir()
        if pid.name.isdigit() and int(pid.name) != os.getpid() and _uses(pid, marker)
    ]


def stop(marker: str) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in processes_using(marker):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        time.sleep(1)


@contextlib.contextmanager
def local_cluster(cpus: int = 2) -> Iterator[str]:
    """A head node with ``cpus`` CPUs; yields its address."""
    ray = Path(sys.executable).parent / "ray"
    work = tempfile.mkdtemp(prefix="agentic-ray-test-")  # short: Ray's socket paths sit under it
    port = free_port()
    try:
        subprocess.run(
            [str(ray), "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
             f"--num-cpus={cpus}",
             f"--temp-dir={work}", "--include-dashboard=false", "--disable-usage-stats"],
            check=True, capture_output=True, timeout=START_TIMEOUT_S,
            env={**os.environ, **RAY_ENV},
        )  # fmt: skip
        yield f"127.0.0.1:{port}"
    finally:
        stop(work)
        shutil.rmtree(work, ignore_errors=True)


def unit_workers() -> list[int]:
    """The pids of Ray worker processes running a unit of a lane right now."""
    found = []
    for pid in Path("/proc").iterdir():
        if not pid.name.isdigit():
            continue
        try:
            command = (pid / "cmdline").read_bytes()
        except OSError:
            continue
        if command.startswith(b"ray::ray_unit"):
            found.append(int(pid.name))
    return found
