"""The final envelope: typed claims with exact citations, gaps, and a stop reason.

It deliberately has no free-text answer field: everything the scorer reads is typed.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from agentic.contract.base import (
    Bool,
    ClaimKey,
    ContractModel,
    FullDate,
    Number,
    PositiveInt,
    Sha256,
    Str,
    Unique,
)

Provenance = Literal["harness_observed", "backend_provided"]
GapReason = Literal[
    "missing_evidence", "conflicting_evidence", "budget_exhausted", "tool_unavailable"
]
StopReason = Literal["complete", "abstained", "budget_exhausted", "tool_unavailable", "error"]
ValueType = Literal["string", "number", "boolean", "string[]", "date", "identifier"]


class StringValue(ContractModel):
    type: Literal["string"]
    value: Str


class NumberValue(ContractModel):
    type: Literal["number"]
    value: Number


class BooleanValue(ContractModel):
    type: Literal["boolean"]
    value: Bool


class StringListValue(ContractModel):
    type: Literal["string[]"]
    value: Annotated[tuple[Str, ...], Unique]


class DateValue(ContractModel):
    type: Literal["date"]
    value: FullDate


class IdentifierValue(ContractModel):
    type: Literal["identifier"]
    value: Annotated[Str, Field(min_length=1)]


ClaimValue = Annotated[
    StringValue | NumberValue | BooleanValue | StringListValue | DateValue | IdentifierValue,
    Field(discriminator="type"),
]


class Evidence(ContractModel):
    """One exact, citeable span: a source, an inclusive 1-based line range and two hashes."""

    uri: Annotated[Str, Field(pattern=r"^gno://")]
    sourceHash: Sha256
    startLine: PositiveInt
    endLine: PositiveInt
    spanHash: Sha256
    sourceHashProvenance: Provenance
    spanHashProvenance: Provenance

    def key(self) -> tuple[str, str, int, int, str, str, str]:
        """Identity used by scoring: all seven fields, provenances included."""
        return (
            self.uri,
            self.sourceHash,
            self.startLine,
            self.endLine,
            self.spanHash,
            self.sourceHashProvenance,
            self.spanHashProvenance,
        )


class Claim(ContractModel):
    claimKey: ClaimKey
    value: ClaimValue
    citations: tuple[Evidence, ...]


class Gap(ContractModel):
    claimKey: ClaimKey
    reason: GapReason


class FinalEnvelope(ContractModel):
    schemaVersion: Literal["1.0"]
    claims: tuple[Claim, ...]
    gaps: tuple[Gap, ...]
    abstained: Bool
    stopReason: StopReason
