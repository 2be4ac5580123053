"""Ranking metric definitions, and agreement with pytrec_eval (TREC's reference) to 1e-9."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic.ranking.metrics import (
    document_ranking,
    mean,
    ndcg_at_k,
    precision_at_k,
    query_metrics,
)

TOLERANCE = 1e-9


def test_document_rank_is_the_first_chunk_position() -> None:
    assert document_ranking(["b", "a", "b", "c"], 5) == ("b", "a", "c")


def test_document_ranking_stops_at_k_distinct_documents() -> None:
    assert document_ranking(["a", "a", "b", "c"], 2) == ("a", "b")


def test_precision_counts_every_chunk_slot() -> None:
    # Three chunks of one relevant document fill three of five slots.
    assert precision_at_k(["a", "a", "a", "x", "y"], {"a": 1}, 5) == pytest.approx(0.6)


def test_precision_divides_by_k_when_fewer_chunks_come_back() -> None:
    assert precision_at_k(["a"], {"a": 1}, 5) == pytest.approx(0.2)


def test_ndcg_ideal_counts_relevant_documents_never_retrieved() -> None:
    # One of two relevant documents at rank 1: DCG 1, ideal 1 + 1/log2(3).
    expected = 1 / (1 + 1 / math.log2(3))
    assert ndcg_at_k(["a", "x"], {"a": 1, "b": 1}, 5) == pytest.approx(expected)


def test_ndcg_falls_when_the_right_documents_come_in_the_wrong_order() -> None:
    right = query_metrics(["a", "b"], {"a": 2, "b": 1}, 5)
    wrong = query_metrics(["b", "a"], {"a": 2, "b": 1}, 5)
    assert right.recall == wrong.recall == 1.0
    assert wrong.ndcg < right.ndcg == pytest.approx(1.0)


def test_mrr_and_hit_rate_ignore_relevant_documents_below_k() -> None:
    metrics = query_metrics(["x", "y", "a"], {"a": 1}, 2)
    assert (metrics.mrr, metrics.hitRate, metrics.recall) == (0.0, 0.0, 0.0)


def test_mrr_is_the_reciprocal_rank_of_the_first_relevant_document() -> None:
    assert query_metrics(["x", "x", "a", "b"], {"a": 1, "b": 1}, 5).mrr == pytest.approx(0.5)


def test_mean_of_nothing_is_none() -> None:
    assert mean([]) is None


def pytrec_values(
    runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]], k: int
) -> dict[str, dict[str, float]]:
    """pytrec_eval's recall/success/recip_rank/ndcg_cut at k on our order, made tie-free."""
    run = {
        qid: {doc: float(len(docs) - rank) for rank, doc in enumerate(docs)}
        for qid, docs in runs.items()
    }
    measures = {f"recall.{k}", f"success.{k}", f"ndcg_cut.{k}", "recip_rank"}
    evaluator = pytrec_eval.RelevanceEvaluator({q: dict(r) for q, r in qrels.items()}, measures)
    result: dict[str, dict[str, float]] = evaluator.evaluate(run)
    return result


def assert_documents_agree(chunks: Sequence[str], grades: Mapping[str, int], k: int) -> None:
    ours = query_metrics(chunks, grades, k)
    documents = document_ranking(chunks, k)
    if not documents:
        # trec_eval skips a query with no retrieved document; ours scores it 0.
        assert (ours.recall, ours.hitRate, ours.mrr, ours.ndcg) == (0, 0, 0, 0)
        return
    theirs = pytrec_values({"q": documents}, {"q": grades}, k)["q"]
    assert abs(ours.recall - theirs[f"recall_{k}"]) <= TOLERANCE
    assert abs(ours.hitRate - theirs[f"success_{k}"]) <= TOLERANCE
    assert abs(ours.mrr - theirs["recip_rank"]) <= TOLERANCE
    assert abs(ours.ndcg - theirs[f"ndcg_cut_{k}"]) <= TOLERANCE


def assert_chunk_precision_agrees(chunks: Sequence[str], grades: Mapping[str, int], k: int) -> None:
    """Chunk precision is P_k over chunk ids, a chunk being relevant when its document is."""
    ours = precision_at_k(chunks, grades, k)
    ids = [f"{uri}#{index}" for index, uri in enumerate(chunks[:k])]
    if not ids:
        assert ours == 0.0
        return
    judged = zip(ids, chunks[:k], strict=True)
    qrels = {"q": {cid: 1 if grades.get(uri, 0) > 0 else 0 for cid, uri in judged}}
    qrels["q"]["never-retrieved"] = 1  # keeps the query judged when no chunk is relevant
    run = {"q": {cid: float(len(ids) - rank) for rank, cid in enumerate(ids)}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {f"P.{k}"}).evaluate(run)["q"][f"P_{k}"]
    assert abs(ours - theirs) <= TOLERANCE


documents = st.sampled_from([f"d{i}" for i in range(8)])


@st.composite
def judged_rankings(draw: st.DrawFn) -> tuple[list[str], dict[str, int], int]:
    chunks = draw(st.lists(documents, max_size=12))
    relevant = draw(st.lists(documents, min_size=1, max_size=5, unique=True))
    grades = {uri: draw(st.integers(min_value=1, max_value=3)) for uri in relevant}
    k = draw(st.integers(min_value=1, max_value=10))
    return chunks, grades, k


@settings(max_examples=300, deadline=None)
@given(judged_rankings())
def test_document_metrics_equal_pytrec_eval_on_random_runs(
    case: tuple[list[str], dict[str, int], int],
) -> None:
    assert_documents_agree(*case)


@settings(max_examples=200, deadline=None)
@given(judged_rankings())
def test_chunk_precision_equals_pytrec_eval_on_random_runs(
    case: tuple[list[str], dict[str, int], int],
) -> None:
    assert_chunk_precision_agrees(*case)
