"""Details of one score (``scoring/score.py``) that the step-by-step tests in ``test_score.py``
leave open: the full zero score of an invalid pair, the oracle's budgets at their boundary,
counting several claims, the oracle's normalizer, claim order and abstention with invalid
output."""

from __future__ import annotations

from agentic.scoring.score import score_receipt
from tests.support.scoring import (
    abstention_envelope,
    claim_definition,
    line_evidence,
    make_call,
    make_claim,
    make_envelope,
    make_oracle,
    make_receipt,
    make_result,
    make_task,
    oracle_claim,
    score,
)

OWNER = line_evidence(3, "Owner: Data Platform")
REVIEW = line_evidence(4, "Reviewed yearly.")
ZERO_FLAGS = {
    "success": 0,
    "completed": False,
    "supportedClaims": [],
    "unsupportedClaims": [],
    "unsupportedSubstantiveClaims": [],
    "forbiddenEvidenceClaims": [],
    "correctAbstention": False,
    "prematureStop": False,
    "unnecessaryRead": False,
    "collectionCorrect": False,
    "filtersCorrect": False,
    "substantiveClaims": 0,
    "linkedSupportedClaims": 0,
}


def test_an_invalid_pair_scores_zero_on_every_count_and_flag() -> None:
    result = score(make_receipt(task_id="t0000001"))

    assert result.to_json() == {
        "taskId": "t0a1b2c3",
        "scored": True,
        "exclusionReason": None,
        "missingRequiredClaims": ["owner"],
        "invalidOutputs": ["task_identity_mismatch"],
        **ZERO_FLAGS,
    }


def test_a_harness_error_is_excluded_with_its_reason_and_scores_zero() -> None:
    receipt = make_receipt([], None, failure_class="harness_error", failure_code="x")

    assert score(receipt).to_json() == {
        "taskId": "t0a1b2c3",
        "scored": False,
        "exclusionReason": "harness_error",
        "missingRequiredClaims": ["owner"],
        "invalidOutputs": [],
        **ZERO_FLAGS,
    }


def test_exactly_the_oracles_call_budget_is_no_unnecessary_read() -> None:
    receipt = make_receipt()

    assert score(receipt, max_calls=receipt.agentCalls).unnecessaryRead is False


def test_exactly_the_oracles_byte_budget_is_no_unnecessary_read() -> None:
    receipt = make_receipt()

    assert score(receipt, max_bytes=receipt.modelVisibleUtf8Bytes).unnecessaryRead is False


def test_every_substantive_claim_is_counted_and_linked() -> None:
    task = make_task([claim_definition("owner"), claim_definition("review")])
    oracle = make_oracle(
        [oracle_claim(), oracle_claim("review", "Reviewed yearly.", required=[REVIEW])]
    )
    envelope = make_envelope(
        [make_claim(), make_claim("review", "Reviewed yearly.", citations=[REVIEW])]
    )
    receipt = make_receipt([make_call(0, make_result([OWNER, REVIEW]))], envelope)

    result = score_receipt(receipt, task, oracle)

    assert result.supportedClaims == ("owner", "review")
    assert (result.substantiveClaims, result.linkedSupportedClaims) == (2, 2)


def test_values_compare_under_the_oracles_normalizer() -> None:
    claims = [oracle_claim(value="data platform", normalizer="trim-lower-v1")]

    assert score(make_receipt(), claims=claims).supportedClaims == ("owner",)


def test_a_missing_claim_does_not_stop_the_judging_of_the_next() -> None:
    task = make_task([claim_definition("owner"), claim_definition("review", required=False)])
    oracle = make_oracle(
        [oracle_claim("review", "Reviewed yearly.", required=[REVIEW]), oracle_claim()]
    )

    result = score_receipt(make_receipt(), task, oracle)

    assert result.supportedClaims == ("owner",)


def test_missing_required_claims_follow_the_oracle_order() -> None:
    task = make_task([claim_definition("alpha"), claim_definition("zeta")])
    oracle = make_oracle([oracle_claim("zeta"), oracle_claim("alpha")])
    envelope = make_envelope(
        [],
        [
            {"claimKey": "alpha", "reason": "missing_evidence"},
            {"claimKey": "zeta", "reason": "missing_evidence"},
        ],
    )

    result = score_receipt(make_receipt(envelope=envelope), task, oracle)

    assert result.missingRequiredClaims == ("zeta", "alpha")


def test_an_oracle_claim_the_task_does_not_define_is_ignored() -> None:
    oracle = make_oracle([oracle_claim("ghost"), oracle_claim()])

    result = score_receipt(make_receipt(), make_task(), oracle)

    assert (result.supportedClaims, result.missingRequiredClaims) == (("owner",), ())


def test_an_abstention_with_invalid_output_is_no_correct_abstention() -> None:
    search = make_call(0, make_result([], role="candidates", content="[]"), tool="search")
    receipt = make_receipt([search], abstention_envelope(), backendInvocations=7)

    result = score(receipt, claims=[], expected_missing=("owner",), expect_abstention=True)

    assert result.invalidOutputs == ("backend_invocations_mismatch",)
    assert (result.correctAbstention, result.success) == (False, 0)


def test_a_judged_pair_is_scored() -> None:
    assert score(make_receipt()).scored is True


def test_a_call_charged_other_than_its_visible_bytes_is_invalid_output() -> None:
    overcharged = make_call(0, charged=1)

    result = score(make_receipt([overcharged]))

    assert result.invalidOutputs == ("call_model_visible_bytes_mismatch",)
