"""The generic MCP adapter: one implementation of the adapter protocol, driven by a profile,
over stdio (``client.py``) or streamable HTTP (``http_client.py``).

prepare
    Builds the product's native index under the prepared root (the profile's job), then starts
    the product once, checks the server name it reports and lists its tools: every mapped
    product tool must exist and declare every mapped input field, else ``tool_schema_mismatch``.
    The fingerprint of the mapped product tools is recorded in the preparation details.
attach
    Re-verifies the prepared identity and the native index fingerprint, starts a fresh process in
    a fresh isolated run root (``ROOT/runs/...``) and lists its tools again: a product whose tools
    drifted since preparation is refused (``tool_schema_mismatch``). Cold trials attach per pair,
    so every cold pair runs in its own process. Over HTTP an attach is a fresh MCP session (and a
    fresh process when the kit starts the server).
reset
    Sets the task scope. With ``readiness_probe`` it sends the profile's probe once and discards
    the result (the warm cohort's one discarded probe).
call
    Validates the call against the frozen contract, maps it (scope checks happen here, before any
    MCP traffic), calls the product under the call's deadline and parses the result.
close
    Stops the process group (grace, then SIGKILL) and removes the run root.

A failed call maps to the contract's codes:

=================================  ==========================  ===============
what happened                      code                        class
=================================  ==========================  ===============
no answer within the deadline      ``tool_timeout``            product_error
process exited / closed stdout     ``tool_call_failed``        product_error
non-JSON-RPC line on stdout        ``tool_call_failed``        product_error
JSON-RPC error response            ``tool_call_failed``        product_error
message over the byte cap          ``tool_result_too_large``   product_error
reply that is not a valid result   ``invalid_tool_result``     harness_error
document outside the task scope    ``task_scope_violation``    product_error
document not in the corpus         ``unknown_index_document``  product_error
=================================  ==========================  ===============

A timeout, a crash, garbage and an oversized message all kill the process group at once; the
call's failure then ends the trial undelivered, so nothing from it reaches the agent.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import mcp_types as types

from agentic.adapters.base import CallOutcome, PreparedIndex, ResetInfo, check_tool_call
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.mcp.client import (
    Connection,
    ConnectionLimits,
    FailureKind,
    McpClientError,
    McpConnection,
)
from agentic.adapters.mcp.process import ChildSpec
from agentic.adapters.mcp.profile import (
    CallScope,
    FanOut,
    McpProfile,
    NextPage,
    ParseInput,
    Plan,
    RawResource,
    RawResult,
)
from agentic.adapters.sandbox import Relay, SandboxError, isolation
from agentic.contract.canonical import fingerprint
from agentic.contract.code_names import ErrorCodeName
from agentic.contract.credentials import Secrets, clip_tail
from agentic.contract.receipt import Capabilities, FailureClass
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.tools import tool_definitions

RUNS_DIR = "runs"
PRODUCT_TOOLS_DETAIL = "productToolsFingerprint"
_STDERR_NOTE_CHARS = 400

_CALL_FAILURES: dict[FailureKind, tuple[ErrorCodeName, FailureClass]] = {
    "timeout": ("tool_timeout", "product_error"),
    "crashed": ("tool_call_failed", "product_error"),
    "protocol": ("tool_call_failed", "product_error"),
    "error_response": ("tool_call_failed", "product_error"),
    "closed": ("tool_call_failed", "product_error"),
    "spawn_failed": ("tool_call_failed", "product_error"),
    # Only the product writes what arrives over its stdout or HTTP replies: its fault.
    "oversized": ("tool_result_too_large", "product_error"),
    "malformed": ("invalid_tool_result", "harness_error"),
}

_Stage = Literal["adapter_preparation", "adapter_attach"]

# The code of a product that would not start, by stage and whether starting it timed out.
_START_FAILURES: dict[tuple[_Stage, bool], ErrorCodeName] = {
    ("adapter_preparation", False): "adapter_preparation_failed",
    ("adapter_preparation", True): "adapter_preparation_timeout",
    ("adapter_attach", False): "adapter_attach_failed",
    ("adapter_attach", True): "adapter_attach_timeout",
}


def call_failure(failure: McpClientError, stderr: str) -> AdapterCallError:
    code, failure_class = _CALL_FAILURES[failure.kind]
    return AdapterCallError(code, failure_class, _with_stderr(f"{failure.kind}: {failure}", stderr))


def _with_stderr(message: str, stderr: str) -> str:
    """``message`` and the end of ``stderr``, a scrubbed ``StderrTail.text``."""
    tail = clip_tail(stderr.strip(), _STDERR_NOTE_CHARS)
    return f"{message}; stderr: {tail}" if tail else message


def raw_result(result: types.CallToolResult, secrets: Secrets) -> RawResult:
    """The reply as the kit reads it, ``secrets`` scrubbed from everything in it: whatever is
    later quoted or cut from it (an excerpt in a message, a result) cannot hold part of one."""
    text = "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
    resources = tuple(
        RawResource(uri=secrets.scrub(str(b.resource.uri)), text=secrets.scrub(b.resource.text))
        for b in result.content
        if isinstance(b, types.EmbeddedResource)
        and isinstance(b.resource, types.TextResourceContents)
    )
    return RawResult(
        is_error=bool(result.is_error),
        structured=secrets.scrub_json(result.structured_content),
        text=secrets.scrub(text),
        resources=resources,
    )


def _relay(url: str, run_root: Path) -> Relay | None:
    """Under the sandbox a kit-started HTTP server gets its own network namespace; the harness
    reaches it through a Unix socket relayed to its port (``adapters/netrelay.py``)."""
    try:
        sandboxed = isolation() == "bubblewrap"
    except SandboxError as exc:
        raise McpClientError("spawn_failed", str(exc)) from None
    if not sandboxed:
        return None
    port = urlsplit(url).port
    if port is None:
        raise McpClientError("spawn_failed", f"{url} names no port for the sandboxed server")
    door = _door(run_root)
    door.mkdir(mode=0o700)
    return Relay(socket=door / "http.sock", port=port)


def _door(run_root: Path) -> Path:
    """The folder of a sandboxed server's Unix socket, private to the harness (never bound into
    the sandbox: the relay gets the socket itself). A socket's path is limited to 107 bytes,
    which a run root under a deep TMPDIR exceeds, so it lives under ``/tmp``, named after its
    run root, and goes with it (``_remove_run_root``)."""
    base = Path("/tmp") if os.access("/tmp", os.W_OK) else Path(tempfile.gettempdir())
    digest = hashlib.sha256(str(run_root).encode()).hexdigest()[:16]
    return base / f"agentic-door-{digest}"


@contextmanager
def secrets_removed(secrets: Secrets) -> Iterator[None]:
    """An adapter error leaves without the product's secrets (a server's stderr that echoes its
    token, say): its message is scrubbed in place, its code and class kept."""
    try:
        yield
    except AdapterError as exc:
        if secrets:
            exc.args = (secrets.scrub(str(exc)),)
        raise


def _mismatch(message: str) -> AdapterError:
    return AdapterError("tool_schema_mismatch", "harness_error", message)


def product_tools_fingerprint(profile: McpProfile, tools: list[types.Tool]) -> str:
    """Check every mapped product tool and field; fingerprint the mapped tools' input schemas."""
    by_name = {tool.name: tool for tool in tools}
    for binding in profile.bindings:
        tool = by_name.get(binding.product)
        if tool is None:
            raise _mismatch(f"the product lists no tool {binding.product!r}")
        schema = tool.input_schema
        properties = schema.get("properties")
        if schema.get("type") != "object" or not isinstance(properties, dict):
            raise _mismatch(f"{binding.product} has no object input schema")
        missing = [name for name in binding.required_fields if name not in properties]
        if missing:
            raise _mismatch(f"{binding.product} lacks mapped field(s) {', '.join(missing)}")
    mapped = sorted({binding.product for binding in profile.bindings})
    return fingerprint([{"name": n, "inputSchema": by_name[n].input_schema} for n in mapped])


