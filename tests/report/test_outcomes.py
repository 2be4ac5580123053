"""Why a pair failed: each missed term of the success condition, named as report.json names it."""

from __future__ import annotations

from typing import Any

from agentic.contract.report import TaskScore
from agentic.report.outcomes import MAX_INVALID_CHARS, missed_terms
from tests.support.scoring import abstention_envelope, make_envelope, make_receipt, plain_score


def score(**fields: Any) -> TaskScore:
    return plain_score().model_copy(update=fields)


def test_a_success_misses_no_term() -> None:
    assert missed_terms(make_receipt(), score()) == ()


def test_a_failed_receipt_is_named_by_its_code_alone() -> None:
    # Its unmet terms (no envelope, so not completed; no search, so not collectionCorrect) are
    # consequences of the failure, and listing them would hide the one real cause.
    receipt = make_receipt(failure_class="agent_error", failure_code="malformed_agent_json")
    missed = score(success=0, completed=False, collectionCorrect=False, invalidOutputs=("x",))
    assert missed_terms(receipt, missed) == ("failure malformed_agent_json",)


def test_an_unscored_harness_error_names_only_its_code() -> None:
    receipt = make_receipt(failure_class="harness_error", failure_code="invalid_tool_result")
    unscored = plain_score(success=0, scored=False)
    assert missed_terms(receipt, unscored) == ("failure invalid_tool_result",)


def test_an_incomplete_answer_lists_its_missing_unsupported_and_forbidden_claims() -> None:
    failed = score(
        success=0,
        completed=False,
        missingRequiredClaims=("due",),
        unsupportedClaims=("owner", "site"),
        forbiddenEvidenceClaims=("owner",),
    )
    assert missed_terms(make_receipt(), failed) == (
        "incomplete: missing due; unsupported owner,site; forbidden evidence owner",
    )


def test_a_long_invalid_output_is_cut_and_the_rest_counted() -> None:
    long = "invalid_final_envelope:" + "x" * 100
    failed = score(success=0, completed=False, invalidOutputs=(long, "second"))
    (term,) = missed_terms(make_receipt(), failed)
    shown = term.removeprefix("incomplete: invalid ").removesuffix(" (+1 more)")
    assert len(shown) == MAX_INVALID_CHARS and shown.endswith("…")


def test_an_answer_to_an_abstention_task_says_an_abstention_was_expected() -> None:
    failed = score(success=0, completed=False)
    assert missed_terms(make_receipt(envelope=make_envelope()), failed) == (
        "incomplete: answered where an abstention was expected",
    )


def test_an_abstention_where_an_answer_was_due_names_the_stop() -> None:
    failed = score(success=0, completed=False)
    receipt = make_receipt(envelope=abstention_envelope())
    assert missed_terms(receipt, failed) == ("incomplete: stopReason abstained, abstained",)


def test_each_other_missed_term_is_named_by_its_field_in_the_conditions_order() -> None:
    failed = score(success=0, unnecessaryRead=True, collectionCorrect=False, filtersCorrect=False)
    assert missed_terms(make_receipt(), failed) == (
        "unnecessaryRead",
        "not collectionCorrect",
        "not filtersCorrect",
    )
