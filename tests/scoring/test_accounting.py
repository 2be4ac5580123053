"""Receipt accounting checks (contract v1.0, "Receipt validity checks")."""

from __future__ import annotations

from agentic.contract.accounting import accounting_issues
from agentic.contract.receipt import Call, CanonicalReceipt
from agentic.tools import visible_bytes
from tests.support.scoring import (
    HASH_A,
    HASH_B,
    line_evidence,
    make_call,
    make_envelope,
    make_receipt,
    make_result,
)


def issues(receipt: CanonicalReceipt) -> list[str]:
    return accounting_issues(receipt, call_bytes=visible_bytes)


def undelivered(index: int, code: str = "agent_call_budget_exceeded") -> Call:
    return make_call(index, make_result(), delivered=False, failure_code=code)


def test_consistent_receipt_has_no_issues() -> None:
    assert issues(make_receipt([make_call(0), make_call(1)])) == []


def test_agent_calls_must_count_every_call() -> None:
    assert issues(make_receipt([make_call(0)], agentCalls=2)) == ["agent_calls_mismatch"]


def test_call_indexes_must_follow_array_positions() -> None:
    receipt = make_receipt([make_call(0), make_call(2)])
    assert issues(receipt) == ["call_index_sequence_invalid"]


def test_backend_invocations_must_sum_the_calls() -> None:
    receipt = make_receipt([make_call(0, backend=2)], backendInvocations=1)
    assert issues(receipt) == ["backend_invocations_mismatch"]


def test_model_visible_bytes_must_sum_the_calls() -> None:
    receipt = make_receipt([make_call(0)], modelVisibleUtf8Bytes=1)
    assert issues(receipt) == ["model_visible_bytes_mismatch"]


def test_each_delivered_call_is_charged_its_projected_bytes() -> None:
    call = make_call(0, charged=visible_bytes(make_result([line_evidence()])) - 1)
    assert issues(make_receipt([call])) == ["call_model_visible_bytes_mismatch"]


def test_an_undelivered_call_is_charged_nothing() -> None:
    call = make_call(1, delivered=False, failure_code="tool_timeout", charged=5)
    receipt = make_receipt(
        [make_call(0), call], None, failure_class="product_error", failure_code="tool_timeout"
    )
    assert issues(receipt) == ["call_model_visible_bytes_mismatch"]


def test_per_call_bytes_are_not_checked_without_a_projection() -> None:
    call = make_call(0, charged=1)
    assert accounting_issues(make_receipt([call])) == []


def test_a_delivered_call_carries_no_failure_code() -> None:
    call = make_call(0, failure_code="tool_timeout")
    assert issues(make_receipt([call])) == ["call_delivery_failure_invariant"]


def test_an_undelivered_call_needs_a_failure_code() -> None:
    call = make_call(0, delivered=False, failure_code=" ")
    receipt = make_receipt([call], None, failure_class="agent_error", failure_code=" ")
    assert issues(receipt) == ["call_delivery_failure_invariant"]


def test_an_undelivered_call_was_never_tokenized() -> None:
    call = make_call(0, delivered=False, failure_code="tool_timeout", tokens=3, tokenizer=HASH_A)
    receipt = make_receipt([call], None, failure_class="product_error", failure_code="tool_timeout")
    assert issues(receipt) == ["call_delivery_failure_invariant"]


def test_the_undelivered_call_must_be_the_last() -> None:
    code = "agent_call_budget_exceeded"
    receipt = make_receipt(
        [undelivered(0), make_call(1)], None, failure_class="agent_error", failure_code=code
    )
    assert issues(receipt) == ["undelivered_call_failure_mismatch"]


def test_at_most_one_call_is_undelivered() -> None:
    code = "agent_call_budget_exceeded"
    receipt = make_receipt(
        [undelivered(0), undelivered(1)], None, failure_class="agent_error", failure_code=code
    )
    assert issues(receipt) == ["undelivered_call_failure_mismatch"]


def test_the_undelivered_call_names_the_receipt_failure() -> None:
    receipt = make_receipt(
        [make_call(0), undelivered(1)],
        None,
        failure_class="agent_error",
        failure_code="agent_timeout",
    )
    assert issues(receipt) == ["undelivered_call_failure_mismatch"]


