"""A scripted agent session for adapter and cohort tests: one tool call, then abstain."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentic.agents.base import TokenCount
from agentic.contract.canonical import canonical_text
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask


def abstain_step(task: AgentTask) -> str:
    """The final step that gives up: every required claim is a missing-evidence gap."""
    gaps = [
        {"claimKey": claim.claimKey, "reason": "missing_evidence"}
        for claim in task.claims
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


class UncountedSession:
    """The AgentSession methods a scripted agent has nothing to say to: no tokenizer, no model."""

    def count_tokens(self, text: str) -> TokenCount | None:
        return None

    def model_load_ms(self) -> float | None:
        return None

    def close(self) -> None:
        return None


@dataclass
class OneCallThenAbstain(UncountedSession):
    """Makes one tool call (by default a search for the goal's first word), then abstains;
    keeps every history it was shown."""

    task: AgentTask
    tool_name: str = "search"
    arguments: JsonObject | None = None
    seen: list[tuple[VisibleCall, ...]] = field(default_factory=list)

    def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
        self.seen.append(calls)
        if calls:
            return abstain_step(self.task)
        arguments = self.arguments
        if arguments is None:
            arguments = {"query": self.task.brief.goal.split()[0]}
        return canonical_text({"kind": "tool", "toolName": self.tool_name, "arguments": arguments})
