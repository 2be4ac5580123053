"""The one door into a sandboxed HTTP server: a Unix socket relayed to its port.

A kit-started streamable-HTTP server runs in a network namespace of its own (bubblewrap's
``--unshare-net``, loopback only), so it reaches no service of the host: not the model endpoint,
not another backend, nothing on the network. The harness still has to talk to it. This script is
run inside the sandbox in front of the server:

    python netrelay.py --socket PATH --port PORT -- SERVER ARGV...

It starts the server as its child, waits until ``127.0.0.1:PORT`` accepts inside the namespace,
then listens on the Unix socket ``PATH`` (a file in the server's writable run root, which the
harness sees too) and copies bytes both ways between each accepted connection and the port. It
exits with the server's status when the server exits, and passes SIGTERM/SIGINT on to it. The
socket appears only once the server listens, so the harness's readiness check is the socket.

Standard library only: the sandbox binds this one file, not the ``agentic`` package.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

_POLL_S = 0.05
_CHUNK = 65536


def _pipe(source: socket.socket, target: socket.socket) -> None:
    """Copy until ``source`` ends, then end ``target``'s writing side."""
    try:
        while chunk := source.recv(_CHUNK):
            target.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def _relay(client: socket.socket, port: int) -> None:
    try:
        upstream = socket.create_connection(("127.0.0.1", port))
    except OSError:
        client.close()
        return
    back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
    back.start()
    _pipe(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def _listen(path: str) -> socket.socket:
    """Listen on ``path``, which appears only once it accepts (bound aside, then renamed)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    aside = f"{path}.{os.getpid()}"
    if os.path.exists(aside):
        os.unlink(aside)
    listener.bind(aside)
    listener.listen(64)
    os.replace(aside, path)
    return listener


# How long the relay, once its server has exited, still forwards what the server had already
# sent: a server that answers and exits at once must not lose its answer to the relay's exit.
_DRAIN_S = 5.0


def _serve(listener: socket.socket, port: int, connections: list[threading.Thread]) -> None:
    while True:
        client, _ = listener.accept()
        connection = threading.Thread(target=_relay, args=(client, port), daemon=True)
        connections.append(connection)
        connection.start()


def _drain(connections: list[threading.Thread]) -> None:
    """Let the open connections forward what is left, within _DRAIN_S in all."""
    deadline = time.monotonic() + _DRAIN_S
    for connection in list(connections):
        connection.join(max(0.0, deadline - time.monotonic()))


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="netrelay")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no server command after --")
    server = subprocess.Popen(command)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda number, _frame: server.send_signal(number))
    while server.poll() is None and not _listening(options.port):
        time.sleep(_POLL_S)
    connections: list[threading.Thread] = []
    if server.poll() is None:
        try:
            listener = _listen(options.socket)
        except OSError as exc:
            print(f"netrelay: cannot listen on {options.socket}: {exc}", file=sys.stderr)
            server.kill()
            return 70
        serving = threading.Thread(
            target=_serve, args=(listener, options.port, connections), daemon=True
        )
        serving.start()
    status = server.wait()
    _drain(connections)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
