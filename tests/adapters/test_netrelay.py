"""The relay in front of a sandboxed HTTP server: the socket the harness bound accepts only once
the server listens, carries bytes both ways, and the relay ends with the server's status."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agentic.adapters.mcp.http_client import free_port
from agentic.adapters.sandbox import RELAY_SCRIPT, Relay, bound_door

# Serves until a connection sends something (the relay's readiness probe sends nothing).
ECHO = (
    "import socket, sys, time\n"
    "time.sleep(0.5)\n"
    "s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n"
    "while True:\n"
    "    c, _ = s.accept(); data = c.recv(100)\n"
    "    if data: c.sendall(data.upper()); c.close(); sys.exit(7)\n"
)


@contextmanager
def _relay(door: Path, port: int, *server: str) -> Iterator[subprocess.Popen[bytes]]:
    with bound_door(Relay(door, port)) as fd:
        assert fd is not None
        argv = [sys.executable, str(RELAY_SCRIPT), "--listen-fd", str(fd), "--port", str(port)]
        relay = subprocess.Popen([*argv, "--", *server], pass_fds=(fd,))
    try:
        yield relay
    finally:
        relay.kill()
        relay.wait()


def _accepts(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def _wait_for(path: Path, relay: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while not _accepts(path) and relay.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)


def test_the_relay_carries_a_connection_to_the_port_and_ends_with_the_servers_status(
    tmp_path: Path,
) -> None:
    port, door = free_port(), tmp_path / "http.sock"
    with _relay(door, port, sys.executable, "-c", ECHO, str(port)) as relay:
        _wait_for(door, relay)
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(door))
            client.sendall(b"hello")
            assert client.recv(100) == b"HELLO"
        assert relay.wait(timeout=20) == 7


def test_the_door_refuses_connections_before_the_server_listens(tmp_path: Path) -> None:
    port, door = free_port(), tmp_path / "http.sock"
    with _relay(door, port, sys.executable, "-c", ECHO, str(port)) as relay:
        assert not _accepts(door)  # the echo server sleeps half a second before it listens
        _wait_for(door, relay)
        assert _accepts(door)


def test_the_door_refuses_connections_once_a_server_exits_before_listening(
    tmp_path: Path,
) -> None:
    door = tmp_path / "http.sock"
    with _relay(door, free_port(), sys.executable, "-c", "raise SystemExit(4)") as relay:
        assert relay.wait(timeout=20) == 4
        assert not _accepts(door)


# Exits 9 when one of its descriptors is a Unix socket bound at argv[1], else 0.
HOLDS_SOCKET = (
    "import os, socket, sys\n"
    "for name in os.listdir('/proc/self/fd'):\n"
    "    try:\n"
    "        held = socket.socket(fileno=int(name))\n"
    "    except OSError:\n"
    "        continue\n"
    "    bound = held.getsockname() if held.family == socket.AF_UNIX else ''\n"
    "    held.detach()\n"
    "    if bound == sys.argv[1]:\n"
    "        sys.exit(9)\n"
)


def test_the_server_behind_the_relay_does_not_hold_the_door(tmp_path: Path) -> None:
    port, door = free_port(), tmp_path / "http.sock"
    with _relay(door, port, sys.executable, "-c", HOLDS_SOCKET, str(door)) as relay:
        assert relay.wait(timeout=20) == 0
