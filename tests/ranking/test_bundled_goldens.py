"""The bundled fixture's goldens: strictly valid, covering every trap, answerable from their
own documents, and scored by the ranking tier exactly as pytrec_eval scores them."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
import pytrec_eval

from agentic.adapters.lexical_index import first_chunk_end
from agentic.catalog.load import builtin_catalog
from agentic.fixture.loader import Fixture, load_fixture
from agentic.ranking.goldens import Golden, GoldenSet, load_goldens
from agentic.ranking.report import build_report
from agentic.ranking.runner import RankingSettings, run_ranking
from agentic.ranking.trec import export_files
from agentic.resources import default_fixture_dir

TRAP_TAGS = (
    "distractor",
    "near-miss",
    "out-of-corpus",
    "fictional",
    "acronym",
    "acronym-control",
    "chunk-boundary",
    "multi-hop",
    "multi-turn",
)


@pytest.fixture(scope="module")
def fixture() -> Fixture:
    return load_fixture(default_fixture_dir())


@pytest.fixture(scope="module")
def goldens(fixture: Fixture) -> GoldenSet:
    return load_goldens(fixture)


def oracle_text(fixture: Fixture, golden: Golden) -> str:
    files = [fixture.snapshot.by_uri(uri) for uri in golden.relevantDocIds]
    return "\n".join(f.text for f in files if f is not None)


def test_there_are_at_least_sixty_goldens(goldens: GoldenSet) -> None:
    assert len(goldens.goldens) >= 60


@pytest.mark.parametrize("tag", TRAP_TAGS)
def test_every_trap_tag_has_at_least_two_goldens(goldens: GoldenSet, tag: str) -> None:
    assert sum(1 for g in goldens.goldens if tag in g.tags) >= 2


def test_every_multi_turn_golden_has_prior_turns(goldens: GoldenSet) -> None:
    for golden in goldens.goldens:
        assert ("multi-turn" in golden.tags) == bool(golden.turns), golden.id


def test_every_answerable_golden_is_answered_by_its_own_documents(
    fixture: Fixture, goldens: GoldenSet
) -> None:
    """The extractive ceiling is 1: echoing the relevant documents passes every golden."""
    for golden in goldens.goldens:
        if golden.expectRefusal:
            continue
        text = oracle_text(fixture, golden)
        for pattern in golden.mustInclude:
            assert re.search(pattern, text, re.IGNORECASE), (golden.id, pattern)
        for pattern in golden.mustNotInclude:
            assert not re.search(pattern, text, re.IGNORECASE), (golden.id, pattern)


def test_every_chunk_boundary_fact_lies_past_a_first_chunk(
    fixture: Fixture, goldens: GoldenSet
) -> None:
    for golden in goldens.goldens:
        if "chunk-boundary" not in golden.tags:
            continue
        tails = []
        for uri in golden.relevantDocIds:
            lines = fixture.snapshot.by_uri(uri).lines  # type: ignore[union-attr]
            tails.append("\n".join(lines[first_chunk_end(lines) :]))
        for pattern in golden.mustInclude:
            assert any(re.search(pattern, tail, re.IGNORECASE) for tail in tails), golden.id


@pytest.mark.parametrize("adapter_id", ["lexical", "capsule"])
def test_ranking_of_the_bundled_goldens_equals_pytrec_eval(
    fixture: Fixture, goldens: GoldenSet, adapter_id: str
) -> None:
    k = 3
    report = build_report(
        run_ranking(
            fixture, goldens, (adapter_id,), RankingSettings(k=k), catalog=builtin_catalog()
        )
    )
    files = export_files(report)
    qrels = pytrec_eval.parse_qrel(io.StringIO(files["qrels.trec"]))
    run = pytrec_eval.parse_run(io.StringIO(files[f"run.{adapter_id}.default.trec"]))
    measures = {f"recall.{k}", f"success.{k}", f"ndcg_cut.{k}", "recip_rank"}
    theirs: dict[str, dict[str, Any]] = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(
        run
    )
    compared = 0
    for query in report.runs[0].queries:
        ours = query.metrics
        if ours is None or query.goldenId not in theirs:
            continue
        values = theirs[query.goldenId]
        assert abs(ours.recall - values[f"recall_{k}"]) <= 1e-9
        assert abs(ours.hitRate - values[f"success_{k}"]) <= 1e-9
        assert abs(ours.mrr - values["recip_rank"]) <= 1e-9
        assert abs(ours.ndcg - values[f"ndcg_cut_{k}"]) <= 1e-9
        compared += 1
    assert compared >= 60
