"""Which pairs the promotion gate trusts (``scoring/promotion.py``): cohort pairing, every
per-pair failure reason, every fingerprint of the cohort comparison, and the Capsule replay
checks. A pair failing a check is named in ``failures`` and counts toward no total.

Checks that ``pair_cohorts`` makes impossible through ``evaluate_promotion`` (a pair whose
receipts name another task, a repeated pair) are driven through ``evaluate_pairs`` directly.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentic.contract.report import Promotion
from agentic.scoring.promotion import ScoredPair, evaluate_pairs
from tests.support.promotion import (
    BASELINE,
    CANDIDATE,
    baseline,
    candidate,
    pair_of,
    promote,
    replay_for,
    scored,
)
from tests.support.scoring import (
    HASH_A,
    bundle_call,
    capsule_projection,
    make_call,
    payload_text,
    plain_score,
    replay_payload,
    score_record,
)

PAIR = "t0a1b2c3\0fixture-01\0cold\x000\0fixture-agent-v1"
# The fingerprints two adapters must share; config and index legitimately differ.
COMPARED = ("corpus", "prompt", "tools", "model", "runtime")
OTHER = "f" * 64


def pair_codes(verdict: Promotion) -> list[str]:
    """The per-pair failure codes of the one pair, without the pair key."""
    return [f.removesuffix(f":{PAIR}") for f in verdict.failures if f.endswith(PAIR)]


def judge(
    *pairs: Any, baseline_adapter: str = BASELINE, candidate_adapter: str = CANDIDATE
) -> Promotion:
    return evaluate_pairs(
        pairs, baseline_adapter=baseline_adapter, candidate_adapter=candidate_adapter
    )


# --- cohort pairing ---------------------------------------------------------------------------


def test_cohorts_holding_different_pairs_fail_pairing() -> None:
    verdict = promote([baseline(), candidate(trial="fixture-02")])

    assert verdict.failures == (
        "cohort_pairing_failed:Promotion cohorts do not contain identical pairs",
    )
    assert (verdict.passed, verdict.pairCount) == (False, 0)


def test_a_pair_missing_from_one_cohort_fails_pairing() -> None:
    records = [baseline(), candidate(), baseline(trial="fixture-02")]

    assert promote(records).failures == (
        "cohort_pairing_failed:Promotion cohorts do not contain identical pairs",
    )


@pytest.mark.parametrize("side", ["baseline", "candidate"])
def test_a_cohort_with_a_pair_twice_fails_pairing(side: str) -> None:
    records = [baseline(), candidate()]
    records.append(baseline() if side == "baseline" else candidate())

    assert promote(records).failures == (
        "cohort_pairing_failed:Promotion cohorts contain duplicate task/trial/lifecycle pairs",
    )


def test_a_candidate_pair_without_its_replay_fails_pairing() -> None:
    verdict = promote([baseline(), candidate()], replays=[])

    assert verdict.failures == (
        "cohort_pairing_failed:Capsule replay missing for "
        "capsule\0t0a1b2c3\0fixture-01\0cold\x000\0fixture-agent-v1",
    )


def test_a_pairing_failure_reports_no_metrics() -> None:
    metrics = promote([baseline(), candidate()], replays=[]).metrics

    assert set(metrics.to_json().values()) == {None}


def test_a_candidate_without_a_replayable_bundle_needs_no_replay() -> None:
    plain = candidate(calls=[make_call(0)])

    verdict = promote([baseline(), plain], replays=[], replay_required=False)

    assert (verdict.passed, verdict.failures) == (True, ())


@pytest.mark.parametrize("field", ["seed", "agentId", "lifecycle"])
def test_pairs_are_matched_on_every_part_of_the_pair_key(field: str) -> None:
    other = {"seed": 1, "agentId": "other-agent-v1", "lifecycle": "warm"}[field]
    moved = candidate(**{field: other})

    verdict = promote([baseline(), moved], replays=[replay_for(moved)])

    assert verdict.failures == (
        "cohort_pairing_failed:Promotion cohorts do not contain identical pairs",
    )


# --- comparable fingerprints ------------------------------------------------------------------


def test_identical_comparison_fingerprints_are_comparable() -> None:
    assert pair_codes(promote([baseline(), candidate()])) == []


@pytest.mark.parametrize("name", COMPARED)
def test_a_candidate_with_one_other_comparison_fingerprint_is_not_comparable(name: str) -> None:
    verdict = promote([baseline(), candidate(fingerprint_overrides={name: OTHER})])

    assert pair_codes(verdict) == ["comparison_fingerprint_mismatch"]
    assert not verdict.passed


@pytest.mark.parametrize("name", COMPARED)
def test_a_baseline_with_one_other_comparison_fingerprint_is_not_comparable(name: str) -> None:
    verdict = promote([baseline(fingerprint_overrides={name: OTHER}), candidate()])

    assert pair_codes(verdict) == ["comparison_fingerprint_mismatch"]


@pytest.mark.parametrize("name", ["config", "index"])
def test_config_and_index_fingerprints_may_differ(name: str) -> None:
    verdict = promote([baseline(), candidate(fingerprint_overrides={name: OTHER})])

    assert (verdict.passed, verdict.failures) == (True, ())


@pytest.mark.parametrize(("field", "other"), [("seed", 1), ("agentId", "other-agent-v1")])
def test_a_hand_made_pair_of_two_seeds_or_agents_is_not_comparable(field: str, other: Any) -> None:
    cand = candidate(**{field: other})

    verdict = judge(pair_of(baseline(), cand, replay_for(cand)))

    assert pair_codes(verdict) == ["comparison_fingerprint_mismatch"]


# --- identity of the pair, its adapters and its scores ----------------------------------------


def test_a_pair_given_twice_is_a_duplicate_the_second_time() -> None:
    pair = pair_of(baseline(), candidate(), replay_for(candidate()))

    verdict = judge(pair, pair)

    # Only the first counts, so the cohort is not fully valid: no unsupported-claim comparison.
    assert verdict.failures == (
        f"duplicate_pair:{PAIR}",
        "unsupported_claims_not_strictly_reduced_or_zero_denominator",
    )
    assert verdict.pairCount == 2


@pytest.mark.parametrize("field", ["taskId", "trialId", "lifecycle"])
def test_a_pair_whose_receipts_name_another_pair_is_an_identity_mismatch(field: str) -> None:
    other = {"taskId": "t0000001", "trialId": "fixture-09", "lifecycle": "warm"}[field]
    pair = pair_of(baseline(), candidate(), replay_for(candidate()), **{field: other})

    verdict = judge(pair)

    assert verdict.failures[0].startswith("pair_identity_mismatch:")
    assert verdict.metrics.agentCallReduction is None


@pytest.mark.parametrize("side", ["baseline", "candidate"])
def test_one_side_naming_another_pair_is_an_identity_mismatch(side: str) -> None:
    base = baseline(trial="fixture-09") if side == "baseline" else baseline()
    cand = candidate(trial="fixture-09") if side == "candidate" else candidate()

    verdict = judge(pair_of(base, cand, replay_for(cand), trialId="fixture-01"))

    assert pair_codes(verdict) == ["pair_identity_mismatch"]


@pytest.mark.parametrize(
    ("baseline_adapter", "candidate_adapter"), [("mcp-reference", CANDIDATE), (BASELINE, "oracle")]
)
def test_a_pair_of_other_adapters_than_the_promotion_names_is_an_adapter_mismatch(
    baseline_adapter: str, candidate_adapter: str
) -> None:
    pair = pair_of(baseline(), candidate(), replay_for(candidate()))

    verdict = judge(pair, baseline_adapter=baseline_adapter, candidate_adapter=candidate_adapter)

    assert pair_codes(verdict) == ["adapter_identity_mismatch"]


@pytest.mark.parametrize("side", ["baseline", "candidate"])
def test_a_score_recorded_for_another_pair_is_a_score_identity_mismatch(side: str) -> None:
    own = baseline() if side == "baseline" else candidate()
    other = baseline(trial="fixture-09") if side == "baseline" else candidate(trial="fixture-09")
    misfiled = ScoredPair(own.receipt, score_record(other.receipt, own.score.score))
    records = [misfiled, candidate()] if side == "baseline" else [baseline(), misfiled]

    assert pair_codes(promote(records)) == [f"{side}_score_identity_mismatch"]


@pytest.mark.parametrize("side", ["baseline", "candidate"])
def test_a_score_of_another_task_is_a_score_identity_mismatch(side: str) -> None:
    other_task = plain_score(task_id="t0000001")
    records = [
        baseline(score=other_task) if side == "baseline" else baseline(),
        candidate(score=other_task) if side == "candidate" else candidate(),
    ]

    assert pair_codes(promote(records)) == [f"{side}_score_identity_mismatch"]


@pytest.mark.parametrize("side", ["baseline", "candidate"])
def test_an_unscored_side_makes_the_pair_invalid(side: str) -> None:
    records = [baseline(scored=side != "baseline"), candidate(scored=side != "candidate")]

    assert pair_codes(promote(records)) == ["unscored_or_harness_failed_pair"]


@pytest.mark.parametrize("side", ["baseline", "candidate"])
def test_a_harness_failed_side_makes_the_pair_invalid(side: str) -> None:
    failed = {"failure_class": "harness_error", "failure_code": "cold_trial_setup_failed"}
    records = [
        baseline(**failed) if side == "baseline" else baseline(),
        candidate(**failed) if side == "candidate" else candidate(),
    ]

    assert pair_codes(promote(records)) == ["unscored_or_harness_failed_pair"]


@pytest.mark.parametrize("failure_class", ["agent_error", "product_error"])
def test_an_agent_or_product_failure_is_still_a_valid_pair(failure_class: str) -> None:
    failed = {"failure_class": failure_class, "failure_code": "tool_timeout"}

    assert pair_codes(promote([baseline(**failed), candidate()])) == []


def test_every_failing_check_of_a_pair_is_named_in_the_contracts_order() -> None:
    base = baseline(scored=False, fingerprint_overrides={"model": OTHER})
    cand = candidate(score=plain_score(task_id="t0000001"))

    verdict = judge(pair_of(base, cand, replay_for(cand)), baseline_adapter="mcp-reference")

    assert pair_codes(verdict) == [
        "adapter_identity_mismatch",
        "comparison_fingerprint_mismatch",
        "candidate_score_identity_mismatch",
        "unscored_or_harness_failed_pair",
    ]


# --- Capsule replay ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "other"),
    [
        ("taskId", "t0000001"),
        ("trialId", "fixture-09"),
        ("seed", 7),
        ("lifecycle", "warm"),
        ("agentId", "other-agent-v1"),
    ],
)
def test_a_replay_of_another_pair_is_a_replay_identity_mismatch(field: str, other: Any) -> None:
    cand = candidate()

    verdict = judge(pair_of(baseline(), cand, replay_for(cand, **{field: other})))

    assert pair_codes(verdict) == ["capsule_replay_identity_mismatch"]


def test_a_capsule_replay_is_no_replay_of_another_candidate_adapter() -> None:
    cand = scored("capsule-next", agent_calls=75, visible_bytes=65, calls=[bundle_call()])

    verdict = judge(pair_of(baseline(), cand, replay_for(cand)), candidate_adapter="capsule-next")

    assert pair_codes(verdict) == ["capsule_replay_identity_mismatch"]


def test_a_candidate_without_a_delivered_bundle_has_no_payload_to_replay() -> None:
    cand = candidate(calls=[bundle_call(delivered=False)])

    assert pair_codes(promote([baseline(), cand])) == [
        "candidate_capsule_payload_missing_or_ambiguous"
    ]


def test_a_candidate_with_two_bundles_has_an_ambiguous_payload() -> None:
    cand = candidate(calls=[bundle_call(0), bundle_call(1)])

    assert pair_codes(promote([baseline(), cand])) == [
        "candidate_capsule_payload_missing_or_ambiguous"
    ]


def test_a_bundle_that_is_not_evidence_does_not_count_as_the_payload() -> None:
    cand = candidate(calls=[make_call(0)])

    assert pair_codes(promote([baseline(), cand])) == [
        "candidate_capsule_payload_missing_or_ambiguous"
    ]


def test_a_replay_whose_first_run_differs_from_the_delivered_payload_mismatches() -> None:
    other = replay_payload(payload_text(capsule_projection(id="c" * 64)))
    cand = candidate()

    verdict = promote([baseline(), cand], [replay_for(cand, first=other, second=other)])

    assert pair_codes(verdict) == ["capsule_replay_first_payload_mismatch"]


def test_a_replay_whose_first_hash_is_not_the_payloads_mismatches() -> None:
    text = payload_text()
    wrong_hash = replay_payload(text).model_copy(update={"sha256": HASH_A})
    cand = candidate()

    verdict = promote([baseline(), cand], [replay_for(cand, first=wrong_hash, second=wrong_hash)])

    assert pair_codes(verdict) == [
        "capsule_replay_first_payload_mismatch",
        "invalid_capsule_payload_replay",
    ]


def test_a_malformed_payload_replayed_alike_is_invalid() -> None:
    malformed = replay_payload(payload_text(capsule_projection(trust="trusted")))
    cand = candidate(calls=[bundle_call(payload=malformed.canonicalJson)])

    verdict = promote([baseline(), cand], [replay_for(cand, first=malformed, second=malformed)])

    assert pair_codes(verdict) == ["invalid_capsule_payload_replay"]


def test_a_malformed_second_run_is_invalid_rather_than_nondeterministic() -> None:
    malformed = replay_payload(payload_text(capsule_projection(trust="trusted")))
    cand = candidate()

    verdict = promote([baseline(), cand], [replay_for(cand, second=malformed)])

    assert pair_codes(verdict) == ["invalid_capsule_payload_replay"]


def test_two_different_well_formed_replays_are_nondeterministic() -> None:
    other = replay_payload(payload_text(capsule_projection(id="c" * 64)))
    cand = candidate()

    verdict = promote([baseline(), cand], [replay_for(cand, second=other)])

    assert pair_codes(verdict) == ["nondeterministic_capsule_payload"]


def test_a_pair_failing_only_its_replay_counts_toward_no_total() -> None:
    other = replay_payload(payload_text(capsule_projection(id="c" * 64)))
    cand = candidate()

    verdict = promote([baseline(), cand], [replay_for(cand, second=other)])

    assert verdict.metrics.agentCallReduction is None
    assert verdict.metrics.baselineUnsupportedClaims is None
