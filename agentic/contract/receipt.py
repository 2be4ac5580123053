"""Trajectory receipts: what one agent did against one adapter on one task.

``canonical`` holds every decision-affecting input and output and nothing volatile;
``observations`` holds timings, paths and diagnostics, which never enter a fingerprint.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from agentic.contract.base import (
    Bool,
    ContractModel,
    DateTime,
    Int,
    NonEmptyStr,
    NonNegativeInt,
    NonNegativeNumber,
    Sha256,
    Str,
    TaskId,
)
from agentic.contract.envelope import FinalEnvelope, Provenance, StopReason
from agentic.contract.errors import FailureClass
from agentic.contract.strict_json import JsonObject

__all__ = ["FailureClass"]  # re-exported: receipts are where most readers look for it

CapabilityState = Literal["supported", "unsupported", "unavailable"]
ResultRole = Literal["candidates", "source", "evidence_bundle"]
Lifecycle = Literal["cold", "warm"]
LIFECYCLES: tuple[Lifecycle, ...] = ("cold", "warm")


class ToolCapabilities(ContractModel):
    search: CapabilityState
    get: CapabilityState
    multi_get: CapabilityState


class LifecycleCapabilities(ContractModel):
    cold: CapabilityState
    warm: CapabilityState


class Capabilities(ContractModel):
    backendInvocationAccounting: Bool
    startupTiming: Bool
    modelLoadTiming: Bool
    toolTiming: Bool
    tools: ToolCapabilities
    exactLineSpans: CapabilityState
    measuredTokens: CapabilityState
    backendHashes: CapabilityState
    lifecycle: LifecycleCapabilities


class ToolEvidence(ContractModel):
    """An evidence coordinate as a tool returned it: coordinate, exact text, backend hashes."""

    uri: Annotated[Str, Field(pattern=r"^gno://")]
    sourceHash: Sha256
    startLine: Annotated[Int, Field(ge=1)]
    endLine: Annotated[Int, Field(ge=1)]
    spanHash: Sha256
    sourceHashProvenance: Provenance
    spanHashProvenance: Provenance
    text: Str
    backendSourceHash: Sha256 | None
    backendSpanHash: Sha256 | None
    backendHashUnavailableReason: Str | None

    @model_validator(mode="after")
    def _backend_pair(self) -> ToolEvidence:
        both_null = self.backendSourceHash is None and self.backendSpanHash is None
        both_set = self.backendSourceHash is not None and self.backendSpanHash is not None
        if not (both_null or both_set):
            raise ValueError("backend hashes must be both null or both set")
        if both_null != (self.backendHashUnavailableReason is not None):
            raise ValueError(
                "a backend hash unavailable reason is present exactly when both are null"
            )
        return self


class ToolResult(ContractModel):
    """The normalized result every adapter returns, whatever its backend."""

    status: Literal["ok", "error"]
    resultRole: ResultRole
    content: Str
    evidence: tuple[ToolEvidence, ...]
    errorCode: Str | None

    @model_validator(mode="after")
    def _status_error(self) -> ToolResult:
        if self.status == "ok" and self.errorCode is not None:
            raise ValueError("status ok requires errorCode null")
        if self.status == "error" and not self.errorCode:
            raise ValueError("status error requires a non-empty errorCode")
        return self


class Call(ContractModel):
    callIndex: NonNegativeInt
    toolName: Str
    arguments: JsonObject
    result: ToolResult
    deliveredToAgent: Bool
    failureCode: Str | None
    modelVisibleUtf8Bytes: NonNegativeInt
    measuredTokens: NonNegativeInt | None
    tokenizerFingerprint: Sha256 | None
    backendInvocations: NonNegativeInt


class Failure(ContractModel):
    class_: FailureClass = Field(alias="class")
    code: Str | None
    redactedMessage: Str | None


class Fingerprints(ContractModel):
    corpus: Sha256
    prompt: Sha256
    tools: Sha256
    model: Sha256
    runtime: Sha256
    config: Sha256
    index: Sha256


class PairIdentity(ContractModel):
    """The six fields that name one pair; every record of a pair (its receipt's canonical part,
    its score record, its exclusion) carries them, spelled the same."""

    taskId: TaskId
    adapterId: Str
    trialId: Str
    seed: Int | None
    lifecycle: Lifecycle
    agentId: Str


class CanonicalReceipt(PairIdentity):
    # Repeated inside canonical (contract v1.0): it is part of every receipt's fingerprinted bytes.
    schemaVersion: Literal["1.0"]
    capabilities: Capabilities
    calls: tuple[Call, ...]
    agentCalls: NonNegativeInt
    backendInvocations: NonNegativeInt
    modelVisibleUtf8Bytes: NonNegativeInt
    measuredTokens: NonNegativeInt | None
    finalEnvelope: FinalEnvelope | None
    stopReason: StopReason
    failure: Failure
    fingerprints: Fingerprints


class Timing(ContractModel):
    valueMs: NonNegativeNumber | None
    unavailableReason: NonEmptyStr | None

    @model_validator(mode="after")
    def _either_or(self) -> Timing:
        if (self.valueMs is None) == (self.unavailableReason is None):
            raise ValueError("a timing has either a value or an unavailable reason")
        return self

    @classmethod
    def measured(cls, ms: float) -> Timing:
        return cls(valueMs=max(0.0, round(ms, 3)), unavailableReason=None)

    @classmethod
    def unavailable(cls, reason: str) -> Timing:
        return cls(valueMs=None, unavailableReason=reason)


class Timings(ContractModel):
    preparation: Timing
    startup: Timing
    modelLoad: Timing
    tool: Timing
    driver: Timing
    endToEnd: Timing


class ProcessObservation(ContractModel):
    peakRssBytes: NonNegativeInt | None
    unavailableReason: NonEmptyStr | None

    @model_validator(mode="after")
    def _either_or(self) -> ProcessObservation:
        if (self.peakRssBytes is None) == (self.unavailableReason is None):
            raise ValueError("peakRssBytes has either a value or an unavailable reason")
        return self


class Observations(ContractModel):
    recordedAt: DateTime
    timings: Timings
    process: ProcessObservation
    tempPaths: tuple[Str, ...]
    diagnostics: tuple[Str, ...]


class TrajectoryReceipt(ContractModel):
    schemaVersion: Literal["1.0"]
    canonical: CanonicalReceipt
    observations: Observations
