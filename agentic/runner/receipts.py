"""Assembling trajectory receipts: the canonical partition and the observations partition."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from agentic.contract.canonical import ZERO_HASH
from agentic.contract.receipt import (
    Call,
    CanonicalReceipt,
    Capabilities,
    Failure,
    Fingerprints,
    Observations,
    PairIdentity,
    ProcessObservation,
    Timing,
    Timings,
    TrajectoryReceipt,
)
from agentic.contract.report import pair_identity
from agentic.runner.trial import TrialFailure, TrialOutcome, fail_trial


@dataclass(frozen=True)
class PairTimings:
    preparation: Timing
    startup: Timing
    model_load: Timing
    end_to_end: Timing


def unknown_fingerprints(corpus: str, runtime: str, config: str, index: str | None) -> Fingerprints:
    """Fingerprints of a pair that failed before its agent or index were known."""
    return Fingerprints(
        corpus=corpus,
        prompt=ZERO_HASH,
        tools=ZERO_HASH,
        model=ZERO_HASH,
        runtime=runtime,
        config=config,
        index=index or ZERO_HASH,
    )


def _failure(failure: TrialFailure | None) -> Failure:
    if failure is None:
        return Failure.model_validate({"class": "none", "code": None, "redactedMessage": None})
    # The redacted message goes to observations.diagnostics; canonical data keeps the code only.
    return Failure.model_validate(
        {"class": failure.failure_class, "code": failure.code, "redactedMessage": None}
    )


def _tool_timing(outcome: TrialOutcome) -> Timing:
    if not outcome.tool_ms:
        return Timing.measured(0.0)
    return Timing.measured(sum(outcome.tool_ms))


def _sum_tokens(calls: list[Call]) -> int | None:
    measured = [
        c.measuredTokens for c in calls if c.deliveredToAgent and c.measuredTokens is not None
    ]
    return sum(measured) if measured else None


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _with_token_capability(capabilities: Capabilities, calls: list[Call]) -> Capabilities:
    # Token counting belongs to the agent, not the adapter: a pair whose agent counted the tokens
    # of delivered results declares the capability whatever the adapter says.
    if _sum_tokens(calls) is None:
        return capabilities
    return capabilities.model_copy(update={"measuredTokens": "supported"})


def build_receipt(
    pair: PairIdentity,
    outcome: TrialOutcome,
    *,
    capabilities: Capabilities,
    fingerprints: Fingerprints,
    timings: PairTimings,
    temp_paths: tuple[str, ...] = (),
    ran: bool = True,
) -> TrajectoryReceipt:
    envelope = outcome.envelope
    not_run = Timing.unavailable("pair not run")
    canonical = CanonicalReceipt(
        schemaVersion="1.0",
        **pair_identity(pair),
        capabilities=_with_token_capability(capabilities, outcome.calls),
        calls=tuple(outcome.calls),
        agentCalls=len(outcome.calls),
        backendInvocations=sum(c.backendInvocations for c in outcome.calls),
        modelVisibleUtf8Bytes=sum(c.modelVisibleUtf8Bytes for c in outcome.calls),
        measuredTokens=_sum_tokens(outcome.calls),
        finalEnvelope=envelope,
        stopReason=envelope.stopReason if envelope is not None else "error",
        failure=_failure(outcome.failure),
        fingerprints=fingerprints,
    )
    observations = Observations(
        recordedAt=now_iso(),
        timings=Timings(
            preparation=timings.preparation,
            startup=timings.startup,
            modelLoad=timings.model_load,
            tool=_tool_timing(outcome) if ran else not_run,
            driver=Timing.measured(outcome.driver_ms) if ran else not_run,
            endToEnd=timings.end_to_end,
        ),
        process=ProcessObservation(peakRssBytes=None, unavailableReason="peak RSS not sampled"),
        tempPaths=temp_paths,
        diagnostics=tuple(outcome.diagnostics),
    )
    return TrajectoryReceipt(schemaVersion="1.0", canonical=canonical, observations=observations)


def harness_failure_receipt(
    pair: PairIdentity,
    *,
    code: str,
    message: str,
    capabilities: Capabilities,
    fingerprints: Fingerprints,
    preparation: Timing,
) -> TrajectoryReceipt:
    """A pair that never ran (or whose cohort was corrupted): attempted, explicitly excluded."""
    # The message is often an exception's repr holding a product's stderr: redacted like a
    # trial's failure message before it reaches observations.
    outcome = TrialOutcome()
    fail_trial(outcome, "harness_error", code, message)
    skipped = Timing.unavailable(f"pair not run: {code}")
    return build_receipt(
        pair,
        outcome,
        capabilities=capabilities,
        fingerprints=fingerprints,
        timings=PairTimings(
            preparation=preparation, startup=skipped, model_load=skipped, end_to_end=skipped
        ),
        ran=False,
    )


def with_retries(receipt: TrajectoryReceipt, failures: list[str]) -> TrajectoryReceipt:
    """The receipt of a pair's last attempt, with one diagnostic per earlier attempt that failed
    for a harness reason (``--retries``). Observations only: the canonical part is the
    attempt's own, the same as a run that never needed the retry."""
    if not failures:
        return receipt
    notes = tuple(
        f"retry {number} of the pair after a harness failure: {failure}"
        for number, failure in enumerate(failures, start=1)
    )
    observations = receipt.observations.model_copy(
        update={"diagnostics": (*notes, *receipt.observations.diagnostics)}
    )
    return receipt.model_copy(update={"observations": observations})
