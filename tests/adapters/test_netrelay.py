"""The relay in front of a sandboxed HTTP server: its socket appears only once the server
listens, carries bytes both ways, and the relay ends with the server's status."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from agentic.adapters.mcp.http_client import free_port
from agentic.adapters.sandbox import RELAY_SCRIPT

# Serves until a connection sends something (the relay's readiness probe sends nothing).
ECHO = (
    "import socket, sys, time\n"
    "time.sleep(0.5)\n"
    "s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n"
    "while True:\n"
    "    c, _ = s.accept(); data = c.recv(100)\n"
    "    if data: c.sendall(data.upper()); c.close(); sys.exit(7)\n"
)


def _relay(door: Path, port: int, *server: str) -> subprocess.Popen[bytes]:
    argv = [sys.executable, str(RELAY_SCRIPT), "--socket", str(door), "--port", str(port)]
    return subprocess.Popen([*argv, "--", *server])


def _wait_for(path: Path, relay: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while not path.exists() and relay.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)


def test_the_relay_carries_a_connection_to_the_port_and_ends_with_the_servers_status(
    tmp_path: Path,
) -> None:
    port, door = free_port(), tmp_path / "http.sock"
    relay = _relay(door, port, sys.executable, "-c", ECHO, str(port))
    try:
        _wait_for(door, relay)
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(door))
            client.sendall(b"hello")
            assert client.recv(100) == b"HELLO"
        assert relay.wait(timeout=20) == 7
    finally:
        relay.kill()


def test_no_socket_appears_for_a_server_that_exits_before_listening(tmp_path: Path) -> None:
    door = tmp_path / "http.sock"
    relay = _relay(door, free_port(), sys.executable, "-c", "raise SystemExit(4)")
    assert relay.wait(timeout=20) == 4
    assert not door.exists()
