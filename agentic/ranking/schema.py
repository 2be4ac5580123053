"""The closed model of a ranking report, so a stored report is read as strictly as it was written.

``agentic compare`` loads baselines through it: an unknown field, a missing one or a value of the
wrong type is ``invalid_report`` (exit 2), never a metric silently read as absent.
"""

from __future__ import annotations

from typing import Literal

from agentic.contract.base import (
    Bool,
    ContractModel,
    NonNegativeInt,
    Number,
    PositiveInt,
    Sha256,
    Str,
)
from agentic.contract.strict_json import JsonObject


class RankingSummary(ContractModel):
    queries: NonNegativeInt
    recall: Number | None
    hitRate: Number | None
    mrr: Number | None
    ndcg: Number | None
    precision: Number | None
    refusalQueries: NonNegativeInt
    nonEmptyRate: Number | None
    errors: NonNegativeInt


class QueryMetricsModel(ContractModel):
    recall: Number
    hitRate: Number
    mrr: Number
    ndcg: Number
    precision: Number


class RelevantDocument(ContractModel):
    uri: Str
    grade: PositiveInt


class RankedChunk(ContractModel):
    uri: Str
    startLine: PositiveInt
    endLine: PositiveInt


class RankedQuery(ContractModel):
    goldenId: Str
    tags: tuple[Str, ...]
    expectRefusal: Bool
    arguments: JsonObject
    errorCode: Str | None
    relevant: tuple[RelevantDocument, ...]
    documents: tuple[Str, ...]
    chunks: tuple[RankedChunk, ...]
    nonEmpty: Bool
    metrics: QueryMetricsModel | None


class RankingVariant(ContractModel):
    adapterId: Str
    variant: Literal["default", "ablated"]
    switches: JsonObject
    overall: RankingSummary
    byTag: dict[str, RankingSummary]
    queries: tuple[RankedQuery, ...]


class RankingSettingsModel(ContractModel):
    k: PositiveInt
    threshold: Number | None
    tags: tuple[Str, ...] | None
    ablate: Bool


class RankingReport(ContractModel):
    schemaVersion: Literal["1.0"]
    reportKind: Literal["ranking"]
    fixtureFingerprint: Sha256
    fixtureVersion: Str
    goldensFingerprint: Sha256
    goldenCount: NonNegativeInt
    settings: RankingSettingsModel
    runs: tuple[RankingVariant, ...]
