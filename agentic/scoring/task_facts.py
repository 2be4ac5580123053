"""What a reader of report.html is shown about each task beyond its receipts: its category and
the oracle's evidence lines (required, optional, forbidden), so a pair's cited lines can be read
against the lines the scorer wanted. Built from the fixture by the commands that have one; the
report stage receives these plain facts and never imports the fixture or an oracle itself.

Nothing here reaches an agent: report.html is written after every pair has run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agentic.contract.envelope import Evidence
from agentic.fixture.loader import Fixture

SpanKind = Literal["required", "optional", "forbidden"]


@dataclass(frozen=True)
class OracleSpan:
    claim_key: str
    kind: SpanKind
    uri: str
    start_line: int
    end_line: int

    def overlaps(self, uri: str, start_line: int, end_line: int) -> bool:
        return uri == self.uri and start_line <= self.end_line and self.start_line <= end_line

    def equals(self, uri: str, start_line: int, end_line: int) -> bool:
        return (uri, start_line, end_line) == (self.uri, self.start_line, self.end_line)


@dataclass(frozen=True)
class TaskFacts:
    category: str
    spans: tuple[OracleSpan, ...]


def _spans(claim_key: str, kind: SpanKind, evidence: tuple[Evidence, ...]) -> list[OracleSpan]:
    return [OracleSpan(claim_key, kind, e.uri, e.startLine, e.endLine) for e in evidence]


def task_facts(fixture: Fixture) -> dict[str, TaskFacts]:
    """Every task's category and oracle spans, in the oracle's claim order."""
    facts: dict[str, TaskFacts] = {}
    for task in fixture.tasks:
        spans: list[OracleSpan] = []
        for claim in fixture.oracle(task.taskId).claims:
            spans += _spans(claim.claimKey, "required", claim.requiredEvidence)
            spans += _spans(claim.claimKey, "optional", claim.optionalEvidence)
            spans += _spans(claim.claimKey, "forbidden", claim.forbiddenEvidence)
        facts[task.taskId] = TaskFacts(category=task.category, spans=tuple(spans))
    return facts
