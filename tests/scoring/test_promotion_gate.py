"""The promotion gate's aggregate verdict (``scoring/promotion.py``): each threshold at its
boundary and one step beyond, zero denominators, totals over valid pairs only, the order of
failures, and when the gate gives no verdict at all.

The default pair (``tests.support.promotion``) sits exactly on every threshold: agent calls
100 -> 75 (reduction 0.25), bytes 100 -> 65 (0.35), linkage 19/20 (0.95), unsupported claims
1 -> 0, equal success. Each test moves one figure.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentic.scoring.promotion import evaluate_pairs, evaluate_promotion
from tests.support.promotion import (
    BASELINE,
    CANDIDATE,
    baseline,
    candidate,
    pair_of,
    promote,
    scored,
)

CALLS = "agent_call_reduction_below_0.25_or_zero_denominator"
BYTES = "context_byte_reduction_below_0.35_or_zero_denominator"
LINKAGE = "claim_linkage_below_0.95_or_zero_denominator"
UNSUPPORTED = "unsupported_claims_not_strictly_reduced_or_zero_denominator"
ACCURACY = "aggregate_accuracy_loss_or_empty_denominator"
PAIR = "t0a1b2c3\0fixture-01\0cold\x000\0fixture-agent-v1"


def failures(base: dict[str, Any] | None = None, cand: dict[str, Any] | None = None) -> list[str]:
    """The gate's failures over the default pair with these overrides."""
    return list(promote([baseline(**(base or {})), candidate(**(cand or {}))]).failures)


def test_a_cohort_exactly_on_every_threshold_passes() -> None:
    verdict = promote([baseline(), candidate()])

    assert (verdict.passed, verdict.pairCount, verdict.failures) == (True, 1, ())


def test_the_metrics_are_the_cohort_totals() -> None:
    metrics = promote([baseline(), candidate()]).metrics

    assert metrics.to_json() == {
        "baselineSuccessRate": 1.0,
        "candidateSuccessRate": 1.0,
        "agentCallReduction": 0.25,
        "contextByteReduction": 0.35,
        "claimLinkageRate": 0.95,
        "baselineUnsupportedClaims": 1,
        "candidateUnsupportedClaims": 0,
        "unsupportedClaimReduction": 1.0,
    }


# --- thresholds, at the boundary and one step beyond ------------------------------------------


def test_an_agent_call_reduction_one_call_short_of_0_25_fails() -> None:
    assert failures(cand={"agent_calls": 76}) == [CALLS]


def test_a_context_byte_reduction_one_byte_short_of_0_35_fails() -> None:
    assert failures(cand={"visible_bytes": 66}) == [BYTES]


def test_a_claim_linkage_one_claim_short_of_0_95_fails() -> None:
    assert failures(cand={"substantive": 20, "linked": 18}) == [LINKAGE]


def test_equal_unsupported_claims_are_not_a_strict_reduction() -> None:
    assert failures(base={"unsupported": 1}, cand={"unsupported": 1}) == [UNSUPPORTED]


def test_more_unsupported_claims_than_the_baseline_fail() -> None:
    assert failures(base={"unsupported": 1}, cand={"unsupported": 2}) == [UNSUPPORTED]


def test_a_candidate_that_fails_where_the_baseline_succeeds_loses_accuracy() -> None:
    assert failures(base={"success": 1}, cand={"success": 0}) == [
        f"pairwise_accuracy_loss:{PAIR}",
        ACCURACY,
    ]


def test_one_lost_pair_in_four_is_an_aggregate_accuracy_loss() -> None:
    trials = ("fixture-01", "fixture-02", "fixture-03", "fixture-04")
    records = [baseline(trial=trial) for trial in trials]
    records += [candidate(trial=trial, success=int(trial != "fixture-04")) for trial in trials]

    verdict = promote(records)

    assert (verdict.metrics.baselineSuccessRate, verdict.metrics.candidateSuccessRate) == (1, 0.75)
    assert verdict.failures[-1:] == (ACCURACY,)


