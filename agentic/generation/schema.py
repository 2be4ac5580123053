"""The closed model of a generation report, for strict reading by ``agentic compare``."""

from __future__ import annotations

from typing import Literal

from agentic.contract.base import (
    Bool,
    ContractModel,
    Int,
    NonNegativeInt,
    Number,
    PositiveInt,
    Sha256,
    Str,
)

ModeName = Literal["oracle", "e2e", "noretrieval"]


class GenerationSummary(ContractModel):
    questions: NonNegativeInt
    stable: NonNegativeInt
    passRate: Number | None
    correctness: Number | None
    refusalCorrectness: Number | None
    leakageRate: Number | None
    thinkTagLeakRate: Number | None
    groundedness: Number | None
    groundedAnswers: NonNegativeInt


class ModeReport(ContractModel):
    overall: GenerationSummary
    byTag: dict[str, GenerationSummary]
    unstable: tuple[Str, ...]


class Decomposition(ContractModel):
    oracle: Number | None
    e2e: Number | None
    noretrieval: Number | None
    oracleMinusE2e: Number | None
    e2eMinusNoretrieval: Number | None


class AnswerRecord(ContractModel):
    text: Str
    passed: Bool
    correct: Bool
    refused: Bool
    refusalCorrect: Bool
    leaked: Bool
    thinkTagLeak: Bool
    numericClaims: NonNegativeInt
    groundedClaims: NonNegativeInt
    groundedness: Number | None


class SourceRecord(ContractModel):
    uri: Str
    startLine: PositiveInt
    endLine: PositiveInt


class QuestionRecord(ContractModel):
    goldenId: Str
    mode: ModeName
    tags: tuple[Str, ...]
    expectRefusal: Bool
    contextError: Str | None
    sources: tuple[SourceRecord, ...]
    unstable: Bool
    answers: tuple[AnswerRecord, ...]


class ModelIdentity(ContractModel):
    id: Str
    fingerprint: Sha256


class GenerationSettingsModel(ContractModel):
    modes: tuple[ModeName, ...]
    repeats: PositiveInt
    adapter: Str
    k: PositiveInt
    tags: tuple[Str, ...] | None
    limit: PositiveInt | None
    seed: Int


class GenerationReport(ContractModel):
    schemaVersion: Literal["1.0"]
    reportKind: Literal["generation"]
    fixtureFingerprint: Sha256
    fixtureVersion: Str
    goldensFingerprint: Sha256
    goldenCount: NonNegativeInt
    model: ModelIdentity
    settings: GenerationSettingsModel
    modes: dict[ModeName, ModeReport]
    decomposition: Decomposition
    questions: tuple[QuestionRecord, ...]