def test_an_undelivered_call_requires_a_failed_receipt() -> None:
    receipt = make_receipt([make_call(0), undelivered(1)])
    assert issues(receipt) == ["undelivered_call_failure_mismatch"]


def test_measured_tokens_sum_the_delivered_calls() -> None:
    calls = [make_call(0, tokens=5, tokenizer=HASH_A), make_call(1, tokens=7, tokenizer=HASH_A)]
    assert issues(make_receipt(calls)) == []
    assert issues(make_receipt(calls, measuredTokens=11)) == ["measured_tokens_mismatch"]


def test_measured_tokens_must_be_null_when_a_delivered_call_is_unmeasured() -> None:
    calls = [make_call(0, tokens=5, tokenizer=HASH_A), make_call(1)]
    assert issues(make_receipt(calls)) == []
    assert issues(make_receipt(calls, measuredTokens=5)) == ["measured_tokens_mismatch"]


def test_measured_tokens_must_be_set_when_every_delivered_call_is_measured() -> None:
    calls = [make_call(0, tokens=5, tokenizer=HASH_A)]
    assert issues(make_receipt(calls, measuredTokens=None)) == ["measured_tokens_mismatch"]


def test_measured_tokens_must_be_null_without_delivered_calls() -> None:
    receipt = make_receipt([], make_envelope([], abstained=True, stop_reason="abstained"))
    assert issues(receipt.model_copy(update={"measuredTokens": 0})) == ["measured_tokens_mismatch"]


def test_a_measured_call_names_its_tokenizer() -> None:
    receipt = make_receipt([make_call(0, tokens=5)])
    assert issues(receipt) == ["tokenizer_fingerprint_missing"]


def test_an_unmeasured_call_names_no_tokenizer() -> None:
    receipt = make_receipt([make_call(0, tokenizer=HASH_A)])
    assert issues(receipt) == ["unexpected_tokenizer_fingerprint"]


def test_all_calls_share_one_tokenizer() -> None:
    calls = [make_call(0, tokens=1, tokenizer=HASH_A), make_call(1, tokens=1, tokenizer=HASH_B)]
    assert issues(make_receipt(calls)) == ["tokenizer_fingerprint_mismatch"]


def test_stop_reason_equals_the_envelope_stop_reason() -> None:
    receipt = make_receipt(stopReason="budget_exhausted")
    assert issues(receipt) == ["stop_reason_mismatch"]


def test_no_failure_carries_no_code_or_message() -> None:
    failure = {"class": "none", "code": "x", "redactedMessage": None}
    assert issues(make_receipt(failure=failure)) == ["failure_payload_invariant_invalid"]
    failure = {"class": "none", "code": None, "redactedMessage": "x"}
    assert issues(make_receipt(failure=failure)) == ["failure_payload_invariant_invalid"]


def test_a_failure_carries_a_code() -> None:
    receipt = make_receipt([make_call(0)], None, failure_class="agent_error", failure_code=None)
    assert issues(receipt) == ["failure_payload_invariant_invalid"]


def test_a_null_envelope_requires_a_failure() -> None:
    receipt = make_receipt([make_call(0)], None)
    assert issues(receipt) == ["failure_envelope_invariant_invalid"]


def test_a_null_envelope_requires_stop_reason_error() -> None:
    receipt = make_receipt(
        [make_call(0)],
        None,
        failure_class="agent_error",
        failure_code="agent_timeout",
        stopReason="complete",
    )
    assert issues(receipt) == ["failure_envelope_invariant_invalid"]


def test_an_envelope_requires_no_failure() -> None:
    receipt = make_receipt(failure_class="agent_error", failure_code="agent_timeout")
    assert issues(receipt) == ["failure_envelope_invariant_invalid"]


def test_issues_come_in_the_contract_check_order() -> None:
    receipt = make_receipt(
        [make_call(1, tokens=1)], agentCalls=3, stopReason="abstained", backendInvocations=9
    )
    assert issues(receipt) == [
        "agent_calls_mismatch",
        "call_index_sequence_invalid",
        "backend_invocations_mismatch",
        "tokenizer_fingerprint_missing",
        "stop_reason_mismatch",
    ]
