"""The promotion gate: does a candidate adapter beat a baseline adapter on paired trials?

Contract v1.0, section "Promotion". Pairs are matched on (task, trial, lifecycle, seed, agent);
the two cohorts must hold the same pairs, or the gate fails as ``cohort_pairing_failed``. Each
pair is then checked for identity, comparable fingerprints, scoring and a deterministic,
well-formed Capsule replay; a pair failing any check is named in ``failures`` and left out of
the aggregates. The aggregates compare success, agent calls, model-visible bytes, claim linkage
and unsupported claims against fixed thresholds. Failures keep a fixed order: an empty cohort,
then per-pair failures in pair-key order, then aggregate failures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentic.contract.canonical import sha256_hex
from agentic.contract.errors import AgenticError
from agentic.contract.jsrules import utf16_key
from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import (
    CapsuleReplay,
    Promotion,
    PromotionMetrics,
    ScoreRecord,
    pair_identity,
)
from agentic.scoring.capsule_payload import replay_payload_valid

MIN_AGENT_CALL_REDUCTION = 0.25
MIN_CONTEXT_BYTE_REDUCTION = 0.35
MIN_CLAIM_LINKAGE = 0.95
# Config and index fingerprints legitimately differ between adapters; these must not.
COMPARISON_FINGERPRINTS = ("corpus", "prompt", "tools", "model", "runtime")
NUL = "\0"


@dataclass(frozen=True)
class Gate:
    """A requested gate: the candidate adapter and the baseline adapter (ids), and whether the
    candidate's bundle replay is required (it is for an adapter that declares replayable
    bundles)."""

    candidate_adapter: str
    baseline_adapter: str
    replay_required: bool

    @property
    def heading(self) -> str:
        replay = "required" if self.replay_required else "not applicable"
        versus = f"{self.candidate_adapter} vs {self.baseline_adapter}"
        return f"Promotion {versus} (bundle replay {replay})"


@dataclass(frozen=True)
class ScoredPair:
    """One receipt with the score record computed for it."""

    receipt: CanonicalReceipt
    score: ScoreRecord


@dataclass(frozen=True)
class PromotionPair:
    """A baseline adapter's and a candidate adapter's trial matched on the same pair key (the
    two sides are named as the contract's ``baseline*`` and ``candidate*`` metrics name them)."""

    taskId: str
    trialId: str
    lifecycle: str
    baseline: ScoredPair
    candidate: ScoredPair
    replay: CapsuleReplay | None  # None where the candidate declares no replayable bundle


class CohortPairingError(AgenticError):
    """The two cohorts cannot be paired one to one."""


def _seed_text(seed: int | None) -> str:
    return "null" if seed is None else str(seed)  # JavaScript String(seed)


def pair_key(receipt: CanonicalReceipt) -> str:
    return NUL.join(
        (
            receipt.taskId,
            receipt.trialId,
            receipt.lifecycle,
            _seed_text(receipt.seed),
            receipt.agentId,
        )
    )


def identity_key(receipt: CanonicalReceipt) -> str:
    """The full identity of one receipt: its pair key prefixed with the adapter id."""
    return NUL.join((receipt.adapterId, pair_key(receipt)))


def _replay_identity(replay: CapsuleReplay) -> str:
    parts = (
        replay.taskId,
        replay.trialId,
        replay.lifecycle,
        _seed_text(replay.seed),
        replay.agentId,
    )
    return NUL.join((replay.adapterId, *parts))


def evaluate_promotion(
    records: Sequence[ScoredPair],
    replays: Sequence[CapsuleReplay],
    *,
    baseline_adapter: str,
    candidate_adapter: str = "capsule",
    replay_required: bool = True,
) -> Promotion | None:
    """The gate over every scored receipt of a run; None unless both adapters ran.

    ``baseline_adapter`` and ``candidate_adapter`` are adapter ids.

    ``replay_required``: the candidate declares a replayable one-call bundle (the capsule), so
    each of its pairs needs a deterministic replay. For any other candidate the replay checks
    do not apply, and are neither required nor reported missing.
    """
    ordered = sorted(records, key=lambda item: utf16_key(identity_key(item.receipt)))
    baseline_cohort = [item for item in ordered if item.receipt.adapterId == baseline_adapter]
    candidate_cohort = [item for item in ordered if item.receipt.adapterId == candidate_adapter]
    if not baseline_cohort or not candidate_cohort:
        return None
    try:
        replayed = replays if replay_required else None
        pairs = pair_cohorts(baseline_cohort, candidate_cohort, replayed)
    except CohortPairingError as error:
        return _pairing_failed(str(error))
    return evaluate_pairs(
        pairs, baseline_adapter=baseline_adapter, candidate_adapter=candidate_adapter
    )


def pair_cohorts(
    baseline_cohort: Sequence[ScoredPair],
    candidate_cohort: Sequence[ScoredPair],
    replays: Sequence[CapsuleReplay] | None,
) -> tuple[PromotionPair, ...]:
    """Pairs in pair-key order; raises CohortPairingError when the cohorts do not match.

    ``replays`` None: the candidate has no replayable bundle, so no pair carries a replay.
    """
    replay_by_identity = {_replay_identity(replay): replay for replay in replays or ()}
    for item in candidate_cohort if replays is not None else ():
        if identity_key(item.receipt) not in replay_by_identity:
            raise CohortPairingError(f"Capsule replay missing for {identity_key(item.receipt)}")
    baseline_by_key = {pair_key(item.receipt): item for item in baseline_cohort}
    candidate_by_key = {pair_key(item.receipt): item for item in candidate_cohort}
    baseline_unique = len(baseline_by_key) == len(baseline_cohort)
    if not baseline_unique or len(candidate_by_key) != len(candidate_cohort):
        raise CohortPairingError("Promotion cohorts contain duplicate task/trial/lifecycle pairs")
    if set(baseline_by_key) != set(candidate_by_key):
        raise CohortPairingError("Promotion cohorts do not contain identical pairs")
    pairs = []
    for key in sorted(baseline_by_key, key=utf16_key):
        base, cand = baseline_by_key[key], candidate_by_key[key]
        pairs.append(
            PromotionPair(
                taskId=base.receipt.taskId,
                trialId=base.receipt.trialId,
                lifecycle=base.receipt.lifecycle,
                baseline=base,
                candidate=cand,
                replay=replay_by_identity.get(identity_key(cand.receipt)),
            )
        )
    return tuple(pairs)


def pair_failures(
    pair: PromotionPair, *, baseline_adapter: str, candidate_adapter: str, seen: frozenset[str]
) -> list[str]:
    """Every reason this pair is invalid, as bare codes in the contract's check order."""
    base, cand = pair.baseline.receipt, pair.candidate.receipt
    codes: list[tuple[str, bool]] = [
        ("duplicate_pair", promotion_pair_key(pair) in seen),
        ("pair_identity_mismatch", not (_in_pair(pair, base) and _in_pair(pair, cand))),
        (
            "adapter_identity_mismatch",
            base.adapterId != baseline_adapter or cand.adapterId != candidate_adapter,
        ),
        ("comparison_fingerprint_mismatch", not _comparable(base, cand)),
        ("baseline_score_identity_mismatch", not _score_matches(pair.baseline)),
        ("candidate_score_identity_mismatch", not _score_matches(pair.candidate)),
        ("unscored_or_harness_failed_pair", _unscored_or_harness_failed(pair)),
    ]
    if pair.replay is not None:
        codes.append(("capsule_replay_identity_mismatch", not _replay_matches(pair.replay, cand)))
    failures = [code for code, failed in codes if failed]
    if pair.replay is not None:
        failures += _replay_failures(pair, pair.replay)
    return failures


def promotion_pair_key(pair: PromotionPair) -> str:
    base = pair.baseline.receipt
    return NUL.join(
        (pair.taskId, pair.trialId, pair.lifecycle, _seed_text(base.seed), base.agentId)
    )


def _in_pair(pair: PromotionPair, receipt: CanonicalReceipt) -> bool:
    return (receipt.taskId, receipt.trialId, receipt.lifecycle) == (
        pair.taskId,
        pair.trialId,
        pair.lifecycle,
    )


def _comparable(base: CanonicalReceipt, cand: CanonicalReceipt) -> bool:
    if base.seed != cand.seed or base.agentId != cand.agentId:
        return False
    return all(
        getattr(base.fingerprints, name) == getattr(cand.fingerprints, name)
        for name in COMPARISON_FINGERPRINTS
    )


def _score_matches(item: ScoredPair) -> bool:
    receipt, record = item.receipt, item.score
    return pair_identity(record) == pair_identity(receipt) and record.score.taskId == receipt.taskId


def _unscored_or_harness_failed(pair: PromotionPair) -> bool:
    sides = (pair.baseline, pair.candidate)
    return any(
        not side.score.score.scored or side.receipt.failure.class_ == "harness_error"
        for side in sides
    )


def _replay_matches(replay: CapsuleReplay, receipt: CanonicalReceipt) -> bool:
    return (
        replay.taskId == receipt.taskId
        and replay.adapterId == receipt.adapterId
        and replay.trialId == receipt.trialId
        and replay.seed == receipt.seed
        and replay.lifecycle == receipt.lifecycle
        and replay.agentId == receipt.agentId
    )


def bundle_payload(receipt: CanonicalReceipt) -> str | None:
    """The content of the one delivered evidence bundle, or None if there is not exactly one."""
    bundles = [
        call
        for call in receipt.calls
        if call.deliveredToAgent and call.result.resultRole == "evidence_bundle"
    ]
    if len(bundles) != 1:
        return None
    return bundles[0].result.content or None


def _replay_failures(pair: PromotionPair, replay: CapsuleReplay) -> list[str]:
    failures = []
    payload = bundle_payload(pair.candidate.receipt)
    if payload is None:
        failures.append("candidate_capsule_payload_missing_or_ambiguous")
    elif replay.first.canonicalJson != payload or replay.first.sha256 != sha256_hex(payload):
        failures.append("capsule_replay_first_payload_mismatch")
    if not (replay_payload_valid(replay.first) and replay_payload_valid(replay.second)):
        failures.append("invalid_capsule_payload_replay")
    elif replay.first != replay.second:
        failures.append("nondeterministic_capsule_payload")
    return failures


@dataclass
class _Totals:
    """Sums over valid pairs (baseline side first, candidate side second)."""

    pairs: int = 0
    success: tuple[int, int] = (0, 0)
    calls: tuple[int, int] = (0, 0)
    bytes: tuple[int, int] = (0, 0)
    unsupported: tuple[int, int] = (0, 0)
    substantive: int = 0
    linked: int = 0

    def add(self, pair: PromotionPair) -> None:
        base, cand = pair.baseline, pair.candidate
        self.pairs += 1
        self.success = _plus(self.success, base.score.score.success, cand.score.score.success)
        self.calls = _plus(self.calls, base.receipt.agentCalls, cand.receipt.agentCalls)
        self.bytes = _plus(
            self.bytes, base.receipt.modelVisibleUtf8Bytes, cand.receipt.modelVisibleUtf8Bytes
        )
        self.unsupported = _plus(
            self.unsupported,
            len(base.score.score.unsupportedSubstantiveClaims),
            len(cand.score.score.unsupportedSubstantiveClaims),
        )
        self.substantive += cand.score.score.substantiveClaims
        self.linked += cand.score.score.linkedSupportedClaims


def _plus(total: tuple[int, int], baseline: int, candidate: int) -> tuple[int, int]:
    return total[0] + baseline, total[1] + candidate


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole > 0 else None


def _reduction(totals: tuple[int, int]) -> float | None:
    baseline, candidate = totals
    return 1 - candidate / baseline if baseline > 0 else None


def evaluate_pairs(
    pairs: Sequence[PromotionPair], *, baseline_adapter: str, candidate_adapter: str
) -> Promotion:
    failures = [] if pairs else ["paired_cohort_empty"]
    seen: set[str] = set()
    totals = _Totals()
    for pair in pairs:
        identity = promotion_pair_key(pair)
        codes = pair_failures(
            pair,
            baseline_adapter=baseline_adapter,
            candidate_adapter=candidate_adapter,
            seen=frozenset(seen),
        )
        seen.add(identity)
        failures += [f"{code}:{identity}" for code in codes]
        if codes:
            continue
        totals.add(pair)
        if pair.candidate.score.score.success < pair.baseline.score.score.success:
            failures.append(f"pairwise_accuracy_loss:{identity}")
    metrics = _metrics(totals, fully_valid=totals.pairs > 0 and totals.pairs == len(pairs))
    failures += _aggregate_failures(metrics)
    return Promotion(
        passed=not failures, pairCount=len(pairs), failures=tuple(failures), metrics=metrics
    )


def _metrics(totals: _Totals, *, fully_valid: bool) -> PromotionMetrics:
    return PromotionMetrics(
        baselineSuccessRate=_rate(totals.success[0], totals.pairs),
        candidateSuccessRate=_rate(totals.success[1], totals.pairs),
        agentCallReduction=_reduction(totals.calls),
        contextByteReduction=_reduction(totals.bytes),
        claimLinkageRate=_rate(totals.linked, totals.substantive),
        # Unsupported claims only compare like with like: every pair of the cohort must count.
        baselineUnsupportedClaims=totals.unsupported[0] if fully_valid else None,
        candidateUnsupportedClaims=totals.unsupported[1] if fully_valid else None,
        unsupportedClaimReduction=_reduction(totals.unsupported) if fully_valid else None,
    )


def _aggregate_failures(metrics: PromotionMetrics) -> list[str]:
    base_rate, cand_rate = metrics.baselineSuccessRate, metrics.candidateSuccessRate
    calls, context = metrics.agentCallReduction, metrics.contextByteReduction
    linkage = metrics.claimLinkageRate
    base_unsupported = metrics.baselineUnsupportedClaims
    cand_unsupported = metrics.candidateUnsupportedClaims
    checks = [
        (
            "aggregate_accuracy_loss_or_empty_denominator",
            base_rate is None or cand_rate is None or cand_rate < base_rate,
        ),
        (
            "agent_call_reduction_below_0.25_or_zero_denominator",
            calls is None or calls < MIN_AGENT_CALL_REDUCTION,
        ),
        (
            "context_byte_reduction_below_0.35_or_zero_denominator",
            context is None or context < MIN_CONTEXT_BYTE_REDUCTION,
        ),
        (
            "claim_linkage_below_0.95_or_zero_denominator",
            linkage is None or linkage < MIN_CLAIM_LINKAGE,
        ),
        (
            "unsupported_claims_not_strictly_reduced_or_zero_denominator",
            metrics.unsupportedClaimReduction is None
            or base_unsupported is None
            or cand_unsupported is None
            or cand_unsupported >= base_unsupported,
        ),
    ]
    return [code for code, failed in checks if failed]


def _pairing_failed(message: str) -> Promotion:
    return Promotion(
        passed=False,
        pairCount=0,
        failures=(f"cohort_pairing_failed:{message}",),
        # No pair was valid: the metrics of an empty cohort, every one of them undefined (None).
        metrics=_metrics(_Totals(), fully_valid=False),
    )
