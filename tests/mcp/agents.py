"""A scripted agent (``tests.support.scripted``) and a recording adapter for cohort tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic.adapters.base import PreparedIndex
from agentic.adapters.mcp.adapter import McpAdapter, McpSession
from agentic.agents.base import AgentSession
from agentic.contract.canonical import sha256_hex
from agentic.contract.receipt import Capabilities
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot
from tests.support.scripted import OneCallThenAbstain


@dataclass
class SearchThenAbstain:
    agent_id: str = "search-then-abstain"
    sessions: list[OneCallThenAbstain] = field(default_factory=list)

    def model_fingerprint(self) -> str:
        return sha256_hex(self.agent_id)

    def prompt_fingerprint(self, task: AgentTask) -> str:
        return sha256_hex(task.taskId)

    def open(
        self, task: AgentTask, tools: list[dict[str, Any]], *, seed: int | None = None
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
    def config(self) -> dict[str, Any]:
        return self._inner.config

    def prepare(self, snapshot: CorpusSnapshot, root: Path, *, timeout_s: float) -> PreparedIndex:
        return self._inner.prepare(snapshot, root, timeout_s=timeout_s)

    def attach(self, prepared: PreparedIndex, *, timeout_s: float) -> McpSession:
        session = self._inner.attach(prepared, timeout_s=timeout_s)
        self.sessions.append(session)
        return session
