"""Receipt accounting checks: each total or invariant that disagrees with the calls is one code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agentic.contract.accounting import accounting_issues
from agentic.contract.json_access import object_at
from agentic.contract.receipt import CanonicalReceipt, ToolResult
from tests.support import documents as docs

HASH_C = "c" * 64


def canonical() -> dict[str, Any]:
    """The canonical part of the documents' receipt: one delivered call, totals that agree."""
    result: dict[str, Any] = object_at(docs.receipt(), "canonical")
    return result


def call(index: int, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = canonical()["calls"][0]
    return {**base, "callIndex": index, **fields}


def undelivered(index: int, code: str = "context_byte_budget_exceeded") -> dict[str, Any]:
    return call(
        index,
        deliveredToAgent=False,
        failureCode=code,
        modelVisibleUtf8Bytes=0,
        backendInvocations=0,
    )


def failed(receipt: dict[str, Any], code: str, failure_class: str = "agent_error") -> None:
    receipt["failure"] = {"class": failure_class, "code": code, "redactedMessage": None}
    receipt["finalEnvelope"] = None
    receipt["stopReason"] = "error"


def issues(
    receipt: dict[str, Any], call_bytes: Callable[[ToolResult], int] | None = None
) -> list[str]:
    return accounting_issues(CanonicalReceipt.model_validate(receipt), call_bytes=call_bytes)


def test_a_consistent_receipt_has_no_issue() -> None:
    assert issues(canonical()) == []


def test_a_receipt_with_no_call_and_zero_totals_is_consistent() -> None:
    receipt = canonical()
    receipt.update(calls=[], agentCalls=0, backendInvocations=0, modelVisibleUtf8Bytes=0)

    assert issues(receipt) == []


def test_agent_calls_must_count_every_call() -> None:
    assert issues({**canonical(), "agentCalls": 2}) == ["agent_calls_mismatch"]


def test_an_undelivered_terminal_call_still_counts_as_an_agent_call() -> None:
    receipt = canonical()
    failed(receipt, "context_byte_budget_exceeded")
    receipt.update(calls=[call(0), undelivered(1)], agentCalls=2)

    assert issues(receipt) == []


def test_call_indexes_must_equal_array_positions() -> None:
    receipt = canonical()
    receipt.update(
        calls=[call(0), call(2)], agentCalls=2, backendInvocations=2, modelVisibleUtf8Bytes=840
    )

    assert issues(receipt) == ["call_index_sequence_invalid"]


def test_backend_invocations_must_be_the_sum_over_calls() -> None:
    assert issues({**canonical(), "backendInvocations": 3}) == ["backend_invocations_mismatch"]


def test_model_visible_bytes_must_be_the_sum_over_calls() -> None:
    assert issues({**canonical(), "modelVisibleUtf8Bytes": 421}) == ["model_visible_bytes_mismatch"]


def test_each_delivered_call_must_be_charged_its_projected_bytes() -> None:
    assert issues(canonical(), call_bytes=lambda result: 420) == []
    assert issues(canonical(), call_bytes=lambda result: 419) == [
        "call_model_visible_bytes_mismatch"
    ]


def test_an_undelivered_call_must_be_charged_nothing() -> None:
    receipt = canonical()
    failed(receipt, "context_byte_budget_exceeded")
    receipt.update(calls=[call(0), undelivered(1)], agentCalls=2)

    assert issues(receipt, call_bytes=lambda result: 420) == []


def test_without_a_byte_function_the_per_call_check_is_skipped() -> None:
    assert "call_model_visible_bytes_mismatch" not in issues(canonical())


def test_a_delivered_call_carries_no_failure_code() -> None:
    receipt = canonical()
    receipt["calls"] = [call(0, failureCode="tool_timeout")]

    assert issues(receipt) == ["call_delivery_failure_invariant"]


@pytest.mark.parametrize(
    "fields",
    [
        {"failureCode": None},
        {"failureCode": "  "},
        {"measuredTokens": 5, "tokenizerFingerprint": HASH_C},
    ],
)
def test_an_undelivered_call_names_its_failure_and_was_never_tokenized(
    fields: dict[str, Any],
) -> None:
    receipt = canonical()
    failed(receipt, "context_byte_budget_exceeded")
    receipt.update(calls=[call(0), {**undelivered(1), **fields}], agentCalls=2)

    assert "call_delivery_failure_invariant" in issues(receipt)


def test_only_the_last_call_may_be_undelivered() -> None:
    receipt = canonical()
    failed(receipt, "context_byte_budget_exceeded")
    receipt.update(calls=[undelivered(0), call(1)], agentCalls=2, modelVisibleUtf8Bytes=420)

    assert issues(receipt) == ["undelivered_call_failure_mismatch"]


def test_at_most_one_call_is_undelivered() -> None:
    receipt = canonical()
    failed(receipt, "context_byte_budget_exceeded")
    receipt.update(
        calls=[undelivered(0), undelivered(1)],
        agentCalls=2,
        backendInvocations=0,
        modelVisibleUtf8Bytes=0,
    )

    assert issues(receipt) == ["undelivered_call_failure_mismatch"]


def test_the_undelivered_call_names_the_receipt_failure_code() -> None:
    receipt = canonical()
    failed(receipt, "agent_call_budget_exceeded")
    receipt.update(calls=[call(0), undelivered(1, "context_byte_budget_exceeded")], agentCalls=2)

    assert issues(receipt) == ["undelivered_call_failure_mismatch"]


def test_an_undelivered_call_in_a_receipt_without_failure_is_a_mismatch() -> None:
    receipt = canonical()
    receipt.update(calls=[call(0), undelivered(1)], agentCalls=2)

    assert issues(receipt) == ["undelivered_call_failure_mismatch"]


def tokenized(index: int, tokens: int | None, tokenizer: str | None = HASH_C) -> dict[str, Any]:
    return call(index, measuredTokens=tokens, tokenizerFingerprint=tokenizer if tokens else None)


def test_measured_tokens_are_the_sum_when_every_delivered_call_was_measured() -> None:
    receipt = canonical()
    receipt.update(
        calls=[tokenized(0, 7), tokenized(1, 5)],
        agentCalls=2,
        backendInvocations=2,
        modelVisibleUtf8Bytes=840,
        measuredTokens=12,
    )

    assert issues(receipt) == []
    assert issues({**receipt, "measuredTokens": 11}) == ["measured_tokens_mismatch"]
    assert issues({**receipt, "measuredTokens": None}) == ["measured_tokens_mismatch"]


def test_measured_tokens_are_null_when_some_delivered_call_was_not_measured() -> None:
    receipt = canonical()
    receipt.update(
        calls=[tokenized(0, 7), tokenized(1, None)],
        agentCalls=2,
        backendInvocations=2,
        modelVisibleUtf8Bytes=840,
    )

    assert issues({**receipt, "measuredTokens": None}) == []
    assert issues({**receipt, "measuredTokens": 7}) == ["measured_tokens_mismatch"]


def test_measured_tokens_are_null_when_nothing_was_delivered() -> None:
    receipt = canonical()
    receipt.update(
        calls=[], agentCalls=0, backendInvocations=0, modelVisibleUtf8Bytes=0, measuredTokens=0
    )

    assert issues(receipt) == ["measured_tokens_mismatch"]


def test_a_measured_call_needs_its_tokenizer_fingerprint() -> None:
    receipt = canonical()
    receipt.update(calls=[call(0, measuredTokens=7, tokenizerFingerprint=None)], measuredTokens=7)

    assert issues(receipt) == ["tokenizer_fingerprint_missing"]


def test_an_unmeasured_call_has_no_tokenizer_fingerprint() -> None:
    receipt = canonical()
    receipt["calls"] = [call(0, tokenizerFingerprint=HASH_C)]

    assert issues(receipt) == ["unexpected_tokenizer_fingerprint"]


def test_all_calls_use_one_tokenizer() -> None:
    receipt = canonical()
    receipt.update(
        calls=[tokenized(0, 7), tokenized(1, 5, "d" * 64)],
        agentCalls=2,
        backendInvocations=2,
        modelVisibleUtf8Bytes=840,
        measuredTokens=12,
    )

    assert issues(receipt) == ["tokenizer_fingerprint_mismatch"]


def test_the_receipt_stop_reason_is_the_envelope_stop_reason() -> None:
    assert issues({**canonical(), "stopReason": "abstained"}) == ["stop_reason_mismatch"]


@pytest.mark.parametrize(
    "failure",
    [
        {"class": "none", "code": "tool_timeout", "redactedMessage": None},
        {"class": "none", "code": None, "redactedMessage": "boom"},
    ],
)
def test_no_failure_carries_neither_code_nor_message(failure: dict[str, Any]) -> None:
    assert issues({**canonical(), "failure": failure}) == ["failure_payload_invariant_invalid"]


def test_a_failure_needs_a_code() -> None:
    receipt = canonical()
    failed(receipt, "tool_timeout", "product_error")
    receipt["failure"]["code"] = None

    assert issues(receipt) == ["failure_payload_invariant_invalid"]


def test_a_null_envelope_needs_stop_reason_error_and_a_failure() -> None:
    receipt = canonical()
    receipt["finalEnvelope"] = None

    assert issues(receipt) == ["failure_envelope_invariant_invalid"]
    assert issues({**receipt, "stopReason": "error"}) == ["failure_envelope_invariant_invalid"]


def test_an_envelope_with_a_failure_is_invalid() -> None:
    receipt = canonical()
    receipt["failure"] = {
        "class": "agent_error",
        "code": "disallowed_tool",
        "redactedMessage": None,
    }

    assert issues(receipt) == ["failure_envelope_invariant_invalid"]


def test_a_failed_trial_without_envelope_is_consistent() -> None:
    receipt = canonical()
    failed(receipt, "invalid_final_envelope")

    assert issues(receipt) == []


def test_issues_come_in_the_contract_check_order() -> None:
    receipt = canonical()
    receipt.update(
        agentCalls=5,
        backendInvocations=9,
        modelVisibleUtf8Bytes=1,
        stopReason="abstained",
        failure={"class": "none", "code": "x", "redactedMessage": None},
    )

    assert issues(receipt, call_bytes=lambda result: 0) == [
        "agent_calls_mismatch",
        "backend_invocations_mismatch",
        "model_visible_bytes_mismatch",
        "call_model_visible_bytes_mismatch",
        "stop_reason_mismatch",
        "failure_payload_invariant_invalid",
    ]