class McpAdapter:
    """An adapter over a real stdio MCP product, described by ``profile``."""

    def __init__(self, profile: McpProfile, snapshot: CorpusSnapshot) -> None:
        self.adapter_id = profile.adapter_id
        self._profile = profile
        self._snapshot = snapshot

    @property
    def capabilities(self) -> Capabilities:
        return self._profile.capabilities

    @property
    def config(self) -> JsonObject:
        return self._profile.config

    def prepare(self, snapshot: CorpusSnapshot, root: Path, *, timeout_s: float) -> PreparedIndex:
        if snapshot.fingerprint != self._snapshot.fingerprint:
            raise AdapterError(
                "corpus_fingerprint_mismatch", "harness_error", "prepare got another snapshot"
            )
        started = time.perf_counter()
        root.mkdir(parents=True, exist_ok=True)
        with secrets_removed(self._profile.secrets):
            native = self._profile.prepare_native(snapshot, root, timeout_s)
            # A product's own start-up budget, where it declares one, starts after its index
            # is built (which its own prepare budget bounds); else what the run's is left.
            remaining = self._profile.startup_timeout_s or max(
                timeout_s - (time.perf_counter() - started), 0.001
            )
            connection, run_root = self._start(root, remaining, "adapter_preparation")
            try:
                tools = self._list_product_tools(
                    connection, remaining, "adapter_preparation_failed"
                )
            finally:
                connection.close()
                _remove_run_root(run_root)
        details: dict[str, str | int | float | bool | None] = dict(native.details)
        details[PRODUCT_TOOLS_DETAIL] = product_tools_fingerprint(self._profile, tools)
        details["serverVersion"] = connection.server_version
        if self._profile.server_name is None:
            details["serverName"] = connection.server_name
        return PreparedIndex(
            adapter_id=self.adapter_id,
            root=root,
            corpus_fingerprint=snapshot.fingerprint,
            index_fingerprint=native.index_fingerprint,
            config_fingerprint=fingerprint(self.config),
            preparation_ms=(time.perf_counter() - started) * 1000.0,
            details=details,
        )

    def attach(self, prepared: PreparedIndex, *, timeout_s: float) -> McpSession:
        with secrets_removed(self._profile.secrets):
            return self._attach(prepared, timeout_s)

    def _attach(self, prepared: PreparedIndex, timeout_s: float) -> McpSession:
        self._check_prepared(prepared)
        connection, run_root = self._start(prepared.root, timeout_s, "adapter_attach")
        try:
            tools = self._list_product_tools(connection, timeout_s, "adapter_attach_failed")
            if product_tools_fingerprint(self._profile, tools) != prepared.details.get(
                PRODUCT_TOOLS_DETAIL
            ):
                raise _mismatch("the product's tools changed since preparation")
            ready_ms = self._wait_ready(connection, prepared.root, timeout_s)
        except BaseException:
            connection.close()
            _remove_run_root(run_root)
            raise
        schemas = {tool.name: tool.input_schema for tool in tools}
        session = McpSession(
            self._profile,
            self._snapshot,
            connection,
            run_root,
            schemas,
            prepared_root=prepared.root,
        )
        session.add_startup_ms(ready_ms)
        return session

    def _wait_ready(self, connection: Connection, root: Path, timeout_s: float) -> float:
        """Milliseconds until a server that indexes in the background answers for real
        (``ReadyWait``); bounded by its start-up budget."""
        wait = self._profile.wait_ready
        if wait is None:
            return 0.0
        budget = self._profile.startup_timeout_s or timeout_s
        started = time.perf_counter()
        deadline = started + budget
        while True:
            left = max(deadline - time.perf_counter(), 0.001)
            try:
                raw = raw_result(
                    connection.call_tool(wait.product_tool, wait.arguments(root), timeout_s=left),
                    self._profile.secrets,
                )
            except McpClientError as exc:
                code = _START_FAILURES["adapter_attach", exc.kind == "timeout"]
                message = f"waiting until ready: {exc.kind}: {exc}"
                raise AdapterError(code, "harness_error", message) from exc
            if not wait.not_ready(raw):
                return (time.perf_counter() - started) * 1000.0
            if time.perf_counter() + wait.interval_s > deadline:
                raise AdapterError(
                    "adapter_attach_timeout",
                    "harness_error",
                    f"the server still said it was not ready after {budget:g} s "
                    f"(startup_timeout_s): {raw.text[:200]}",
                )
            time.sleep(wait.interval_s)

    def _check_prepared(self, prepared: PreparedIndex) -> None:
        if prepared.adapter_id != self.adapter_id:
            raise AdapterError(
                "adapter_identity_mismatch", "harness_error", f"prepared by {prepared.adapter_id}"
            )
        if prepared.corpus_fingerprint != self._snapshot.fingerprint:
            raise AdapterError(
                "corpus_fingerprint_mismatch", "harness_error", "index of another corpus"
            )
        if prepared.config_fingerprint != fingerprint(self.config):
            raise AdapterError(
                "invalid_adapter_preparation", "harness_error", "config fingerprint differs"
            )
        verify = self._profile.verify_native
        if verify is None:
            return
        try:
            current = verify(prepared.root)
        except (OSError, ValueError) as exc:
            raise AdapterError("adapter_attach_failed", "harness_error", str(exc)) from exc
        if current != prepared.index_fingerprint:
            raise AdapterError("index_fingerprint_changed", "harness_error", "index was rebuilt")

    def _start(self, root: Path, timeout_s: float, stage: _Stage) -> tuple[Connection, Path]:
        """Start the product in a fresh run root; ``stage`` names the failure codes."""
        runs = root / RUNS_DIR
        runs.mkdir(parents=True, exist_ok=True)
        run_root = Path(tempfile.mkdtemp(prefix="run-", dir=runs))
        profile = self._profile
        # A product's own start-up budget (spawn to initialized), where it declares one.
        timeout_s = profile.startup_timeout_s or timeout_s
        try:
            connection = self._connect(root, run_root, timeout_s)
        except McpClientError as exc:
            _remove_run_root(run_root)
            code = _START_FAILURES[stage, exc.kind == "timeout"]
            raise AdapterError(code, "harness_error", f"{exc.kind}: {exc}") from exc
        if profile.server_name is not None and connection.server_name != profile.server_name:
            connection.close()
            _remove_run_root(run_root)
            raise AdapterError(
                "adapter_identity_mismatch",
                "harness_error",
                f"server reports {connection.server_name!r}, expected {profile.server_name!r}",
            )
        return connection, run_root

    def _connect(self, root: Path, run_root: Path, timeout_s: float) -> Connection:
        profile = self._profile
        argv, env = profile.command(root), profile.environment(root, run_root)
        view = profile.view(root, run_root)
        limits = ConnectionLimits(
            max_message_bytes=profile.max_message_bytes,
            close_grace_s=profile.close_grace_s,
            skip_stdout_text=profile.skip_stdout_text,
            secrets=profile.secrets,
        )
        if profile.http is None:
            spec = ChildSpec(argv, env, run_root, view)
            return McpConnection.open(spec, limits, timeout_s=timeout_s)
        from agentic.adapters.mcp.http_client import HttpConnection, free_port

        port = free_port() if profile.http.needs_port else None
        if port is not None:
            argv = tuple(part.replace("{port}", str(port)) for part in argv)
        url = profile.http.resolve(port)
        if not profile.http.starts_server:
            return HttpConnection.open(url, None, limits, timeout_s=timeout_s)
        relay = _relay(url, run_root)
        server = ChildSpec(argv, env, run_root, replace(view, relay=relay))
        door = relay.socket if relay is not None else None
        return HttpConnection.open(url, server, limits, timeout_s=timeout_s, unix_socket=door)

    @staticmethod
    def _list_product_tools(
        connection: Connection, timeout_s: float, code: ErrorCodeName
    ) -> list[types.Tool]:
        try:
            return connection.list_tools(timeout_s=timeout_s)
        except McpClientError as exc:
            message = _with_stderr(f"listing tools: {exc.kind}: {exc}", connection.stderr.text())
            raise AdapterError(code, "harness_error", message) from exc


