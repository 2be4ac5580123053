"""A scripted agent and a recording adapter wrapper for cohort tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic.adapters.base import PreparedIndex
from agentic.adapters.mcp.adapter import McpAdapter, McpSession
from agentic.agents.base import AgentSession, TokenCount
from agentic.contract.canonical import canonical_text, sha256_hex
from agentic.contract.receipt import Capabilities
from agentic.contract.steps import VisibleCall
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot


@dataclass
class SearchThenAbstainSession:
    """Searches once with the goal's first word, then abstains; records what it was shown."""

    task: AgentTask
    seen: list[tuple[VisibleCall, ...]] = field(default_factory=list)

    def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
        self.seen.append(calls)
        if not calls:
            query = self.task.brief.goal.split()[0]
            return canonical_text(
                {"kind": "tool", "toolName": "search", "arguments": {"query": query}}
            )
        gaps = [
            {"claimKey": claim.claimKey, "reason": "missing_evidence"}
            for claim in self.task.claims
            if claim.required
        ]
        envelope = {
            "schemaVersion": "1.0",
            "claims": [],
            "gaps": gaps,
            "abstained": True,
            "stopReason": "abstained",
        }
        return canonical_text({"kind": "final", "envelope": envelope})

    def count_tokens(self, text: str) -> TokenCount | None:
        return None

    def model_load_ms(self) -> float | None:
        return None

    def close(self) -> None:
        return None


@dataclass
class SearchThenAbstain:
    agent_id: str = "search-then-abstain"
    sessions: list[SearchThenAbstainSession] = field(default_factory=list)

    def model_fingerprint(self) -> str:
        return sha256_hex(self.agent_id)

    def prompt_fingerprint(self, task: AgentTask) -> str:
        return sha256_hex(task.taskId)

    def open(self, task: AgentTask, tools: list[dict[str, Any]], *, seed: int = 0) -> AgentSession:
        session = SearchThenAbstainSession(task)
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
