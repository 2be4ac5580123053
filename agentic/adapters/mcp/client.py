"""A synchronous MCP client over one child process, built on the asyncio ``mcp`` SDK (v2).

Each connection owns one event loop in a dedicated thread. The loop's owner task spawns the
child, pumps its pipes into the SDK's ``ClientSession`` and holds everything open until
``close``; every request runs as its own task under a deadline. Any failure that leaves the
protocol state unknown (a timeout, a crash, broken framing, an oversized message) kills the whole
process group at once, so nothing keeps running behind a failed call.

Failures surface as :class:`McpClientError` with a ``kind`` the adapter maps to contract codes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar

import anyio
import mcp_types as types
from anyio.abc import ByteReceiveStream, ByteSendStream, Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from agentic.adapters.mcp.process import (
    ChildSpec,
    FramingError,
    LineReader,
    StderrTail,
    drain_stderr,
    kill_group,
    spawn,
    stop,
)
from agentic.contract.credentials import NO_SECRETS, Secrets, clip_tail
from agentic.contract.errors import AgenticError
from agentic.contract.strict_json import JsonObject

# timeout: no answer in time; crashed: the child exited or closed stdout; protocol: a stdout line
# that is not JSON-RPC; oversized: a message over the byte cap; malformed: a well-framed reply
# that is not a valid result; error_response: a JSON-RPC error; spawn_failed; closed.
FailureKind = Literal[
    "timeout",
    "crashed",
    "protocol",
    "oversized",
    "malformed",
    "error_response",
    "spawn_failed",
    "closed",
]
_T = TypeVar("_T")
# Extra wall time the calling thread grants the loop beyond a call's own deadline, so the
# in-loop deadline (which kills and classifies) normally fires first.
_THREAD_MARGIN_S = 2.0
# What bubblewrap writes when the command it was to run does not exist in the sandbox's view.
_UNSEEN_EXECUTABLE = re.compile(r"^bwrap: execvp (.+): No such file or directory$")
# How much of a server's stderr a failed start quotes: its last lines are the reason.
_START_STDERR_LINES = 3
_START_STDERR_CHARS = 300
CLIENT_INFO = types.Implementation(name="agentic-harness", version="1")
MAX_TOOL_PAGES = 100


async def list_all_tools(session: ClientSession) -> list[types.Tool]:
    """Every page of ``tools/list``; a paginator that never ends cannot hang us."""
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def tool_call(
    name: str, arguments: JsonObject
) -> Callable[[ClientSession], Awaitable[types.CallToolResult]]:
    async def op(session: ClientSession) -> types.CallToolResult:
        return await session.call_tool(name, arguments)

    return op


class Connection(Protocol):
    """What the adapter uses of a connection, over stdio or HTTP."""

    pid: int | None
    server_name: str
    server_version: str
    startup_ms: float
    stderr: StderrTail

    def list_tools(self, *, timeout_s: float) -> list[types.Tool]: ...

    def call_tool(
        self, name: str, arguments: JsonObject, *, timeout_s: float
    ) -> types.CallToolResult: ...

    def close(self) -> None: ...


class McpClientError(AgenticError):
    def __init__(self, kind: FailureKind, message: str) -> None:
        self.kind = kind
        super().__init__(message)


@dataclass(frozen=True)
class ConnectionLimits:
    max_message_bytes: int
    stderr_bytes: int = 65536
    close_grace_s: float = 1.0
    # Lines on stdout that are not JSON at all (a server's own start-up chatter) go to the
    # stderr tail instead of ending the connection; malformed JSON-RPC stays fatal.
    skip_stdout_text: bool = False
    # What the server holds that no excerpt of its output may show (its ``secret_env``).
    secrets: Secrets = NO_SECRETS


@dataclass
class _Live:
    """State shared by the owner task and request tasks; touched only on the loop thread."""

    process: Process
    session: ClientSession
    stop: anyio.Event
    fault: McpClientError | None = None


LiveT = TypeVar("LiveT")


class LoopConnection(Generic[LiveT]):
    """An MCP session owned by an asyncio loop in a dedicated thread; the base of both
    transports. A subclass runs ``_owner`` on that loop (start, initialize, then hold the session
    until ``_signal_stop``), resolves ``_ready`` with ``(loop, live)`` or an error, and guards
    each request in ``_guard``. Callers use it synchronously from any other thread."""

    def __init__(self, limits: ConnectionLimits, thread_name: str) -> None:
        self._close_grace_s = limits.close_grace_s
        self.stderr = StderrTail(limits.stderr_bytes, limits.secrets)
        self._ready: concurrent.futures.Future[tuple[asyncio.AbstractEventLoop, LiveT]] = (
            concurrent.futures.Future()
        )
        self._thread = threading.Thread(target=self._run_loop, name=thread_name, daemon=True)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._live: LiveT | None = None
        self._signal_stop: Callable[[], object] | None = None
        self._closed = False
        self.pid: int | None = None
        self.server_name = ""
        self.server_version = ""
        self.startup_ms = 0.0

    # -- lifecycle ------------------------------------------------------------------------------

    def _start(self, timeout_s: float, what: str) -> None:
        """Run the loop thread and wait until initialized; on failure close, then raise."""
        started = time.perf_counter()
        self._thread.start()
        try:
            self._loop, self._live = self._ready.result(timeout=timeout_s + _THREAD_MARGIN_S)
        except concurrent.futures.TimeoutError:
            self.close()
            failure = McpClientError("timeout", f"server did not initialize within {timeout_s:g} s")
            raise self._with_stderr(failure) from None
        except McpClientError as exc:
            self.close()
            raise self._with_stderr(exc) from None
        except Exception as exc:
            self.close()
            raise McpClientError("spawn_failed", f"{what} failed: {exc}") from exc
        except BaseException:  # an interrupt or SIGTERM while starting: leave nothing running
            self.close()
            raise
        self.startup_ms = (time.perf_counter() - started) * 1000.0

    def _with_stderr(self, failure: McpClientError) -> McpClientError:
        """A failed start with the last lines the server wrote to stderr, which usually say why
        (a ``ModuleNotFoundError``, a missing file); unchanged when it wrote none."""
        lines = [line.strip() for line in self.stderr.text().splitlines() if line.strip()]
        if not lines:
            return failure
        unseen = next((m for line in lines if (m := _UNSEEN_EXECUTABLE.match(line))), None)
        if unseen is not None:
            # bubblewrap could not exec the command: the server never ran, so say that rather
            # than that it closed stdout.
            return McpClientError(
                "spawn_failed", f"executable not visible in the sandbox: {unseen.group(1)}"
            )
        tail = clip_tail(" | ".join(lines[-_START_STDERR_LINES:]), _START_STDERR_CHARS)
        return McpClientError(failure.kind, f"{failure}; stderr: {tail}")

    def close(self) -> None:
        """End the session and the loop thread, then kill the server's group; never raises."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._signal_stop is not None:
                self._signal_stop()
            if self._thread.is_alive():
                self._thread.join(timeout=self._close_grace_s + _THREAD_MARGIN_S + 2.0)
        except Exception:  # close must never raise; the kill below still runs
            pass
        finally:
            self._kill()

    def _kill(self) -> None:
        if self.pid is not None:
            kill_group(self.pid)

    # -- requests ------------------------------------------------------------------------------

    def list_tools(self, *, timeout_s: float) -> list[types.Tool]:
        return self._request(list_all_tools, timeout_s)

    def call_tool(
        self, name: str, arguments: JsonObject, *, timeout_s: float
    ) -> types.CallToolResult:
        return self._request(tool_call(name, arguments), timeout_s)

    def _guard(
        self, live: LiveT, op: Callable[[ClientSession], Awaitable[_T]], timeout_s: float
    ) -> Coroutine[Any, Any, _T]:
        raise NotImplementedError

    def _ended(self, live: LiveT) -> McpClientError:
        """Why a request was cancelled because the loop ended under it."""
        return McpClientError("crashed", "connection ended")

    def _request(self, op: Callable[[ClientSession], Awaitable[_T]], timeout_s: float) -> _T:
        loop, live = self._loop, self._live
        if self._closed or loop is None or live is None or loop.is_closed():
            raise McpClientError("closed", "connection is closed")
        future = asyncio.run_coroutine_threadsafe(self._guard(live, op, timeout_s), loop)
        try:
            return future.result(timeout=timeout_s + _THREAD_MARGIN_S)
        except concurrent.futures.TimeoutError:
            # The loop itself is wedged: kill from this thread; the in-loop path never ran.
            future.cancel()
            self._kill()
            raise McpClientError("timeout", f"no answer within {timeout_s:g} s") from None
        except concurrent.futures.CancelledError:
            raise self._ended(live) from None

    def _run_loop(self) -> None:
        try:
            asyncio.run(self._owner())
        except BaseException as exc:  # reported through the ready future when still pending
            if not self._ready.done():
                self._ready.set_exception(first_client_error(exc))

    async def _owner(self) -> None:
        raise NotImplementedError


