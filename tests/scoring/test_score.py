"""Per-receipt scoring (contract v1.0, section 6, steps 1-14)."""

from __future__ import annotations

from typing import Any

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


def search_call(index: int, arguments: dict[str, Any], evidence: list[Any] | None = None) -> Any:
    result = make_result(evidence or [], role="candidates", content="[]")
    return make_call(index, result, tool="search", arguments=arguments)


def test_a_correct_cited_observed_claim_is_supported_and_succeeds() -> None:
    result = score(make_receipt())
    assert result.supportedClaims == ("owner",)
    assert (result.success, result.completed, result.prematureStop) == (1, True, False)
    assert (result.substantiveClaims, result.linkedSupportedClaims) == (1, 1)
    assert result.invalidOutputs == ()


def test_a_wrong_value_is_unsupported() -> None:
    receipt = make_receipt(envelope=make_envelope([make_claim(value="Data Science")]))
    result = score(receipt)
    assert result.unsupportedClaims == ("owner",)
    assert result.unsupportedSubstantiveClaims == ("owner",)
    assert (result.success, result.linkedSupportedClaims) == (0, 0)


def test_a_claim_missing_required_evidence_is_unsupported() -> None:
    calls = [make_call(0, make_result([OWNER, REVIEW]))]
    envelope = make_envelope([make_claim(citations=[REVIEW])])
    assert score(make_receipt(calls, envelope)).unsupportedClaims == ("owner",)


def test_a_citation_never_delivered_is_unsupported() -> None:
    calls = [make_call(0, make_result([REVIEW]))]
    result = score(make_receipt(calls))
    assert result.unsupportedClaims == ("owner",)
    assert result.success == 0


def test_evidence_of_an_undelivered_call_is_not_observed() -> None:
    timed_out = make_call(1, make_result([OWNER]), delivered=False, failure_code="tool_timeout")
    receipt = make_receipt([search_call(0, {"query": "owner"}), timed_out])
    assert score(receipt).unsupportedClaims == ("owner",)


def test_citing_forbidden_evidence_is_unsupported_and_reported() -> None:
    draft = line_evidence(3, "Owner: Draft Team", uri="gno://c001/draft.md")
    oracle_claims = [oracle_claim(forbidden=[draft])]
    calls = [make_call(0, make_result([OWNER, draft]))]
    envelope = make_envelope([make_claim(citations=[OWNER, draft])])
    result = score(make_receipt(calls, envelope), claims=oracle_claims)
    assert result.forbiddenEvidenceClaims == ("owner",)
    assert result.unsupportedClaims == ("owner",)


def test_a_backend_provided_citation_is_not_the_observed_line() -> None:
    asserted = line_evidence(provenance="backend_provided")
    calls = [make_call(0, make_result([asserted]))]
    envelope = make_envelope([make_claim(citations=[asserted])])
    assert score(make_receipt(calls, envelope)).unsupportedClaims == ("owner",)


def test_hidden_bundle_evidence_counts_as_observed() -> None:
    bundle = make_result([OWNER], role="evidence_bundle", content='{"evidence":[]}')
    calls = [make_call(0, bundle, tool="search", arguments={"query": "owner"})]
    assert score(make_receipt(calls)).supportedClaims == ("owner",)


def test_a_correct_abstention_succeeds_with_its_claim_still_missing() -> None:
    receipt = make_receipt([search_call(0, {"query": "owner"})], abstention_envelope())
    result = score(receipt, claims=[], expected_missing=("owner",), expect_abstention=True)
    assert (result.correctAbstention, result.completed, result.success) == (True, True, 1)
    assert result.missingRequiredClaims == ("owner",)


def test_an_abstention_needs_a_missing_evidence_gap() -> None:
    envelope = make_envelope(
        [],
        [{"claimKey": "owner", "reason": "budget_exhausted"}],
        abstained=True,
        stop_reason="abstained",
    )
    receipt = make_receipt([search_call(0, {"query": "owner"})], envelope)
    result = score(receipt, claims=[], expected_missing=("owner",), expect_abstention=True)
    assert (result.correctAbstention, result.success) == (False, 0)


def test_answering_an_abstention_task_fails() -> None:
    result = score(make_receipt(), claims=[], expected_missing=("owner",), expect_abstention=True)
    assert (result.correctAbstention, result.completed, result.success) == (False, False, 0)


def test_stopping_complete_with_a_gap_is_a_premature_stop() -> None:
    envelope = make_envelope([], [{"claimKey": "owner", "reason": "missing_evidence"}])
    result = score(make_receipt(envelope=envelope))
    assert result.missingRequiredClaims == ("owner",)
    assert (result.prematureStop, result.completed, result.success) == (True, False, 0)


def test_stopping_on_budget_with_a_gap_is_not_premature() -> None:
    envelope = make_envelope(
        [], [{"claimKey": "owner", "reason": "budget_exhausted"}], stop_reason="budget_exhausted"
    )
    result = score(make_receipt(envelope=envelope))
    assert (result.prematureStop, result.success) == (False, 0)


def test_more_calls_than_the_oracle_allows_is_an_unnecessary_read() -> None:
    receipt = make_receipt([search_call(0, {"query": "owner"}), make_call(1)])
    result = score(receipt, max_calls=1)
    assert (result.unnecessaryRead, result.completed, result.success) == (True, True, 0)


