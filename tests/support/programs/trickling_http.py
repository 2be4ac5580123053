"""An HTTP server on 127.0.0.1 that answers every request with a valid JSON reply sent one byte
every ``interval_s``, forever: the body (``Connection: close``, no length, so it never ends) or,
with ``trickle_head``, the status line and headers too. A per-read timeout never trips on it;
only a deadline over the whole request ends it.

Bounded all the same: a connection ends when its client closes it, when the server stops (with
its ``trickling`` block) or after ``lasts_s``, whichever comes first. ``closed`` is set once a
client has closed its connection, so a test can see that a step past its deadline let go.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
BODY = b'{"object": "list", "data": []}'
ACCEPT_POLL_S = 0.05


@dataclass
class Trickle:
    interval_s: float = 0.3
    trickle_head: bool = False
    lasts_s: float = 30.0
    port: int = 0
    closed: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _bytes(trickle: Trickle) -> Iterator[bytes]:
    """What a connection sends after the head (or with it, when it trickles too), one byte at a
    time: a JSON object, then whitespace without end."""
    for byte in (HEAD if trickle.trickle_head else b"") + BODY:
        yield bytes([byte])
    while True:
        yield b" "


def _read_request(conn: socket.socket) -> None:
    """The request's head and body, read and dropped: the reply is the same for any."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return
        body += chunk


def _trickle(trickle: Trickle, conn: socket.socket) -> None:
    ends = time.monotonic() + trickle.lasts_s
    with conn:
        try:
            _read_request(conn)
            if not trickle.trickle_head:
                conn.sendall(HEAD)
            for byte in _bytes(trickle):
                if trickle.stop.is_set() or time.monotonic() >= ends:
                    return
                conn.sendall(byte)
                trickle.stop.wait(trickle.interval_s)
        except OSError:  # the client closed its end: what a step past its deadline must do
            trickle.closed.set()


def _accept(trickle: Trickle, listener: socket.socket, handlers: list[threading.Thread]) -> None:
    while not trickle.stop.is_set():
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        conn.settimeout(trickle.lasts_s)  # a client that never sends its request
        handler = threading.Thread(target=_trickle, args=(trickle, conn), daemon=True)
        handlers.append(handler)
        handler.start()


@contextmanager
def trickling(trickle: Trickle) -> Iterator[Trickle]:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(ACCEPT_POLL_S)
    trickle.port = listener.getsockname()[1]
    handlers: list[threading.Thread] = []
    acceptor = threading.Thread(
        target=_accept, args=(trickle, listener, handlers), name="trickling-http", daemon=True
    )
    acceptor.start()
    try:
        yield trickle
    finally:
        trickle.stop.set()
        acceptor.join(timeout=5)
        for handler in handlers:
            handler.join(timeout=5)
        with suppress(OSError):
            listener.close()
