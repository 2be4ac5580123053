"""A synchronous MCP client over streamable HTTP, built on the ``mcp`` SDK's own HTTP transport.

It mirrors :class:`~agentic.adapters.mcp.client.McpConnection` (the stdio client): one event
loop in a dedicated thread owns the SDK session; every request runs under a deadline; failures
surface as :class:`McpClientError` with the same kinds, so the adapter maps both transports onto
the same contract codes.

The server is either one the user started (only ``url``) or one the kit starts (``spawn``): then
the child runs in its own process group with its output drained into a bounded tail, the kit
waits until the URL's port accepts connections (or the child exits, or the deadline passes), and
closing the connection terminates the whole group.

HTTP specifics, all decided in one transport wrapper around the SDK's ``httpx2`` client:

- a reply body (JSON or one SSE stream) over the byte cap ends the connection as ``oversized``;
  the cap counts decoded bytes: the body is decoded here, piece by piece, whatever its
  ``Content-Encoding`` (``content_coding.py``), and requests ask for ``identity``;
- an HTTP status >= 400 on a request is an ``error_response`` naming the status;
- a refused or broken connection is ``crashed`` (the server went away or was never there).

A server the kit starts under the sandbox has a network namespace of its own: then every request
(and the readiness probe) goes through the Unix socket of its relay (``adapters/netrelay.py``).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
import httpx2
import mcp_types as types
from anyio.abc import ByteReceiveStream, Process
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from agentic.adapters.mcp.client import (
    CLIENT_INFO,
    ConnectionLimits,
    LoopConnection,
    McpClientError,
    start_child,
)
from agentic.adapters.mcp.content_coding import (
    BoundedDecoder,
    ContentCodingError,
    DecodedTooLargeError,
    codings,
)
from agentic.adapters.mcp.process import (
    ChildSpec,
    StderrTail,
    drain_stderr,
    terminate,
)
from agentic.contract.errors import AgenticError

_T = TypeVar("_T")
_THREAD_MARGIN_S = 2.0
_READY_POLL_S = 0.05
_CONNECT_PROBE_S = 1.0
# The SDK logs transport trouble it also reports to us as errors; we classify those ourselves.
logging.getLogger("mcp").addHandler(logging.NullHandler())
logging.getLogger("httpx2").addHandler(logging.NullHandler())


class _Faults:
    """What the transport wrapper saw, read by the request that failed because of it."""

    def __init__(self) -> None:
        self.fatal: McpClientError | None = None
        self.status: McpClientError | None = None


class _ReplyRefusedError(httpx2.StreamError, AgenticError):
    pass


class _CappedStream(httpx2.AsyncByteStream):
    """The body decoded here (see ``content_coding.py``) and counted as decoded: the cap bounds
    what the SDK will hold, never only what crossed the wire."""

    def __init__(
        self, inner: httpx2.AsyncByteStream, decoder: BoundedDecoder, faults: _Faults
    ) -> None:
        self._inner = inner
        self._decoder = decoder
        self._faults = faults

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                for piece in self._decoder.feed(chunk):
                    yield piece
            for piece in self._decoder.finish():
                yield piece
        except DecodedTooLargeError as exc:
            raise self._fail(McpClientError("oversized", f"server reply: {exc}")) from None
        except ContentCodingError as exc:
            raise self._fail(McpClientError("malformed", f"server reply: {exc}")) from None

    def _fail(self, failure: McpClientError) -> _ReplyRefusedError:
        self._faults.fatal = self._faults.fatal or failure
        return _ReplyRefusedError(str(failure))

    async def aclose(self) -> None:
        await self._inner.aclose()


class _GuardedTransport(httpx2.AsyncBaseTransport):
    """Caps reply bodies, records HTTP error statuses and turns transport errors into a 502 the
    SDK resolves at once (instead of a waiter that only the deadline would end)."""

    def __init__(self, cap: int, faults: _Faults, unix_socket: Path | None) -> None:
        self._inner = httpx2.AsyncHTTPTransport(
            uds=str(unix_socket) if unix_socket is not None else None
        )
        self._cap = cap
        self._faults = faults

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            response = await self._inner.handle_async_request(request)
        except httpx2.TransportError as exc:
            if request.method == "POST":
                failure = McpClientError("crashed", f"HTTP transport failed: {exc!r}")
                self._faults.fatal = self._faults.fatal or failure
            return httpx2.Response(502, request=request)
        if request.method == "POST" and response.status_code >= 400:
            self._faults.status = McpClientError(
                "error_response", f"HTTP {response.status_code} from {request.url}"
            )
        try:
            decoder = _decoder(response.headers, self._cap)
        except McpClientError as refusal:
            await response.aclose()
            self._faults.fatal = self._faults.fatal or refusal
            return httpx2.Response(502, request=request)
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        # The body leaves decoded: the SDK's client must not decode it a second time, and the
        # wire length no longer describes it.
        headers = response.headers.copy()
        for name in ("content-encoding", "content-length"):
            headers.pop(name, None)
        return httpx2.Response(
            response.status_code,
            headers=headers,
            stream=_CappedStream(response.stream, decoder, self._faults),
            request=request,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _decoder(headers: httpx2.Headers, cap: int) -> BoundedDecoder:
    """The decoder of a reply's body; McpClientError when its headers alone refuse it: a
    declared length over the cap, or a coding the client cannot decode."""
    length = headers.get("content-length", "")
    if length.isdigit() and int(length) > cap:
        raise McpClientError("oversized", f"server reply declares {length} bytes")
    try:
        return BoundedDecoder(codings(headers.get("content-encoding", "")), cap)
    except ContentCodingError as exc:
        raise McpClientError("malformed", f"server reply: {exc}") from None


@dataclass
class _Live:
    session: ClientSession
    faults: _Faults
    stop: anyio.Event
    process: Process | None


class HttpConnection(LoopConnection[_Live]):
    """A started, initialized MCP session over streamable HTTP. Use :meth:`open`."""

    def __init__(
        self,
        url: str,
        spec: ChildSpec | None,
        limits: ConnectionLimits,
        init_timeout_s: float,
        unix_socket: Path | None = None,
    ) -> None:
        super().__init__(limits, "mcp-http")
        self._url = url
        self._spec = spec
        self._limits = limits
        self._init_timeout_s = init_timeout_s
        self._unix_socket = unix_socket

    @classmethod
    def open(
        cls,
        url: str,
        spec: ChildSpec | None,
        limits: ConnectionLimits,
        *,
        timeout_s: float,
        unix_socket: Path | None = None,
    ) -> HttpConnection:
        """Start the server when ``spec`` is given, wait for it, connect and initialize within
        ``timeout_s``; on any failure nothing is left running. With ``unix_socket`` every
        request goes through that socket (a sandboxed server's relay) instead of TCP."""
        connection = cls(url, spec, limits, timeout_s, unix_socket)
        connection._start(timeout_s, f"connecting to {url}")
        return connection

    def _guard(
        self, live: _Live, op: Callable[[ClientSession], Awaitable[_T]], timeout_s: float
    ) -> Coroutine[Any, Any, _T]:
        return self._guarded(live, op, timeout_s)

    def _ended(self, live: _Live) -> McpClientError:
        return live.faults.fatal or McpClientError("crashed", "connection ended")

    async def _guarded(
        self, live: _Live, op: Callable[[ClientSession], Awaitable[_T]], timeout_s: float
    ) -> _T:
        if live.faults.fatal is not None:
            raise McpClientError(live.faults.fatal.kind, str(live.faults.fatal))
        live.faults.status = None
        try:
            with anyio.fail_after(timeout_s):
                return await op(live.session)
        except TimeoutError:
            failure = McpClientError("timeout", f"no answer within {timeout_s:g} s")
            live.faults.fatal = live.faults.fatal or failure
            self._kill()
            raise failure from None
        except MCPError as exc:
            if live.faults.fatal is not None:
                self._kill()
                raise live.faults.fatal from None
            if live.faults.status is not None:
                raise live.faults.status from None
            raise McpClientError(
                "error_response", f"JSON-RPC error {exc.code}: {exc.message}"
            ) from None
        except (ValueError, RuntimeError) as exc:
            raise McpClientError("malformed", f"malformed result: {exc}") from None

    # -- the loop thread ----------------------------------------------------------------------

    async def _owner(self) -> None:
        process: Process | None = None
        async with anyio.create_task_group() as pumps:
            try:
                if self._spec is not None:
                    process = await self._start_server(pumps)
                await self._await_port(process)
                await self._serve(process)
            finally:
                pumps.cancel_scope.cancel()
                if process is not None and self._spec is not None:
                    with anyio.CancelScope(shield=True):
                        await terminate(process, self._spec, self._limits.close_grace_s)

    async def _start_server(self, pumps: anyio.abc.TaskGroup) -> Process:
        assert self._spec is not None
        process = await start_child(self._spec)
        self.pid = process.pid
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                pumps.start_soon(_drain, stream, self.stderr)
        return process

    async def _await_port(self, process: Process | None) -> None:
        """Until the URL's port accepts a connection: a kit-started server gets the whole
        deadline (or until it exits); a user's server must be listening already."""
        host, port = _host_port(self._url)
        deadline = time.monotonic() + (self._init_timeout_s if process else _CONNECT_PROBE_S)
        while True:
            if await _accepts(host, port, self._unix_socket):
                return
            if process is not None and process.returncode is not None:
                raise McpClientError(
                    "crashed", f"server exited with status {process.returncode} before listening"
                )
            if time.monotonic() >= deadline:
                what = "did not listen in time" if process else "is not reachable"
                raise McpClientError(
                    "timeout" if process else "spawn_failed", f"{self._url} {what}"
                )
            await anyio.sleep(_READY_POLL_S)

    async def _serve(self, process: Process | None) -> None:
        faults = _Faults()
        transport = _GuardedTransport(self._limits.max_message_bytes, faults, self._unix_socket)
        # Deadlines are ours (anyio.fail_after per request); the client's own stay out of the way.
        client = httpx2.AsyncClient(
            transport=transport,
            timeout=httpx2.Timeout(None),
            headers={"Accept-Encoding": "identity"},
        )
        async with (
            client,
            streamable_http_client(
                self._url,
                http_client=client,
                max_sse_event_size=self._limits.max_message_bytes,
            ) as (read, write),
            ClientSession(read, write, client_info=CLIENT_INFO) as session,
        ):
            live = _Live(session=session, faults=faults, stop=anyio.Event(), process=process)
            loop = asyncio.get_running_loop()
            self._signal_stop = lambda: loop.call_soon_threadsafe(live.stop.set)
            try:
                result = await self._guarded(live, _initialize, self._init_timeout_s)
            except McpClientError as exc:
                self._ready.set_exception(exc)
                return
            self.server_name = result.server_info.name
            self.server_version = result.server_info.version
            self._ready.set_result((loop, live))
            await live.stop.wait()


async def _initialize(session: ClientSession) -> types.InitializeResult:
    return await session.initialize()


async def _drain(stream: ByteReceiveStream, tail: StderrTail) -> None:
    await drain_stderr(stream, tail)


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    default = 443 if parts.scheme == "https" else 80
    return parts.hostname or "127.0.0.1", parts.port or default


async def _accepts(host: str, port: int, unix_socket: Path | None) -> bool:
    try:
        with anyio.fail_after(_CONNECT_PROBE_S):
            if unix_socket is not None:
                stream: anyio.abc.ByteStream = await anyio.connect_unix(unix_socket)
            else:
                stream = await anyio.connect_tcp(host, port)
    except (OSError, TimeoutError):
        return False
    await stream.aclose()
    return True


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the server binds it next)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
