"""Semantic checks of a schema-valid final envelope against its public task.

The schema cannot see the task, so it cannot tell an unknown claim key, a value of the wrong type,
a required claim left uncited or silently dropped, or a citation whose range runs backwards. An
envelope with any issue is invalid output: the scorer counts it as unsupported, never ignores it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from agentic.contract.envelope import FinalEnvelope
from agentic.contract.task import AgentTask

IssueCode = Literal[
    "duplicate_claim",
    "extra_claim",
    "type_mismatch",
    "uncited_required_claim",
    "invalid_evidence_range",
    "duplicate_gap",
    "extra_gap",
    "missing_required_claim",
]


@dataclass(frozen=True)
class EnvelopeIssue:
    code: IssueCode
    claimKey: str | None

    def __str__(self) -> str:
        return self.code if self.claimKey is None else f"{self.code}:{self.claimKey}"


def _claim_issues(envelope: FinalEnvelope, task: AgentTask) -> Iterator[EnvelopeIssue]:
    counts = Counter(claim.claimKey for claim in envelope.claims)
    for claim in envelope.claims:
        key = claim.claimKey
        if counts[key] > 1:
            yield EnvelopeIssue("duplicate_claim", key)
        if any(citation.startLine > citation.endLine for citation in claim.citations):
            yield EnvelopeIssue("invalid_evidence_range", key)
        definition = task.claim(key)
        if definition is None:
            yield EnvelopeIssue("extra_claim", key)
            continue
        if claim.value.type != definition.valueType:
            yield EnvelopeIssue("type_mismatch", key)
        if definition.required and not claim.citations:
            yield EnvelopeIssue("uncited_required_claim", key)


def _gap_issues(envelope: FinalEnvelope, task: AgentTask) -> Iterator[EnvelopeIssue]:
    counts = Counter(gap.claimKey for gap in envelope.gaps)
    for gap in envelope.gaps:
        if counts[gap.claimKey] > 1:
            yield EnvelopeIssue("duplicate_gap", gap.claimKey)
        if task.claim(gap.claimKey) is None:
            yield EnvelopeIssue("extra_gap", gap.claimKey)


def _missing_issues(envelope: FinalEnvelope, task: AgentTask) -> Iterator[EnvelopeIssue]:
    # Any gap reason accounts for a required claim: saying why it is absent is the contract.
    answered = {claim.claimKey for claim in envelope.claims}
    answered.update(gap.claimKey for gap in envelope.gaps)
    for definition in task.claims:
        if definition.required and definition.claimKey not in answered:
            yield EnvelopeIssue("missing_required_claim", definition.claimKey)


def envelope_issues(envelope: FinalEnvelope, task: AgentTask) -> list[EnvelopeIssue]:
    """Every semantic issue of ``envelope`` for ``task``, each once, sorted by code then key."""
    found = {
        *_claim_issues(envelope, task),
        *_gap_issues(envelope, task),
        *_missing_issues(envelope, task),
    }
    return sorted(found, key=lambda issue: (issue.code, issue.claimKey or ""))
