"""A real local Ray cluster for the Ray executor's tests: a head, and any further nodes, started
with ``ray start`` from the test's own environment, each with its own temp folder, and stopped by
those folders (never ``ray stop``, which would stop every Ray process on the machine).

As a program (``nox -s distributed``), it runs one ``agentic`` command against such a cluster::

    python -m tests.support.ray_cluster --nodes 2 -- verify fixture-agent --executor ray

The command gets ``--ray-address`` of the cluster; with ``--nodes N`` its Ray line (``agentic:
ray: U units on M nodes``) must name all N nodes. The exit code is the command's, else 1.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
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
# The authoritative lane on two one-CPU nodes takes 1 to 2 minutes; a run still going after
# this is stuck (a lost task Ray never reports), and is stopped with what it printed.
RUN_TIMEOUT_S = 900
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


def _ray_start(*args: str) -> None:
    ray = Path(sys.executable).parent / "ray"
    subprocess.run(
        [str(ray), "start", "--node-ip-address=127.0.0.1", "--disable-usage-stats", *args],
        check=True, capture_output=True, timeout=START_TIMEOUT_S, env={**os.environ, **RAY_ENV},
    )  # fmt: skip


@contextlib.contextmanager
def local_cluster(cpus: int = 2, nodes: int = 1) -> Iterator[str]:
    """A head and ``nodes - 1`` further nodes with ``cpus`` CPUs each; yields the address."""
    work = tempfile.mkdtemp(prefix="agentic-ray-test-")  # short: Ray's socket paths sit under it
    address = f"127.0.0.1:{free_port()}"
    try:
        _ray_start("--head", f"--port={address.rsplit(':', 1)[1]}", f"--num-cpus={cpus}",
                   f"--temp-dir={work}/head", "--include-dashboard=false")  # fmt: skip
        for index in range(1, nodes):
            _ray_start(f"--address={address}", f"--num-cpus={cpus}", f"--temp-dir={work}/{index}")
        yield address
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


RAY_LINE = re.compile(r"agentic: ray: ([0-9]+) units on ([0-9]+) nodes")


def run_on_cluster(nodes: int, agentic_args: list[str]) -> int:
    """``agentic ARGS --ray-address ADDR`` on a local cluster of ``nodes`` one-CPU nodes; its
    stderr is passed through and must hold a Ray line naming every node."""
    with local_cluster(cpus=1, nodes=nodes) as address:
        command = [sys.executable, "-m", "agentic", *agentic_args, "--ray-address", address]
        try:
            done = subprocess.run(
                command, stderr=subprocess.PIPE, text=True, env={**os.environ, **RAY_ENV},
                check=False, timeout=RUN_TIMEOUT_S,
            )  # fmt: skip
        except subprocess.TimeoutExpired as stuck:
            sys.stderr.write(_text(stuck.stderr))
            print(f"ray_cluster: the run was stopped after {RUN_TIMEOUT_S} s", file=sys.stderr)
            return 1
    sys.stderr.write(done.stderr)
    spread = RAY_LINE.search(done.stderr)
    if spread is None or int(spread.group(2)) != nodes:
        print(f"ray_cluster: the run did not use all {nodes} nodes", file=sys.stderr)
        return done.returncode or 1
    return done.returncode


def _text(output: str | bytes | None) -> str:
    # TimeoutExpired keeps what was read as bytes even when the run decoded text.
    if isinstance(output, bytes):
        return output.decode(errors="replace")
    return output or ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.ray_cluster")
    parser.add_argument("--nodes", type=int, default=2, help="nodes of one CPU each")
    parser.add_argument("agentic_args", nargs="+", metavar="ARG", help="an agentic command")
    args = parser.parse_args(argv)
    return run_on_cluster(args.nodes, args.agentic_args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
