"""Builders of promotion-gate inputs: scored receipts of two adapters and their Capsule replays.

A scored pair is a factory receipt (``tests.support.scoring``) with the totals the gate reads
(``agentCalls``, ``modelVisibleUtf8Bytes``) set directly, and a score record whose promotion
fields (success, substantive, linked, unsupported) are set directly: the gate never re-scores,
so a test states the figures it is about and nothing else. The defaults make a cohort that
passes every threshold exactly at its boundary; see ``passing_pair``.
"""

from __future__ import annotations

from typing import Any

from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import CapsuleReplay, Promotion, TaskScore
from agentic.scoring.promotion import PromotionPair, ScoredPair, evaluate_promotion
from tests.support.scoring import (
    bundle_call,
    make_receipt,
    make_replay,
    plain_score,
    score_record,
)

BASELINE = "lexical"
CANDIDATE = "capsule"
# Defaults at each threshold: calls 1 - 75/100 = 0.25, bytes 1 - 65/100 = 0.35, linkage
# 19/20 = 0.95; unsupported claims 1 -> 0 (strictly fewer), success equal.
BASELINE_CALLS, CANDIDATE_CALLS = 100, 75
BASELINE_BYTES, CANDIDATE_BYTES = 100, 65
SUBSTANTIVE, LINKED = 20, 19


def scored(
    adapter: str,
    *,
    agent_calls: int,
    visible_bytes: int,
    success: int = 1,
    substantive: int = SUBSTANTIVE,
    linked: int = LINKED,
    unsupported: int = 0,
    scored: bool = True,
    score: TaskScore | None = None,
    **receipt: Any,
) -> ScoredPair:
    """One receipt of ``adapter`` with its score; ``receipt`` goes to ``make_receipt``."""
    made = make_receipt(
        adapter=adapter, agentCalls=agent_calls, modelVisibleUtf8Bytes=visible_bytes, **receipt
    )
    plain = score or plain_score(
        success=success,
        substantive=substantive,
        linked=linked,
        unsupported_substantive=tuple(f"claim{n}" for n in range(unsupported)),
        scored=scored,
    )
    return ScoredPair(made, score_record(made, plain))


def baseline(**overrides: Any) -> ScoredPair:
    """The baseline side of a passing pair (one unsupported substantive claim)."""
    figures: dict[str, Any] = {
        "agent_calls": BASELINE_CALLS,
        "visible_bytes": BASELINE_BYTES,
        "unsupported": 1,
    }
    return scored(BASELINE, **(figures | overrides))


def candidate(**overrides: Any) -> ScoredPair:
    """The candidate side of a passing pair: one delivered evidence bundle, no unsupported
    claim."""
    figures: dict[str, Any] = {
        "agent_calls": CANDIDATE_CALLS,
        "visible_bytes": CANDIDATE_BYTES,
        "calls": [bundle_call()],
    }
    return scored(CANDIDATE, **(figures | overrides))


def replay_for(side: ScoredPair, **overrides: Any) -> CapsuleReplay:
    """A deterministic, well-formed replay of ``side``'s bundle."""
    return make_replay(side.receipt, **overrides)


def promote(
    records: list[ScoredPair],
    replays: list[CapsuleReplay] | None = None,
    *,
    replay_required: bool = True,
) -> Promotion:
    """The gate over ``records``; without ``replays``, each candidate gets a good replay."""
    if replays is None:
        replays = [replay_for(r) for r in records if r.receipt.adapterId == CANDIDATE]
    verdict = evaluate_promotion(
        records,
        replays,
        baseline_adapter=BASELINE,
        candidate_adapter=CANDIDATE,
        replay_required=replay_required,
    )
    assert verdict is not None
    return verdict


def pair_of(
    base: ScoredPair,
    cand: ScoredPair,
    replay: CapsuleReplay | None = None,
    **identity: str,
) -> PromotionPair:
    """A hand-made pair, for checks ``pair_cohorts`` would never let through."""
    receipt: CanonicalReceipt = base.receipt
    fields = {
        "taskId": receipt.taskId,
        "trialId": receipt.trialId,
        "lifecycle": receipt.lifecycle,
    } | identity
    return PromotionPair(**fields, baseline=base, candidate=cand, replay=replay)
