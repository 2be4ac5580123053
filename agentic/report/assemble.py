"""Assembling the benchmark report and its two fingerprints.

canonicalFingerprint follows the contract: it hashes the report projection that keeps environment
provenance, methodology, limitations, native index identities, canonical receipts, scores,
exclusions, capsule replays and promotion, and drops every observation. resultsFingerprint is the
same projection without the environment, so two machines (or host and container) can be compared
on results alone.
"""

from __future__ import annotations

from collections.abc import Callable

from agentic.contract.canonical import ZERO_HASH, canonical_bytes, canonical_object, sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import (
    BENCHMARK_ID,
    BenchmarkReport,
    CapsuleReplay,
    Environment,
    Exclusion,
    Preparation,
    Promotion,
    ScoreRecord,
    pair_identity,
)
from agentic.contract.strict_json import JsonObject, JsonValue

METHODOLOGY: tuple[str, ...] = (
    "Every adapter is prepared once from the same verified corpus snapshot, outside both cohorts.",
    "Cold pairs attach a fresh adapter session and agent; warm pairs share one session "
    "after exactly one discarded readiness probe.",
    "Agents see only the public task and the projected results of delivered calls; "
    "oracles stay hidden.",
    "Scores are computed deterministically from canonical receipts against hidden oracles; "
    "no model judges.",
    "Model-visible bytes are the UTF-8 size of the canonical projected result of each "
    "delivered call.",
)
LIMITATIONS: tuple[str, ...] = (
    "The fixture is synthetic regression evidence, not a representative sample of any domain.",
    "The deterministic fixture agent is narrower than a general model.",
    "Tokens compare only under one pinned tokenizer; bytes are the cross-adapter context measure.",
    "Latency depends on the machine and compares only matching lifecycle cohorts.",
    "The capsule adapter is an evaluation prototype of a one-call evidence bundle.",
    "Optional lanes (qmd, local model) are local evidence and never part of the "
    "authoritative baseline.",
)


def _exclusions(
    receipts: tuple[TrajectoryReceipt, ...], scores: tuple[ScoreRecord, ...]
) -> tuple[Exclusion, ...]:
    exclusions = []
    for receipt, record in zip(receipts, scores, strict=True):
        if record.score.scored:
            continue
        c = receipt.canonical
        reason = c.failure.code or record.score.exclusionReason or "unscored"
        exclusions.append(
            Exclusion(**pair_identity(c), failureClass=c.failure.class_, reason=reason)
        )
    return tuple(exclusions)


# The projection, field by field. Every ``BenchmarkReport`` field is either hashed (PROJECTED,
# each with how it is projected) or left out for the reason given (LEFT_OUT); so is every field of
# the two nested models the projection picks from by hand. tests/report/test_projection_fields.py
# holds each pair against its model, so a new field fails there until someone decides.
PROJECTED: dict[str, Callable[[BenchmarkReport], JsonValue]] = {
    "schemaVersion": lambda r: r.schemaVersion,
    "benchmarkId": lambda r: r.benchmarkId,
    "fixtureFingerprint": lambda r: r.fixtureFingerprint,
    "methodology": lambda r: list(r.methodology),
    "limitations": lambda r: list(r.limitations),
    "preparations": lambda r: [_preparation(p) for p in r.preparations],
    "attemptedPairs": lambda r: r.attemptedPairs,
    "scoredPairs": lambda r: r.scoredPairs,
    "exclusions": lambda r: [e.to_json() for e in r.exclusions],
    "receipts": lambda r: [_receipt(t) for t in r.receipts],
    "scores": lambda r: [s.to_json() for s in r.scores],
    "capsuleReplays": lambda r: [c.to_json() for c in r.capsuleReplays],
    "promotion": lambda r: r.promotion.to_json() if r.promotion else None,
    # In canonicalFingerprint only: resultsFingerprint compares two machines on results alone.
    "environment": lambda r: r.environment.to_json(),
}
ENVIRONMENT_FIELD = "environment"
LEFT_OUT: dict[str, str] = {
    "canonicalFingerprint": "the hash of this projection: it cannot hash itself",
    "resultsFingerprint": "the hash of this projection without the environment",
}
PREPARATION_PROJECTED: tuple[str, ...] = ("adapterId", "corpusFingerprint", "indexFingerprint")
PREPARATION_LEFT_OUT: dict[str, str] = {
    "observations": "preparation time and backend details vary from run to run",
}
RECEIPT_PROJECTED: tuple[str, ...] = ("canonical",)
RECEIPT_LEFT_OUT: dict[str, str] = {
    "schemaVersion": "repeated inside canonical, which is hashed",
    "observations": "timings, paths and diagnostics: volatile by design",
}