def _remove_run_root(run_root: Path) -> None:
    # The shared ``runs`` folder stays: removing it when it looked empty raced with a session
    # starting beside this one (its mkdtemp found no parent). It goes with the prepared root.
    shutil.rmtree(run_root, ignore_errors=True)
    shutil.rmtree(_door(run_root), ignore_errors=True)


def _pages(
    call: Callable[[JsonObject], RawResult],
    next_page: NextPage | None,
    arguments: JsonObject,
    scope: CallScope,
    first: JsonObject,
) -> list[RawResult]:
    """One planned call's replies: its first page, then each next one ``next_page`` asks for."""
    pages = [call(first)]
    following = None if next_page is None else next_page(arguments, scope, first, pages)
    while following is not None and next_page is not None:
        pages.append(call(following))
        following = next_page(arguments, scope, first, pages)
    return pages


class McpSession:
    """One attached product process serving one task at a time."""

    def __init__(
        self,
        profile: McpProfile,
        snapshot: CorpusSnapshot,
        connection: Connection,
        run_root: Path,
        product_schemas: dict[str, JsonObject] | None = None,
        *,
        prepared_root: Path | None = None,
    ) -> None:
        self._profile = profile
        self._prepared_root = prepared_root
        self._snapshot = snapshot
        self._product_schemas = product_schemas or {}
        self._connection = connection
        self._run_root = run_root
        self._pending_startup_ms: float | None = connection.startup_ms
        self._scope: CallScope | None = None
        self._closed = False
        self._last_replies: tuple[RawResult, ...] = ()

    @property
    def pid(self) -> int | None:
        """The product process id (also its process-group id)."""
        return self._connection.pid

    def stderr_text(self) -> str:
        return self._profile.secrets.scrub(self._connection.stderr.text())

    def add_startup_ms(self, milliseconds: float) -> None:
        """Time the start cost beyond the handshake (waiting until the server was ready)."""
        if self._pending_startup_ms is not None:
            self._pending_startup_ms += milliseconds

    def list_tools(self) -> list[JsonObject]:
        return tool_definitions()

    @property
    def last_replies(self) -> tuple[RawResult, ...]:
        """The product's replies (secrets scrubbed) to the last call that reached it, as the
        parser read them: what ``catalog --check`` quotes when a mapping read nothing of them.
        Empty before any such call, or after a call the kit answered itself."""
        return self._last_replies

    def reset(self, task: AgentTask, *, readiness_probe: bool, timeout_s: float) -> ResetInfo:
        with secrets_removed(self._profile.secrets):
            return self._reset(task, readiness_probe, timeout_s)

    def _reset(self, task: AgentTask, readiness_probe: bool, timeout_s: float) -> ResetInfo:
        self._require_open()
        self._scope = CallScope(
            task=task,
            snapshot=self._snapshot,
            product_schemas=self._product_schemas,
            prepared_root=self._prepared_root,
        )
        if readiness_probe:
            self._probe(self._scope, timeout_s)
        startup, self._pending_startup_ms = self._pending_startup_ms, None
        return ResetInfo(startup_ms=startup, model_load_ms=None)

    def _probe(self, scope: CallScope, timeout_s: float) -> None:
        probe = self._profile.readiness
        timeout_s = self._profile.startup_timeout_s or timeout_s
        try:
            result = self._connection.call_tool(
                probe.product_tool, probe.arguments(scope), timeout_s=timeout_s
            )
        except McpClientError as exc:
            raise AdapterError(
                "readiness_probe_failed", "harness_error", f"{exc.kind}: {exc}"
            ) from exc
        probe.check(raw_result(result, self._profile.secrets))

    def call(self, tool_name: str, arguments: JsonObject, *, timeout_s: float) -> CallOutcome:
        with secrets_removed(self._profile.secrets):
            outcome = self._call(tool_name, arguments, timeout_s)
        if not self._profile.secrets:
            return outcome
        scrub = self._profile.secrets.scrub
        return replace(outcome, diagnostics=tuple(scrub(note) for note in outcome.diagnostics))

    def _call(self, tool_name: str, arguments: JsonObject, timeout_s: float) -> CallOutcome:
        self._require_open()
        self._last_replies = ()
        check_tool_call(tool_name, arguments)
        scope = self._scope
        if scope is None:
            raise AdapterCallError("adapter_not_reset", "product_error", "call before reset")
        kit_tool = self._profile.kit_tools.get(tool_name)
        if kit_tool is not None:
            return kit_tool(arguments, scope)
        binding = self._profile.binding(tool_name)
        if binding is None:
            raise AdapterCallError("disallowed_tool", "agent_error", f"{tool_name} is not mapped")
        product_arguments = binding.map_arguments(arguments, scope)
        fan_out = binding.fan_out
        plan = fan_out.split(arguments, scope) if fan_out is not None else None
        parts: tuple[RawResult, ...] = ()
        ranked: tuple[tuple[RawResult, ...], ...] = ()
        if fan_out is None or plan is None:
            raw = self._product_call(binding.product, product_arguments, timeout_s)
        else:
            ranked = self._planned(
                binding.product, fan_out, arguments, scope, plan, timeout_s=timeout_s
            )
            parts = tuple(reply for ranking in ranked for reply in ranking)
            merge = fan_out.merge
            raw = merge(parts) if merge is not None else parts[0]
            parts, ranked = ((), ()) if merge is not None else (parts, ranked)
        self._last_replies = parts or (raw,)
        parse_input = ParseInput(
            tool=tool_name,
            arguments=arguments,
            product_arguments=product_arguments,
            scope=scope,
            raw=raw,
            parts=parts,
            ranked=ranked,
        )
        return self._profile.parse(parse_input)

    def _planned(
        self,
        product: str,
        fan_out: FanOut,
        arguments: JsonObject,
        scope: CallScope,
        plan: Plan,
        *,
        timeout_s: float,
    ) -> tuple[tuple[RawResult, ...], ...]:
        """Every planned call's replies, by ranking, each call followed by its further pages."""
        # One deadline for the whole contract call, however many product calls it takes.
        deadline = time.monotonic() + timeout_s

        def call(product_arguments: JsonObject) -> RawResult:
            remaining = max(deadline - time.monotonic(), 0.001)
            return self._product_call(product, product_arguments, remaining)

        return tuple(
            tuple(
                reply
                for first in ranking
                for reply in _pages(call, fan_out.next_page, arguments, scope, first)
            )
            for ranking in plan
        )

    def _product_call(self, tool: str, arguments: JsonObject, timeout_s: float) -> RawResult:
        try:
            result = self._connection.call_tool(tool, arguments, timeout_s=timeout_s)
        except McpClientError as exc:
            raise call_failure(exc, self._connection.stderr.text()) from exc
        return raw_result(result, self._profile.secrets)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._connection.close()
        _remove_run_root(self._run_root)

    def _require_open(self) -> None:
        if self._closed:
            raise AdapterCallError("tool_call_failed", "product_error", "session is closed")
