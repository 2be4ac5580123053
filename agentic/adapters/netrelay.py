"""The one door into a sandboxed HTTP server: a Unix socket relayed to its port.

A kit-started streamable-HTTP server runs in a network namespace of its own (bubblewrap's
``--unshare-net``, loopback only), so it reaches no service of the host: not the model endpoint,
not another backend, nothing on the network. The harness still has to talk to it. This script is
run inside the sandbox in front of the server:

    python netrelay.py --listen-fd FD --port PORT -- SERVER ARGV...

``FD`` is a Unix socket the harness bound, in a folder of its own that the sandbox does not show,
and handed down not yet listening. The relay starts the server as its child (without that
descriptor), waits until ``127.0.0.1:PORT`` accepts inside the namespace, then listens on ``FD``
and copies bytes both ways between each accepted connection and the port. It exits with the
server's status when the server exits, and passes SIGTERM/SIGINT on to it. A connection to the
socket is refused until the server listens, so the harness's readiness check is the socket.
Nothing inside the sandbox can move or replace the socket's path: the harness never connects
through a path the server can change.

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


def _listen(fd: int) -> socket.socket:
    """Start accepting on the socket the harness bound (until now connections are refused)."""
    listener = socket.socket(fileno=fd)
    listener.listen(64)
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
    parser.add_argument("--listen-fd", type=int, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no server command after --")
    # The server never holds the door: only the relay may listen on it.
    os.set_inheritable(options.listen_fd, False)
    server = subprocess.Popen(command)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda number, _frame: server.send_signal(number))
    while server.poll() is None and not _listening(options.port):
        time.sleep(_POLL_S)
    connections: list[threading.Thread] = []
    if server.poll() is None:
        try:
            listener = _listen(options.listen_fd)
        except OSError as exc:
            print(f"netrelay: cannot listen on fd {options.listen_fd}: {exc}", file=sys.stderr)
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