async def start_child(spec: ChildSpec) -> Process:
    """Spawn a server child; a failure to start is ``spawn_failed``."""
    try:
        return await spawn(spec)
    except OSError as exc:
        raise McpClientError("spawn_failed", f"cannot start {spec.argv[0]}: {exc}") from exc


def first_client_error(exc: BaseException) -> BaseException:
    """The first McpClientError inside an exception group, or the exception itself."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = first_client_error(inner)
            if isinstance(found, McpClientError):
                return found
    return exc


class McpConnection(LoopConnection["_Live"]):
    """A started, initialized MCP session with one child process over stdio. Use :meth:`open`."""

    def __init__(self, spec: ChildSpec, limits: ConnectionLimits, init_timeout_s: float) -> None:
        super().__init__(limits, "mcp-connection")
        self._spec = spec
        self._limits = limits
        self._init_timeout_s = init_timeout_s

    @classmethod
    def open(cls, spec: ChildSpec, limits: ConnectionLimits, *, timeout_s: float) -> McpConnection:
        """Spawn and initialize within ``timeout_s``; on any failure nothing is left running."""
        connection = cls(spec, limits, timeout_s)
        connection._start(timeout_s, "server start")
        return connection

    def _guard(
        self, live: _Live, op: Callable[[ClientSession], Awaitable[_T]], timeout_s: float
    ) -> Coroutine[Any, Any, _T]:
        return _guarded(live, op, timeout_s)

    # -- the loop thread ----------------------------------------------------------------------

    async def _owner(self) -> None:
        process = await start_child(self._spec)
        self.pid = process.pid
        try:
            await self._serve(process)
        finally:
            with anyio.CancelScope(shield=True):
                await stop(process, self._spec, self._limits.close_grace_s)

    async def _serve(self, process: Process) -> None:
        assert process.stdin and process.stdout and process.stderr
        inbound_send, inbound_recv = anyio.create_memory_object_stream[SessionMessage | Exception](
            0
        )
        outbound_send, outbound_recv = anyio.create_memory_object_stream[SessionMessage](0)
        session = ClientSession(inbound_recv, outbound_send, client_info=CLIENT_INFO)
        live = _Live(process=process, session=session, stop=anyio.Event())
        loop = asyncio.get_running_loop()
        self._signal_stop = lambda: loop.call_soon_threadsafe(live.stop.set)
        async with anyio.create_task_group() as pumps:
            pumps.start_soon(drain_stderr, process.stderr, self.stderr)
            pumps.start_soon(
                _pump_stdout,
                process.stdout,
                inbound_send,
                live,
                self._limits,
                self.stderr,
            )
            pumps.start_soon(_pump_stdin, outbound_recv, process.stdin)
            async with session:
                await self._initialize(live)
                await live.stop.wait()
            pumps.cancel_scope.cancel()

    async def _initialize(self, live: _Live) -> None:
        async def op(session: ClientSession) -> types.InitializeResult:
            return await session.initialize()

        try:
            result = await _guarded(live, op, self._init_timeout_s)
        except McpClientError as exc:
            self._ready.set_exception(exc)
            live.stop.set()
            return
        self.server_name = result.server_info.name
        self.server_version = result.server_info.version
        self._ready.set_result((asyncio.get_running_loop(), live))


async def _guarded(
    live: _Live, op: Callable[[ClientSession], Awaitable[_T]], timeout_s: float
) -> _T:
    """Run one request under a deadline; on a state-unknown failure kill the tree first."""
    if live.fault is not None:
        raise McpClientError(live.fault.kind, str(live.fault))
    try:
        with anyio.fail_after(timeout_s):
            return await op(live.session)
    except TimeoutError:
        failure = McpClientError("timeout", f"no answer within {timeout_s:g} s")
        raise _fatal(live, failure) from None
    except MCPError as exc:
        if live.fault is not None or live.process.returncode is not None:
            raise _fatal(live, live.fault or _exited(live)) from None
        if exc.code == types.CONNECTION_CLOSED:
            raise _fatal(live, McpClientError("crashed", "connection closed")) from None
        raise McpClientError(
            "error_response", f"JSON-RPC error {exc.code}: {exc.message}"
        ) from None
    except (ValueError, RuntimeError) as exc:
        # The reply was framed JSON-RPC but not the expected result type (pydantic's
        # ValidationError is a ValueError; the SDK's output-schema check raises RuntimeError).
        raise McpClientError("malformed", f"malformed result: {_first_line(exc)}") from None


def _fatal(live: _Live, failure: McpClientError) -> McpClientError:
    live.fault = live.fault or failure
    kill_group(live.process.pid)
    return live.fault


def _exited(live: _Live) -> McpClientError:
    return McpClientError("crashed", f"server exited with status {live.process.returncode}")


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


async def _pump_stdout(
    stdout: ByteReceiveStream,
    inbound: MemoryObjectSendStream[SessionMessage | Exception],
    live: _Live,
    limits: ConnectionLimits,
    stderr: StderrTail,
) -> None:
    """Parse stdout lines into session messages; any framing fault is fatal for the child.

    The fault is recorded before ``inbound`` closes, because closing it wakes every pending
    request (with CONNECTION_CLOSED), and those requests classify themselves by the fault.
    """
    reader = LineReader(stdout, limits.max_message_bytes)
    try:
        while (line := await reader.next_line()) is not None:
            if not line.strip():
                continue
            if limits.skip_stdout_text and not line.lstrip().startswith(b"{"):
                stderr.append(b"stdout: " + line.rstrip(b"\r\n") + b"\n")
                continue
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            await inbound.send(SessionMessage(message))
        if live.fault is None and not live.stop.is_set():
            live.fault = McpClientError("crashed", "server closed stdout")
    except FramingError as exc:
        _fatal(live, McpClientError("oversized", str(exc)))
    except ValueError:  # ValidationError and UnicodeDecodeError are both ValueErrors
        _fatal(live, McpClientError("protocol", "server wrote a non-JSON-RPC line on stdout"))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        await inbound.aclose()


async def _pump_stdin(
    outbound: MemoryObjectReceiveStream[SessionMessage], stdin: ByteSendStream
) -> None:
    try:
        async with outbound:
            async for message in outbound:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await stdin.send((data + "\n").encode("utf-8"))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        return


def first_result_seconds(
    spec: ChildSpec,
    limits: ConnectionLimits,
    tool: str,
    arguments: JsonObject,
    *,
    timeout_s: float,
) -> tuple[float, types.CallToolResult]:
    """Wall seconds from spawning ``spec``'s server to the answer of its first ``tool`` call (what
    a cold trial pays), with that answer; the server is closed after the clock stops. The
    benchmark hooks of mcp-reference and qmd time their cold start with it."""
    started = time.perf_counter()
    connection = McpConnection.open(spec, limits, timeout_s=timeout_s)
    try:
        result = connection.call_tool(tool, arguments, timeout_s=timeout_s)
        return time.perf_counter() - started, result
    finally:
        connection.close()
