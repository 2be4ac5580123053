"""Receipt accounting checks: the totals of a receipt must agree with its calls.

A receipt that fails one of these checks is still scored, but every issue code lands in the
score's ``invalidOutputs`` (contract v1.0, "Receipt validity checks"), so a run can never pass
on numbers it did not actually record. The codes are emitted in one fixed order, the order of
the checks below, so the same receipt always yields the same list.

The per-call byte check needs the agent-visible projection of a result, which lives in
``agentic.tools``; ``contract/`` may not import it, so the caller passes that projection in as
``call_bytes`` (scoring does). Without it the per-call byte check is skipped.
"""

from __future__ import annotations

from collections.abc import Callable

from agentic.contract.receipt import Call, CanonicalReceipt, ToolResult

CallBytes = Callable[[ToolResult], int]


def accounting_issues(
    receipt: CanonicalReceipt, *, call_bytes: CallBytes | None = None
) -> list[str]:
    """Every accounting issue of one canonical receipt, in the contract's check order."""
    checks: list[tuple[str, bool]] = [
        ("agent_calls_mismatch", receipt.agentCalls != len(receipt.calls)),
        ("call_index_sequence_invalid", _call_indexes_invalid(receipt.calls)),
        ("backend_invocations_mismatch", receipt.backendInvocations != _sum_backend(receipt)),
        ("model_visible_bytes_mismatch", receipt.modelVisibleUtf8Bytes != _sum_bytes(receipt)),
    ]
    if call_bytes is not None:
        checks.append(
            ("call_model_visible_bytes_mismatch", _call_bytes_wrong(receipt.calls, call_bytes))
        )
    checks += [
        ("call_delivery_failure_invariant", any(_delivery_invalid(c) for c in receipt.calls)),
        ("undelivered_call_failure_mismatch", _undelivered_mismatch(receipt)),
        ("measured_tokens_mismatch", _measured_tokens_wrong(receipt)),
        ("tokenizer_fingerprint_missing", _any_missing_tokenizer(receipt.calls)),
        ("unexpected_tokenizer_fingerprint", _any_unexpected_tokenizer(receipt.calls)),
        ("tokenizer_fingerprint_mismatch", _tokenizers_differ(receipt.calls)),
        ("stop_reason_mismatch", _stop_reason_wrong(receipt)),
        ("failure_payload_invariant_invalid", _failure_payload_invalid(receipt)),
        ("failure_envelope_invariant_invalid", _failure_envelope_invalid(receipt)),
    ]
    return [code for code, failed in checks if failed]


def _call_indexes_invalid(calls: tuple[Call, ...]) -> bool:
    return any(call.callIndex != position for position, call in enumerate(calls))


def _sum_backend(receipt: CanonicalReceipt) -> int:
    return sum(call.backendInvocations for call in receipt.calls)


def _sum_bytes(receipt: CanonicalReceipt) -> int:
    return sum(call.modelVisibleUtf8Bytes for call in receipt.calls)


def _call_bytes_wrong(calls: tuple[Call, ...], call_bytes: CallBytes) -> bool:
    # An undelivered call never reached the agent, so it is charged nothing.
    return any(
        call.modelVisibleUtf8Bytes != (call_bytes(call.result) if call.deliveredToAgent else 0)
        for call in calls
    )


def _delivery_invalid(call: Call) -> bool:
    if call.deliveredToAgent:
        return call.failureCode is not None
    # The agent never saw an undelivered result, so it cannot have been tokenized either.
    return (
        call.failureCode is None
        or not call.failureCode.strip()
        or call.measuredTokens is not None
        or call.tokenizerFingerprint is not None
    )


def _undelivered_mismatch(receipt: CanonicalReceipt) -> bool:
    undelivered = [call for call in receipt.calls if not call.deliveredToAgent]
    if not undelivered:
        return False
    if len(undelivered) > 1 or undelivered[0] is not receipt.calls[-1]:
        return True
    # The one undelivered call is what ended the trial, so it must name the receipt's failure.
    return receipt.failure.class_ == "none" or receipt.failure.code != undelivered[0].failureCode


def _measured_tokens_wrong(receipt: CanonicalReceipt) -> bool:
    delivered = [call.measuredTokens for call in receipt.calls if call.deliveredToAgent]
    measured = [tokens for tokens in delivered if tokens is not None]
    all_measured = len(measured) == len(delivered)
    total = receipt.measuredTokens
    if total is None:
        # Null is right when nothing was delivered or some delivered call went unmeasured.
        return bool(delivered) and all_measured
    return not delivered or not all_measured or total != sum(measured)


def _any_missing_tokenizer(calls: tuple[Call, ...]) -> bool:
    return any(c.measuredTokens is not None and c.tokenizerFingerprint is None for c in calls)


def _any_unexpected_tokenizer(calls: tuple[Call, ...]) -> bool:
    return any(c.measuredTokens is None and c.tokenizerFingerprint is not None for c in calls)


def _tokenizers_differ(calls: tuple[Call, ...]) -> bool:
    fingerprints = {c.tokenizerFingerprint for c in calls if c.tokenizerFingerprint is not None}
    return len(fingerprints) > 1


def _stop_reason_wrong(receipt: CanonicalReceipt) -> bool:
    envelope = receipt.finalEnvelope
    return envelope is not None and envelope.stopReason != receipt.stopReason


def _failure_payload_invalid(receipt: CanonicalReceipt) -> bool:
    failure = receipt.failure
    if failure.class_ == "none":
        return failure.code is not None or failure.redactedMessage is not None
    return failure.code is None


def _failure_envelope_invalid(receipt: CanonicalReceipt) -> bool:
    failed = receipt.failure.class_ != "none"
    if receipt.finalEnvelope is None:
        return receipt.stopReason != "error" or not failed
    return failed