def test_more_bytes_than_the_oracle_allows_is_an_unnecessary_read() -> None:
    receipt = make_receipt()
    result = score(receipt, max_bytes=receipt.modelVisibleUtf8Bytes - 1)
    assert (result.unnecessaryRead, result.success) == (True, 0)


def test_unexpected_delivered_evidence_is_an_unnecessary_read_when_the_oracle_says_so() -> None:
    receipt = make_receipt([make_call(0, make_result([OWNER, REVIEW]))])
    assert score(receipt, fail_on_unexpected=True).unnecessaryRead is True
    assert score(receipt, fail_on_unexpected=False).unnecessaryRead is False


def test_optional_evidence_is_expected_evidence() -> None:
    receipt = make_receipt([make_call(0, make_result([OWNER, REVIEW]))])
    claims = [oracle_claim(optional=[REVIEW])]
    result = score(receipt, claims=claims, fail_on_unexpected=True)
    assert (result.unnecessaryRead, result.success) == (False, 1)


def test_the_expected_collection_must_be_searched() -> None:
    good = make_receipt([search_call(0, {"query": "q", "collection": "c001"}), make_call(1)])
    bad = make_receipt([search_call(0, {"query": "q"}), make_call(1)])
    assert score(good, collection="c001").collectionCorrect is True
    assert score(bad, collection="c001").collectionCorrect is False
    assert score(bad, collection="c001").success == 0


def test_filters_match_as_arguments_or_inside_the_filters_object() -> None:
    direct = make_receipt([search_call(0, {"query": "q", "lang": "de"}), make_call(1)])
    nested = make_receipt([search_call(0, {"query": "q", "filters": {"lang": "de"}}), make_call(1)])
    assert score(direct, filters={"lang": "de"}).filtersCorrect is True
    assert score(nested, filters={"lang": "de"}).filtersCorrect is True
    assert score(nested, filters={"lang": "fr"}).filtersCorrect is False


def test_every_filter_must_hold_on_one_call() -> None:
    calls = [
        search_call(0, {"query": "q", "filters": {"lang": "de"}}),
        search_call(1, {"query": "q", "filters": {"year": 2026}}),
        make_call(2),
    ]
    result = score(make_receipt(calls), filters={"lang": "de", "year": 2026})
    assert result.filtersCorrect is False


def test_a_filter_value_compares_strictly() -> None:
    receipt = make_receipt([search_call(0, {"query": "q", "filters": {"draft": 1}}), make_call(1)])
    assert score(receipt, filters={"draft": True}).filtersCorrect is False


def test_a_harness_error_is_excluded_not_scored() -> None:
    receipt = make_receipt(
        [], None, failure_class="harness_error", failure_code="cold_trial_setup_failed"
    )
    result = score(receipt)
    assert (result.scored, result.exclusionReason, result.success) == (False, "harness_error", 0)
    assert result.missingRequiredClaims == ("owner",)
    assert result.invalidOutputs == ()


def test_a_null_envelope_after_an_agent_error_is_invalid_output() -> None:
    timed_out = make_call(0, make_result(), delivered=False, failure_code="agent_timeout")
    receipt = make_receipt(
        [timed_out], None, failure_class="agent_error", failure_code="agent_timeout"
    )
    result = score(receipt)
    assert (result.scored, result.success) == (True, 0)
    assert result.invalidOutputs == (
        "invalid_final_envelope:final-envelope schema validation failed: / type must be object",
    )


def test_envelope_schema_errors_make_the_envelope_invalid() -> None:
    result = score_receipt(
        make_receipt(),
        make_task(),
        make_oracle(),
        envelope_schema_errors=lambda raw: (
            ["/b x", "/a y"] if isinstance(raw, dict) and raw["claims"] else []
        ),
    )
    assert result.invalidOutputs == (
        "invalid_final_envelope:final-envelope schema validation failed: /a y; /b x",
    )


def test_a_receipt_for_another_task_is_an_identity_mismatch() -> None:
    receipt = make_receipt(task_id="t0000001")
    result = score(receipt)
    assert (result.scored, result.invalidOutputs) == (True, ("task_identity_mismatch",))


def test_semantic_and_accounting_issues_are_invalid_outputs() -> None:
    envelope = make_envelope([make_claim(), make_claim("extra")])
    receipt = make_receipt(envelope=envelope, backendInvocations=5)
    result = score(receipt)
    assert result.invalidOutputs == ("backend_invocations_mismatch", "extra_claim:extra")
    assert result.supportedClaims == ("owner",)
    assert (result.completed, result.prematureStop, result.success) == (False, True, 0)


def test_claim_lists_follow_the_oracle_claim_order() -> None:
    task = make_task([claim_definition("zeta"), claim_definition("alpha")])
    oracle = make_oracle([oracle_claim("zeta"), oracle_claim("alpha")])
    envelope = make_envelope([make_claim("alpha", "wrong"), make_claim("zeta", "wrong")])
    result = score_receipt(make_receipt(envelope=envelope), task, oracle)
    assert result.unsupportedClaims == ("zeta", "alpha")


def test_a_non_substantive_claim_is_not_linked() -> None:
    task = make_task([claim_definition(substantive=False)])
    result = score_receipt(make_receipt(), task, make_oracle())
    assert (result.supportedClaims, result.substantiveClaims, result.linkedSupportedClaims) == (
        ("owner",),
        0,
        0,
    )
