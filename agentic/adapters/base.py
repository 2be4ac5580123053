"""The adapter protocol every backend implements.

Lifecycle of an adapter, as the runner drives it:

1. ``prepare(snapshot, root, timeout_s)`` once, unmeasured: build the native index from the
   frozen corpus snapshot, writing only under ``root`` (a fresh temporary folder). The result's
   index fingerprint is bound to the corpus fingerprint. ``timeout_s`` is the preparation
   deadline (``PREPARE_TIMEOUT_S`` unless ``--prepare-timeout-ms`` says otherwise), never the
   per-operation timeout of the calls.
2. ``attach(prepared)`` -> a session. Cold trials attach a fresh session per pair; the warm cohort
   attaches once and issues exactly one discarded readiness probe.
3. ``session.reset(task, readiness_probe)`` sets one task's visibility scope (its collections).
4. ``session.call(tool, arguments, timeout_s)`` answers one tool call within its deadline, or
   raises AdapterCallError with a stable product/harness code.
5. ``session.close()`` releases everything (processes included); it never raises.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from agentic.adapters.errors import AdapterCallError
from agentic.contract.receipt import Capabilities, CapabilityState, ToolEvidence, ToolResult
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.tools import TOOL_NAMES, argument_errors


@dataclass(frozen=True)
class PreparedIndex:
    """What preparation produced. Cold and warm cohorts both attach to this same index."""

    adapter_id: str
    root: Path
    corpus_fingerprint: str
    index_fingerprint: str
    config_fingerprint: str
    preparation_ms: float
    details: dict[str, str | int | float | bool | None] = field(default_factory=dict)


@dataclass(frozen=True)
class ResetInfo:
    """Timings of a reset, in ms; None where the adapter cannot measure them."""

    startup_ms: float | None = None
    model_load_ms: float | None = None


@dataclass(frozen=True)
class CallOutcome:
    result: ToolResult
    backend_invocations: int
    diagnostics: tuple[str, ...] = ()


def ok_outcome(
    role: Literal["candidates", "source"],
    content: str,
    evidence: Iterable[ToolEvidence],
    invocations: int,
    notes: Iterable[str] = (),
) -> CallOutcome:
    """A call the backend answered: the ``ok`` tool result the agent receives."""
    result = ToolResult(
        status="ok", resultRole=role, content=content, evidence=tuple(evidence), errorCode=None
    )
    return CallOutcome(result=result, backend_invocations=invocations, diagnostics=tuple(notes))


class AdapterSession(Protocol):
    def list_tools(self) -> list[JsonObject]:
        """The tool definitions this session exposes, in the frozen contract's form."""
        ...

    def reset(self, task: AgentTask, *, readiness_probe: bool, timeout_s: float) -> ResetInfo: ...

    def call(self, tool_name: str, arguments: JsonObject, *, timeout_s: float) -> CallOutcome: ...

    def close(self) -> None: ...


class Adapter(Protocol):
    adapter_id: str

    @property
    def capabilities(self) -> Capabilities: ...

    @property
    def config(self) -> JsonObject:
        """The adapter's configuration object; its fingerprint is the receipt's config fp."""
        ...

    def prepare(
        self, snapshot: CorpusSnapshot, root: Path, *, timeout_s: float
    ) -> PreparedIndex: ...

    def attach(self, prepared: PreparedIndex, *, timeout_s: float) -> AdapterSession: ...


def declared_capabilities(
    *,
    invocation_accounting: bool,
    backend_hashes: CapabilityState,
    tools: Iterable[str] = TOOL_NAMES,
) -> Capabilities:
    """What an adapter can show, where adapters differ: whether it counts backend invocations,
    whether its backend hashes spans, and which frozen tools it supports. Everything else is
    the same for every adapter here: startup and tool timings are measured, model load and
    tokens are not, spans are exact, and both lifecycles run."""
    supported = set(tools)
    return Capabilities.model_validate(
        {
            "backendInvocationAccounting": invocation_accounting,
            "startupTiming": True,
            "modelLoadTiming": False,
            "toolTiming": True,
            "tools": {
                tool: "supported" if tool in supported else "unsupported" for tool in TOOL_NAMES
            },
            "exactLineSpans": "supported",
            "measuredTokens": "unavailable",
            "backendHashes": backend_hashes,
            "lifecycle": {"cold": "supported", "warm": "supported"},
        }
    )


def check_tool_call(tool_name: str, arguments: JsonObject) -> None:
    """The frozen contract's guard before any adapter answers a call: a known tool, with
    arguments its schema accepts. Both failures are the agent's."""
    if tool_name not in TOOL_NAMES:
        raise AdapterCallError("disallowed_tool", "agent_error", f"unknown tool {tool_name!r}")
    errors = argument_errors(tool_name, arguments)
    if errors:
        raise AdapterCallError("invalid_agent_action", "agent_error", "; ".join(errors))
