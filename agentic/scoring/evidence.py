"""Evidence identity for scoring: which coordinates a trajectory observed and an oracle expects.

A coordinate's identity is all seven of its fields, both provenances included: a citation whose
hash the backend merely asserted (``backend_provided``) is not the line the harness observed.
"""

from __future__ import annotations

from collections.abc import Iterable

from agentic.contract.envelope import Evidence
from agentic.contract.oracle import HiddenOracle
from agentic.contract.receipt import CanonicalReceipt, ToolEvidence

EvidenceKey = tuple[str, str, int, int, str, str, str]


def evidence_key(item: Evidence | ToolEvidence) -> EvidenceKey:
    return (
        item.uri,
        item.sourceHash,
        item.startLine,
        item.endLine,
        item.spanHash,
        item.sourceHashProvenance,
        item.spanHashProvenance,
    )


def keys_of(items: Iterable[Evidence | ToolEvidence]) -> frozenset[EvidenceKey]:
    return frozenset(evidence_key(item) for item in items)


def delivered_evidence(receipt: CanonicalReceipt) -> tuple[ToolEvidence, ...]:
    """Evidence of the normalized results the agent actually received.

    It is the normalized evidence, not the projection: a bundle whose projected evidence is
    hidden (because its content already carries it) still counts as observed. An undelivered
    call's result never reached the agent, so nothing in it counts."""
    return tuple(
        item for call in receipt.calls if call.deliveredToAgent for item in call.result.evidence
    )


def expected_evidence(oracle: HiddenOracle) -> frozenset[EvidenceKey]:
    """Every coordinate the oracle names for any claim: required, optional or forbidden."""
    return frozenset(
        evidence_key(item)
        for claim in oracle.claims
        for group in (claim.requiredEvidence, claim.optionalEvidence, claim.forbiddenEvidence)
        for item in group
    )