def _preparation(preparation: Preparation) -> JsonObject:
    return {name: getattr(preparation, name) for name in PREPARATION_PROJECTED}


def _receipt(receipt: TrajectoryReceipt) -> JsonObject:
    # A receipt projects as its canonical part itself (RECEIPT_PROJECTED), not as a mapping.
    return receipt.canonical.to_json()


def projection(report: BenchmarkReport, *, with_environment: bool = True) -> JsonObject:
    return {
        name: project(report)
        for name, project in PROJECTED.items()
        if with_environment or name != ENVIRONMENT_FIELD
    }


def projection_fingerprints(report: BenchmarkReport) -> tuple[str, str]:
    """``canonicalFingerprint`` and ``resultsFingerprint``: the hashes of the projection with and
    without the environment. Each member is canonicalized once and the two objects composed of
    them (``canonical_object``): the receipts, most of a report, are not spelled twice."""
    members = {name: canonical_bytes(project(report)) for name, project in PROJECTED.items()}
    results = {name: spelled for name, spelled in members.items() if name != ENVIRONMENT_FIELD}
    return sha256_hex(canonical_object(members)), sha256_hex(canonical_object(results))


def build_report(
    *,
    fixture_fingerprint: str,
    environment: Environment,
    preparations: tuple[Preparation, ...],
    receipts: tuple[TrajectoryReceipt, ...],
    scores: tuple[ScoreRecord, ...],
    replays: tuple[CapsuleReplay, ...],
    promotion: Promotion | None,
) -> BenchmarkReport:
    draft = BenchmarkReport(
        schemaVersion="1.0",
        benchmarkId=BENCHMARK_ID,
        canonicalFingerprint=ZERO_HASH,
        resultsFingerprint=ZERO_HASH,
        fixtureFingerprint=fixture_fingerprint,
        environment=environment,
        methodology=METHODOLOGY,
        limitations=LIMITATIONS,
        preparations=preparations,
        attemptedPairs=len(receipts),
        scoredPairs=sum(1 for s in scores if s.score.scored),
        exclusions=_exclusions(receipts, scores),
        receipts=receipts,
        scores=scores,
        capsuleReplays=replays,
        promotion=promotion,
    )
    canonical, results = projection_fingerprints(draft)
    return draft.model_copy(
        update={"canonicalFingerprint": canonical, "resultsFingerprint": results}
    )


def check_fingerprints(report: BenchmarkReport, source: str) -> None:
    """Refuse a report whose stored fingerprints are not those of its content (a hand-edited
    score, receipt or promotion), naming the first field that disagrees."""
    canonical, results = projection_fingerprints(report)
    fields = [("canonicalFingerprint", report.canonicalFingerprint, canonical)]
    if report.resultsFingerprint is not None:
        fields.append(("resultsFingerprint", report.resultsFingerprint, results))
    for name, stored, computed in fields:
        if computed != stored:
            raise ContractError(
                "report_fingerprint_mismatch",
                f"{source}: {name} {stored[:12]}... is not the hash of the report's content "
                f"({computed[:12]}...); the report was edited after it was written",
            )
