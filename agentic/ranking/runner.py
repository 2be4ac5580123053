"""The ranking tier: every selected golden through every selected adapter, scored at k.

Each adapter is prepared once and asked one ``search`` per golden with ``{query, limit: k}``
(plus the golden's ``collection`` and ``--threshold`` as ``minScore`` when given), reset to the
golden's task so the search sees that task's collections only. With ``ablate`` each adapter runs a
second time with the tool contract's switches for the costly stages turned off
(``rerank: false, expand: false``), to show what those stages earn. In-process adapters ignore
the switches, so their ablation delta is zero by construction; product backends honour them.

Nothing here is timed or random, so two runs over the same inputs give identical results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentic.adapters.deadlines import PREPARE_TIMEOUT_S
from agentic.catalog.table import Catalog
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from agentic.ranking.goldens import Golden, GoldenSet, recorded_tags
from agentic.ranking.metrics import document_ranking, query_metrics
from agentic.ranking.retrieval import Chunk, Searcher, open_searcher
from agentic.ranking.schema import (
    QueryMetrics,
    RankedChunk,
    RankedQuery,
    RankingSettingsModel,
    RelevantDocument,
    Variant,
)

DEFAULT_K = 5
DEFAULT_VARIANT: Variant = "default"
ABLATED_VARIANT: Variant = "ablated"
ABLATION_SWITCHES: JsonObject = {"expand": False, "rerank": False}


@dataclass(frozen=True)
class RankingSettings:
    k: int = DEFAULT_K
    threshold: float | None = None
    tags: tuple[str, ...] | None = None
    ablate: bool = False
    timeout_s: float = 30.0
    prepare_timeout_s: float = PREPARE_TIMEOUT_S

    def to_model(self) -> RankingSettingsModel:
        """The settings that shape results (the timeouts do not, unless they fire)."""
        return RankingSettingsModel(
            k=self.k,
            threshold=self.threshold,
            tags=recorded_tags(self.tags),
            ablate=self.ablate,
        )


@dataclass(frozen=True)
class QueryResult:
    golden: Golden
    arguments: JsonObject
    chunks: tuple[Chunk, ...]
    error_code: str | None
    k: int

    @property
    def chunk_uris(self) -> tuple[str, ...]:
        return tuple(chunk.uri for chunk in self.chunks)

    @property
    def documents(self) -> tuple[str, ...]:
        return document_ranking(self.chunk_uris, self.k)

    @property
    def grades(self) -> dict[str, int]:
        return {uri: self.golden.grade(uri) for uri in self.golden.relevantDocIds}

    @property
    def metrics(self) -> QueryMetrics | None:
        """None for a refusal golden: with no relevant document, ranking metrics are undefined."""
        if self.golden.expectRefusal:
            return None
        return query_metrics(self.chunk_uris, self.grades, self.k)

    def to_model(self) -> RankedQuery:
        return RankedQuery(
            goldenId=self.golden.id,
            tags=self.golden.tags,
            expectRefusal=self.golden.expectRefusal,
            arguments=self.arguments,
            errorCode=self.error_code,
            relevant=tuple(
                RelevantDocument(uri=uri, grade=grade) for uri, grade in sorted(self.grades.items())
            ),
            documents=self.documents,
            chunks=tuple(
                RankedChunk(uri=c.uri, startLine=c.start_line, endLine=c.end_line)
                for c in self.chunks[: self.k]
            ),
            nonEmpty=bool(self.chunks),
            metrics=self.metrics,
        )


@dataclass(frozen=True)
class VariantRun:
    adapter_id: str
    variant: Variant
    switches: JsonObject
    results: tuple[QueryResult, ...]


@dataclass(frozen=True)
class RankingRun:
    fixture: Fixture
    goldens: GoldenSet
    settings: RankingSettings
    runs: tuple[VariantRun, ...]


def rank_goldens(
    search: Searcher,
    fixture: Fixture,
    goldens: Sequence[Golden],
    settings: RankingSettings,
    switches: JsonObject,
) -> tuple[QueryResult, ...]:
    results = []
    for golden in goldens:
        arguments = {**golden.search_arguments(settings.k, settings.threshold), **switches}
        outcome = search(fixture.task(golden.taskId), arguments)
        results.append(
            QueryResult(
                golden=golden,
                arguments=arguments,
                chunks=outcome.chunks,
                error_code=outcome.error_code,
                k=settings.k,
            )
        )
    return tuple(results)


def variants(ablate: bool) -> tuple[tuple[Variant, JsonObject], ...]:
    if not ablate:
        return ((DEFAULT_VARIANT, {}),)
    return ((DEFAULT_VARIANT, {}), (ABLATED_VARIANT, dict(ABLATION_SWITCHES)))


def run_ranking(
    fixture: Fixture,
    goldens: GoldenSet,
    adapter_ids: Sequence[str],
    settings: RankingSettings,
    *,
    catalog: Catalog,
    progress: Callable[[str], None] = lambda message: None,
) -> RankingRun:
    for adapter_id in adapter_ids:
        catalog.rankable(adapter_id)  # every id is checked before any adapter is prepared
    runs: list[VariantRun] = []
    for adapter_id in adapter_ids:
        progress(f"ranking {len(goldens.goldens)} goldens with {adapter_id}")
        with open_searcher(
            fixture,
            adapter_id,
            catalog,
            timeout_s=settings.timeout_s,
            prepare_timeout_s=settings.prepare_timeout_s,
        ) as search:
            for variant, switches in variants(settings.ablate):
                results = rank_goldens(search, fixture, goldens.goldens, settings, switches)
                runs.append(VariantRun(adapter_id, variant, switches, results))
    return RankingRun(fixture=fixture, goldens=goldens, settings=settings, runs=tuple(runs))