def test_equal_success_rates_are_no_accuracy_loss() -> None:
    assert failures(base={"success": 0}, cand={"success": 0}) == []


def test_a_pairwise_loss_fails_even_when_the_aggregate_rates_are_equal() -> None:
    lost = (baseline(success=1), candidate(success=0))
    gained = (baseline(success=0, trial="fixture-02"), candidate(success=1, trial="fixture-02"))

    verdict = promote([*lost, *gained])

    assert verdict.metrics.baselineSuccessRate == verdict.metrics.candidateSuccessRate == 0.5
    assert verdict.failures == (f"pairwise_accuracy_loss:{PAIR}",)


def test_a_candidate_succeeding_more_often_than_the_baseline_passes() -> None:
    assert failures(base={"success": 0}, cand={"success": 1}) == []


# --- zero denominators ------------------------------------------------------------------------


def test_a_baseline_without_agent_calls_has_no_call_reduction() -> None:
    verdict = promote([baseline(agent_calls=0), candidate(agent_calls=0)])

    assert verdict.metrics.agentCallReduction is None
    assert list(verdict.failures) == [CALLS]


def test_a_baseline_without_visible_bytes_has_no_byte_reduction() -> None:
    verdict = promote([baseline(visible_bytes=0), candidate(visible_bytes=0)])

    assert verdict.metrics.contextByteReduction is None
    assert list(verdict.failures) == [BYTES]


def test_a_candidate_without_substantive_claims_has_no_linkage_rate() -> None:
    verdict = promote([baseline(), candidate(substantive=0, linked=0)])

    assert verdict.metrics.claimLinkageRate is None
    assert list(verdict.failures) == [LINKAGE]


def test_a_baseline_without_unsupported_claims_leaves_nothing_to_reduce() -> None:
    verdict = promote([baseline(unsupported=0), candidate(unsupported=0)])

    assert verdict.metrics.unsupportedClaimReduction is None
    assert list(verdict.failures) == [UNSUPPORTED]


def test_linkage_counts_the_candidates_claims_not_the_baselines() -> None:
    verdict = promote([baseline(substantive=0, linked=0), candidate()])

    assert (verdict.passed, verdict.metrics.claimLinkageRate) == (True, 0.95)


# --- totals over valid pairs only -------------------------------------------------------------


def invalid_pair_beside_a_valid_one() -> list[Any]:
    """Pair fixture-01 is the default; pair fixture-02 is unscored on the baseline side and
    would ruin every figure if it counted."""
    ruinous = {"trial": "fixture-02", "success": 0, "substantive": 20, "linked": 0}
    return [
        baseline(),
        candidate(),
        baseline(trial="fixture-02", scored=False, agent_calls=1, visible_bytes=1, success=1),
        candidate(**ruinous, agent_calls=500, visible_bytes=500, unsupported=9),
    ]


def test_an_invalid_pair_is_left_out_of_every_total() -> None:
    verdict = promote(invalid_pair_beside_a_valid_one())
    metrics = verdict.metrics

    assert verdict.pairCount == 2
    assert (metrics.baselineSuccessRate, metrics.candidateSuccessRate) == (1.0, 1.0)
    assert (metrics.agentCallReduction, metrics.contextByteReduction) == (0.25, 0.35)
    assert metrics.claimLinkageRate == 0.95


def test_an_invalid_pair_before_a_valid_one_does_not_end_the_count() -> None:
    records = [
        baseline(scored=False),
        candidate(),
        baseline(trial="fixture-02"),
        candidate(trial="fixture-02"),
    ]

    metrics = promote(records).metrics

    assert (metrics.agentCallReduction, metrics.candidateSuccessRate) == (0.25, 1.0)


def test_claim_linkage_is_summed_over_every_valid_pair() -> None:
    records = [
        baseline(),
        candidate(substantive=20, linked=0),
        baseline(trial="fixture-02"),
        candidate(trial="fixture-02", substantive=20, linked=20),
    ]

    assert promote(records).metrics.claimLinkageRate == 0.5


