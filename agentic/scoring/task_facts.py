"""The facts a report shows about each task beyond its receipts: category and oracle lines.
The oracle's evidence lines (required, optional, forbidden) let a reader hold a pair's cited
lines against the lines the scorer wanted. Attribution (``scoring/attribution.py``) needs two
more facts: whether the oracle expects an abstention, and, per claim the task marks required,
the exact keys of its required evidence. The commands that have a fixture build these facts.
The report stage receives them as plain facts and never imports the fixture or an oracle.

Nothing here reaches an agent: the reports are written after every pair has run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agentic.contract.envelope import Evidence
from agentic.scoring.evidence import EvidenceKey, keys_of

if TYPE_CHECKING:
    # Only for the type: a report stage that reads facts need not load the fixture loader.
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
class RequiredClaim:
    """A claim the task marks required, and the full identity (``evidence_key``) of every
    coordinate the oracle requires it to cite; empty when the oracle requires none."""

    claim_key: str
    evidence: frozenset[EvidenceKey]


@dataclass(frozen=True)
class TaskFacts:
    category: str
    spans: tuple[OracleSpan, ...]
    # Defaults keep facts built by hand (tests, older callers) valid: no abstention, nothing
    # required, i.e. a task with no evidence to deliver.
    expect_abstention: bool = False
    required_claims: tuple[RequiredClaim, ...] = ()


def _spans(claim_key: str, kind: SpanKind, evidence: tuple[Evidence, ...]) -> list[OracleSpan]:
    return [OracleSpan(claim_key, kind, e.uri, e.startLine, e.endLine) for e in evidence]


def task_facts(fixture: Fixture) -> dict[str, TaskFacts]:
    """Every task's category, oracle spans (in the oracle's claim order), expected abstention
    and required claims (in the task's claim order)."""
    facts: dict[str, TaskFacts] = {}
    for task in fixture.tasks:
        oracle = fixture.oracle(task.taskId)
        spans: list[OracleSpan] = []
        for claim in oracle.claims:
            spans += _spans(claim.claimKey, "required", claim.requiredEvidence)
            spans += _spans(claim.claimKey, "optional", claim.optionalEvidence)
            spans += _spans(claim.claimKey, "forbidden", claim.forbiddenEvidence)
        required = {c.claimKey: keys_of(c.requiredEvidence) for c in oracle.claims}
        facts[task.taskId] = TaskFacts(
            category=task.category,
            spans=tuple(spans),
            expect_abstention=oracle.completion.expectAbstention,
            required_claims=tuple(
                # A required claim the oracle does not list requires no coordinate.
                RequiredClaim(c.claimKey, required.get(c.claimKey, frozenset()))
                for c in task.claims
                if c.required
            ),
        )
    return facts
