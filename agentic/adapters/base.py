"""The adapter protocol every backend implements.

Lifecycle of an adapter, as the runner drives it:

1. ``prepare(snapshot, root, timeout_s)`` once, unmeasured: build the native index from the
   frozen corpus snapshot, writing only under ``root`` (a fresh temporary folder). The result's
   index fingerprint is bound to the corpus fingerprint.
2. ``attach(prepared)`` -> a session. Cold trials attach a fresh session per pair; the warm cohort
   attaches once and issues exactly one discarded readiness probe.
3. ``session.reset(task, readiness_probe)`` sets one task's visibility scope (its collections).
4. ``session.call(tool, arguments, timeout_s)`` answers one tool call within its deadline, or
   raises AdapterCallError with a stable product/harness code.
5. ``session.close()`` releases everything (processes included); it never raises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agentic.contract.receipt import Capabilities, ToolResult
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot


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


class AdapterSession(Protocol):
    def list_tools(self) -> list[dict[str, Any]]:
        """The tool definitions this session exposes, in the frozen contract's form."""
        ...

    def reset(self, task: AgentTask, *, readiness_probe: bool, timeout_s: float) -> ResetInfo: ...

    def call(
        self, tool_name: str, arguments: dict[str, Any], *, timeout_s: float
    ) -> CallOutcome: ...

    def close(self) -> None: ...


class Adapter(Protocol):
    adapter_id: str

    @property
    def capabilities(self) -> Capabilities: ...

    @property
    def config(self) -> dict[str, Any]:
        """The adapter's configuration object; its fingerprint is the receipt's config fp."""
        ...

    def prepare(
        self, snapshot: CorpusSnapshot, root: Path, *, timeout_s: float
    ) -> PreparedIndex: ...

    def attach(self, prepared: PreparedIndex, *, timeout_s: float) -> AdapterSession: ...
