"""Stand-ins for agents and adapters: scripted agents and adapter sessions for runner tests,
and, for cohort tests, an agent whose sessions make one search then abstain
(``tests.support.scripted``) and a recording adapter around an McpAdapter."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic.adapters.base import CallOutcome, PreparedIndex, ResetInfo
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp.adapter import McpAdapter, McpSession
from agentic.agents.base import AgentSession
from agentic.contract.canonical import canonical_text, sha256_hex
from agentic.contract.code_names import ErrorCodeName
from agentic.contract.json_access import object_at
from agentic.contract.receipt import Capabilities, ToolEvidence, ToolResult
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.runner.bounded import BoundedExecutor
from agentic.runner.trial import TrialBounds, TrialOutcome, run_trial
from agentic.tools import tool_definitions
from tests.support.scripted import OneCallThenAbstain, UncountedSession

TASK_JSON: JsonObject = {
    "schemaVersion": "1.0",
    "taskId": "t0000001",
    "category": "exact_identifier",
    "brief": {"goal": "Find the part number.", "instructions": ["Cite the line."]},
    "claims": [
        {"claimKey": "partNumber", "valueType": "identifier", "substantive": True, "required": True}
    ],
    "allowedTools": ["search", "get", "multi_get"],
    "budgets": {"maxAgentCalls": 3, "maxModelVisibleBytes": 4000},
    "corpus": {"collections": ["c001"]},
}


def make_task(**budgets: int) -> AgentTask:
    data = {**TASK_JSON, "budgets": {**object_at(TASK_JSON, "budgets"), **budgets}}
    return AgentTask.model_validate(data)


# Every tool of the contract listed by the adapter: the task's allowed tools alone decide.
LISTED_TOOLS = frozenset({"search", "get", "multi_get"})


def run_scripted(agent: Any, adapter: Any, timeout_s: float = 5.0, **budgets: int) -> TrialOutcome:
    """One trial of ``agent`` against ``adapter`` on ``make_task(**budgets)``, every tool listed."""
    executor = BoundedExecutor()
    try:
        bounds = TrialBounds(timeout_s, LISTED_TOOLS, executor)
        return run_trial(agent, adapter, make_task(**budgets), bounds)
    finally:
        executor.close()


LINE = "Part: AX-100"


def evidence() -> ToolEvidence:
    source = "# Parts\n\nPart: AX-100\n"
    return ToolEvidence(
        uri="gno://c001/d1.md",
        sourceHash=sha256_hex(source),
        startLine=3,
        endLine=3,
        spanHash=sha256_hex(LINE),
        sourceHashProvenance="harness_observed",
        spanHashProvenance="harness_observed",
        text=LINE,
        backendSourceHash=None,
        backendSpanHash=None,
        backendHashUnavailableReason="fake",
    )


def ok_result(content: str = LINE) -> ToolResult:
    return ToolResult(
        status="ok", resultRole="source", content=content, evidence=(evidence(),), errorCode=None
    )


def tool_step(name: str = "search", **arguments: Any) -> str:
    return canonical_text(
        {"kind": "tool", "toolName": name, "arguments": arguments or {"query": "part"}}
    )


def final_step() -> str:
    e = evidence()
    citation = {
        k: v
        for k, v in e.to_json().items()
        if k not in {"text", "backendSourceHash", "backendSpanHash", "backendHashUnavailableReason"}
    }
    envelope = {
        "schemaVersion": "1.0",
        "claims": [
            {
                "claimKey": "partNumber",
                "value": {"type": "identifier", "value": "AX-100"},
                "citations": [citation],
            }
        ],
        "gaps": [],
        "abstained": False,
        "stopReason": "complete",
    }
    return canonical_text({"kind": "final", "envelope": envelope})


@dataclass
class ScriptedAgent(UncountedSession):
    """Returns the scripted outputs in order; records the histories it saw."""

    outputs: list[str]
    seen: list[tuple[VisibleCall, ...]] = field(default_factory=list)
    delay_s: float = 0.0

    def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
        self.seen.append(calls)
        if self.delay_s:
            time.sleep(self.delay_s)
        return self.outputs[len(self.seen) - 1]


@dataclass
class ScriptedAdapter:
    """An adapter session whose call behaviour is one function."""

    behaviour: Callable[[str, JsonObject], CallOutcome]
    calls: list[str] = field(default_factory=list)
    closed: bool = False

    def list_tools(self) -> list[JsonObject]:
        return tool_definitions()

    def reset(self, task: AgentTask, *, readiness_probe: bool, timeout_s: float) -> ResetInfo:
        return ResetInfo()

    def call(self, tool_name: str, arguments: JsonObject, *, timeout_s: float) -> CallOutcome:
        self.calls.append(tool_name)
        return self.behaviour(tool_name, arguments)

    def close(self) -> None:
        self.closed = True


def always_ok(tool_name: str, arguments: JsonObject) -> CallOutcome:
    return CallOutcome(result=ok_result(), backend_invocations=1)


def raising(code: ErrorCodeName, failure_class: Any) -> Callable[[str, JsonObject], CallOutcome]:
    def behaviour(tool_name: str, arguments: JsonObject) -> CallOutcome:
        raise AdapterCallError(code, failure_class, "scripted failure")

    return behaviour


@dataclass
class SearchThenAbstain:
    agent_id: str = "search-then-abstain"
    sessions: list[OneCallThenAbstain] = field(default_factory=list)

    def model_fingerprint(self) -> str:
        return sha256_hex(self.agent_id)

    def prompt_fingerprint(self, task: AgentTask) -> str:
        return sha256_hex(task.taskId)

    def open(
        self, task: AgentTask, tools: list[JsonObject], *, seed: int | None = None
    ) -> AgentSession:
        session = OneCallThenAbstain(task)
        self.sessions.append(session)
        return session


class RecordingAdapter:
    """Delegates to an McpAdapter and keeps every session it attached."""

    def __init__(self, inner: McpAdapter) -> None:
        self._inner = inner
        self.adapter_id = inner.adapter_id
        self.sessions: list[McpSession] = []

    @property
    def capabilities(self) -> Capabilities:
        return self._inner.capabilities

    @property
    def config(self) -> JsonObject:
        return self._inner.config

    def prepare(self, snapshot: CorpusSnapshot, root: Path, *, timeout_s: float) -> PreparedIndex:
        return self._inner.prepare(snapshot, root, timeout_s=timeout_s)

    def attach(self, prepared: PreparedIndex, *, timeout_s: float) -> McpSession:
        session = self._inner.attach(prepared, timeout_s=timeout_s)
        self.sessions.append(session)
        return session