def test_unsupported_claims_are_reported_only_when_every_pair_is_valid() -> None:
    verdict = promote(invalid_pair_beside_a_valid_one())
    metrics = verdict.metrics

    assert metrics.baselineUnsupportedClaims is None
    assert metrics.candidateUnsupportedClaims is None
    assert metrics.unsupportedClaimReduction is None
    assert UNSUPPORTED in verdict.failures


def test_a_cohort_of_only_invalid_pairs_has_no_rates() -> None:
    verdict = promote([baseline(scored=False), candidate()])
    metrics = verdict.metrics

    assert (metrics.baselineSuccessRate, metrics.candidateSuccessRate) == (None, None)
    assert verdict.failures == (
        f"unscored_or_harness_failed_pair:{PAIR}",
        ACCURACY,
        CALLS,
        BYTES,
        LINKAGE,
        UNSUPPORTED,
    )


# --- order of failures, empty cohorts, no verdict ---------------------------------------------


def test_failures_come_per_pair_in_pair_key_order_then_aggregates() -> None:
    records = [
        candidate(trial="fixture-02", success=0),
        baseline(trial="fixture-02"),
        candidate(success=0),
        baseline(),
    ]

    assert promote(records).failures == (
        f"pairwise_accuracy_loss:{PAIR}",
        f"pairwise_accuracy_loss:{PAIR.replace('fixture-01', 'fixture-02')}",
        ACCURACY,
    )


def test_an_empty_paired_cohort_fails_first_then_on_every_aggregate() -> None:
    verdict = evaluate_pairs((), baseline_adapter=BASELINE, candidate_adapter=CANDIDATE)

    assert (verdict.passed, verdict.pairCount) == (False, 0)
    assert verdict.failures == ("paired_cohort_empty", ACCURACY, CALLS, BYTES, LINKAGE, UNSUPPORTED)
    assert set(verdict.metrics.to_json().values()) == {None}


def test_the_empty_cohort_failure_precedes_nothing_when_pairs_exist() -> None:
    pairs = [pair_of(baseline(), candidate())]

    verdict = evaluate_pairs(pairs, baseline_adapter=BASELINE, candidate_adapter=CANDIDATE)

    assert (verdict.passed, verdict.failures) == (True, ())


@pytest.mark.parametrize("present", [BASELINE, CANDIDATE])
def test_no_verdict_unless_both_adapters_ran(present: str) -> None:
    records = [baseline() if present == BASELINE else candidate()]

    assert (
        evaluate_promotion(records, [], baseline_adapter=BASELINE, candidate_adapter=CANDIDATE)
        is None
    )


def test_by_default_the_candidate_is_the_capsule_and_needs_its_replays() -> None:
    records = [baseline(), candidate()]

    verdict = evaluate_promotion(records, [], baseline_adapter=BASELINE)

    assert verdict is not None
    assert verdict.failures[0].startswith("cohort_pairing_failed:Capsule replay missing")


def test_a_pair_without_a_seed_is_named_with_a_null_seed() -> None:
    verdict = promote([baseline(seed=None, success=1), candidate(seed=None, success=0)])

    assert (
        verdict.failures[0]
        == f"pairwise_accuracy_loss:{PAIR.replace(chr(0) + '0', chr(0) + 'null')}"
    )


def test_pairs_are_judged_in_utf16_order_of_their_keys() -> None:
    # By code point U+FF21 sorts before U+10000; by UTF-16 code units (D800...) it sorts after.
    trials = ("\uff21", "\U00010000")
    records = [
        side(trial=t, success=s) for t in trials for side, s in ((baseline, 1), (candidate, 0))
    ]

    losses = [f.split(chr(0))[1] for f in promote(records).failures if f.startswith("pairwise")]

    assert losses == ["\U00010000", "\uff21"]


def test_receipts_of_other_adapters_are_not_part_of_either_cohort() -> None:
    bystander = scored("mcp-reference", agent_calls=1, visible_bytes=1, trial="fixture-09")

    verdict = promote([baseline(), bystander, candidate()])

    assert (verdict.passed, verdict.pairCount) == (True, 1)
