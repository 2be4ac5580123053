"""The generation report (``reportKind: "generation"``): one closed model, written and read.

``generation/report.py`` builds a run's report as these models and writes their canonical JSON;
``agentic compare`` reads a stored report back through the same models, strictly. The models are
the report's layout, and their docstrings say what the field names do not. Rates are null where
nothing was measured.
"""

from __future__ import annotations

from typing import Literal

from agentic.contract.base import (
    Bool,
    Int,
    NonNegativeInt,
    Number,
    PositiveInt,
    Sha256,
    Str,
)
from agentic.ranking.schema import TierModel, TierReport

Mode = Literal["oracle", "e2e", "noretrieval"]
"""What the model is given with a question (``generation/runner.py`` says what each mode is)."""


class GenerationSummary(TierModel):
    """Rates over a mode's stable questions (all of them, or one tag's): per question the mean
    over its repeats, then the mean over questions."""

    questions: NonNegativeInt
    stable: NonNegativeInt
    """Questions whose answers all passed or all failed: the population of every rate."""
    passRate: Number | None
    correctness: Number | None
    refusalCorrectness: Number | None
    leakageRate: Number | None
    thinkTagLeakRate: Number | None
    groundedness: Number | None
    """The mean over the stable questions' answers that make a numeric claim."""
    groundedAnswers: NonNegativeInt
    """How many answers ``groundedness`` is the mean of."""


class ModeReport(TierModel):
    overall: GenerationSummary
    byTag: dict[str, GenerationSummary]
    unstable: tuple[Str, ...]
    """Golden ids of the questions whose repeats disagree (excluded from every rate)."""


class Decomposition(TierModel):
    """The modes' pass rates and their differences: what retrieval costs or earns."""

    oracle: Number | None
    e2e: Number | None
    noretrieval: Number | None
    oracleMinusE2e: Number | None
    e2eMinusNoretrieval: Number | None


class AnswerRecord(TierModel):
    """One answer to one question and its score (``generation/metrics.py``)."""

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
    """``groundedClaims / numericClaims``, or null for an answer with no numeric claim."""


class SourceRecord(TierModel):
    """Where one injected passage came from."""

    uri: Str
    startLine: PositiveInt
    endLine: PositiveInt


class QuestionRecord(TierModel):
    """One golden asked in one mode: the context it was given and its repeated answers."""

    goldenId: Str
    mode: Mode
    tags: tuple[Str, ...]
    expectRefusal: Bool
    contextError: Str | None
    """The e2e search's error code, or null."""
    sources: tuple[SourceRecord, ...]
    unstable: Bool
    answers: tuple[AnswerRecord, ...]


class ModelIdentity(TierModel):
    id: Str
    fingerprint: Sha256


class GenerationSettingsModel(TierModel):
    """The settings that shape answers (the timeouts do not, unless they fire)."""

    modes: tuple[Mode, ...]
    repeats: PositiveInt
    adapter: Str
    """The retrieval adapter of e2e mode."""
    k: PositiveInt
    tags: tuple[Str, ...] | None
    limit: PositiveInt | None
    seed: Int


class GenerationReport(TierReport):
    """A generation run: every selected golden asked in every mode, ``repeats`` times."""

    schemaVersion: Literal["1.0"]
    reportKind: Literal["generation"]
    model: ModelIdentity
    settings: GenerationSettingsModel
    modes: dict[Mode, ModeReport]
    """Keyed by mode, in the order of ``settings.modes``."""
    decomposition: Decomposition
    """Of ``passRate``."""
    questions: tuple[QuestionRecord, ...]
