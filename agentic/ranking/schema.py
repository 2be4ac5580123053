"""The ranking report (``reportKind: "ranking"``): one closed model that is both written and read.

``ranking/report.py`` builds a run's report as these models and writes their canonical JSON
(RFC 8785, byte-identical across runs); ``agentic compare`` reads a stored report back through
the same models, so an unknown field, a missing one or a value of the wrong type is
``invalid_report`` (exit 2), never a metric silently read as absent. The models are the report's
layout, and their docstrings say what the field names do not. Metric values are null where their
population is empty.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

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

Variant = Literal["default", "ablated"]
"""A ranking run's switches: the adapter as it is, or with its costly stages turned off."""


class TierModel(ContractModel):
    """A part of a tier report (ranking or generation): its field docstrings are the layout."""

    model_config = ConfigDict(use_attribute_docstrings=True)


class TierReport(TierModel):
    """The fields every tier report opens with: what it is and which fixture and goldens it
    scored. ``schemaVersion`` and ``reportKind`` are each report's own literals."""

    fixtureFingerprint: Sha256
    """The scored fixture's corpus fingerprint: a committed baseline is filed under it."""
    fixtureVersion: Str
    goldensFingerprint: Sha256
    """Which goldens were asked: reports of different goldens are not compared."""
    goldenCount: NonNegativeInt


class RankingSummary(TierModel):
    """Means over a set of queries (all of a run's, or one tag's)."""

    queries: NonNegativeInt
    """Answerable goldens: the population of the five metrics below."""
    recall: Number | None
    hitRate: Number | None
    mrr: Number | None
    ndcg: Number | None
    precision: Number | None
    refusalQueries: NonNegativeInt
    """Refusal goldens: the population of ``nonEmptyRate``."""
    nonEmptyRate: Number | None
    """The share of refusal goldens for which the search returned anything. On a small corpus
    recall sits near 1, and this is one of the numbers with headroom (sweep ``--threshold`` to
    move it)."""
    errors: NonNegativeInt
    """Searches that failed (each also counts as a miss)."""


class QueryMetrics(TierModel):
    """One answerable query's metrics at k (definitions in ``ranking/metrics.py``)."""

    recall: Number
    hitRate: Number
    mrr: Number
    ndcg: Number
    precision: Number


class RelevantDocument(TierModel):
    uri: Str
    grade: PositiveInt


class RankedChunk(TierModel):
    uri: Str
    startLine: PositiveInt
    endLine: PositiveInt


class RankedQuery(TierModel):
    """One golden's search and what it found."""

    goldenId: Str
    tags: tuple[Str, ...]
    expectRefusal: Bool
    arguments: JsonObject
    """The ``search`` arguments sent: query, limit, collection, minScore and any switches."""
    errorCode: Str | None
    """The search's error code, or null when it succeeded."""
    relevant: tuple[RelevantDocument, ...]
    """The golden's relevant documents with their grades, by URI."""
    documents: tuple[Str, ...]
    """Distinct documents in first-chunk order, the first k of them."""
    chunks: tuple[RankedChunk, ...]
    """The first k chunks, in the adapter's order."""
    nonEmpty: Bool
    """Whether the search returned anything."""
    metrics: QueryMetrics | None
    """Null for a refusal golden: with no relevant document, ranking metrics are undefined."""


class RankingVariant(TierModel):
    """One adapter run over every golden with one set of switches."""

    adapterId: Str
    variant: Variant
    switches: JsonObject
    """Added to every search: empty by default, the costly stages off when ablated."""
    overall: RankingSummary
    byTag: dict[str, RankingSummary]
    queries: tuple[RankedQuery, ...]


class RankingSettingsModel(TierModel):
    """The settings that shape results (the timeouts do not, unless they fire)."""

    k: PositiveInt
    threshold: Number | None
    tags: tuple[Str, ...] | None
    ablate: Bool


class RankingReport(TierReport):
    """A ranking run: every selected golden through every selected adapter, scored at k."""

    schemaVersion: Literal["1.0"]
    reportKind: Literal["ranking"]
    settings: RankingSettingsModel
    runs: tuple[RankingVariant, ...]
