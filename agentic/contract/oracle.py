"""The hidden oracle of one task: its expected values, required and forbidden evidence.
Only the fixture loader, the scorer and the evaluation-only ``oracle`` adapter may read it.
Agents never can (see docs/architecture.md, "Import rules")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from agentic.contract.base import (
    Bool,
    ClaimKey,
    Collection,
    ContractModel,
    Int,
    Number,
    PositiveInt,
    Str,
    TaskId,
    Unique,
)
from agentic.contract.envelope import ClaimValue, Evidence

NormalizerId = Literal["exact-v1", "trim-lower-v1", "identifier-v1", "iso-date-v1", "string-set-v1"]
FilterValue = Str | Number | Bool


class Normalizer(ContractModel):
    id: NormalizerId
    version: Annotated[Int, Field(ge=1, le=1)]


class OracleClaim(ContractModel):
    claimKey: ClaimKey
    expectedValue: ClaimValue
    normalizer: Normalizer
    requiredEvidence: tuple[Evidence, ...]
    optionalEvidence: tuple[Evidence, ...]
    forbiddenEvidence: tuple[Evidence, ...]


class ExpectedScope(ContractModel):
    collection: Collection | None
    filters: dict[ClaimKey, FilterValue]


class Completion(ContractModel):
    expectAbstention: Bool
    maxAgentCalls: PositiveInt
    maxModelVisibleBytes: PositiveInt
    failOnUnexpectedEvidence: Bool


class HiddenOracle(ContractModel):
    schemaVersion: Literal["1.0"]
    taskId: TaskId
    claims: tuple[OracleClaim, ...]
    expectedMissing: Annotated[tuple[ClaimKey, ...], Unique]
    expectedScope: ExpectedScope
    completion: Completion
    leakCanaries: Annotated[tuple[Annotated[Str, Field(min_length=8)], ...], Unique]
