"""Assembling the benchmark report and its two fingerprints.

canonicalFingerprint follows the contract: it hashes the report projection that keeps environment
provenance, methodology, limitations, native index identities, canonical receipts, scores,
exclusions, capsule replays and promotion, and drops every observation. resultsFingerprint is the
same projection without the environment, so two machines (or host and container) can be compared
on results alone.
"""

from __future__ import annotations

from typing import Any

from agentic.contract.canonical import ZERO_HASH, fingerprint
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


def projection(report: BenchmarkReport, *, with_environment: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schemaVersion": report.schemaVersion,
        "benchmarkId": report.benchmarkId,
        "fixtureFingerprint": report.fixtureFingerprint,
        "methodology": list(report.methodology),
        "limitations": list(report.limitations),
        "preparations": [
            {
                "adapterId": p.adapterId,
                "corpusFingerprint": p.corpusFingerprint,
                "indexFingerprint": p.indexFingerprint,
            }
            for p in report.preparations
        ],
        "attemptedPairs": report.attemptedPairs,
        "scoredPairs": report.scoredPairs,
        "exclusions": [e.to_json() for e in report.exclusions],
        "receipts": [r.canonical.to_json() for r in report.receipts],
        "scores": [s.to_json() for s in report.scores],
        "capsuleReplays": [r.to_json() for r in report.capsuleReplays],
        "promotion": report.promotion.to_json() if report.promotion else None,
    }
    if with_environment:
        data["environment"] = report.environment.to_json()
    return data


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
    return draft.model_copy(
        update={
            "canonicalFingerprint": fingerprint(projection(draft)),
            "resultsFingerprint": fingerprint(projection(draft, with_environment=False)),
        }
    )


def check_fingerprints(report: BenchmarkReport, source: str) -> None:
    """Refuse a report whose stored fingerprints are not those of its content (a hand-edited
    score, receipt or promotion), naming the first field that disagrees."""
    fields = [("canonicalFingerprint", report.canonicalFingerprint, True)]
    if report.resultsFingerprint is not None:
        fields.append(("resultsFingerprint", report.resultsFingerprint, False))
    for name, stored, with_environment in fields:
        computed = fingerprint(projection(report, with_environment=with_environment))
        if computed != stored:
            raise ContractError(
                "report_fingerprint_mismatch",
                f"{source}: {name} {stored[:12]}... is not the hash of the report's content "
                f"({computed[:12]}...); the report was edited after it was written",
            )
