"""The ranking tier end to end on the tiny fixture: real in-process adapters, real goldens."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval

from agentic.catalog.load import builtin_catalog
from agentic.cli import main
from agentic.contract.canonical import canonical_bytes
from agentic.contract.json_access import str_at
from agentic.fixture.loader import Fixture, load_fixture
from agentic.ranking.goldens import load_goldens
from agentic.ranking.report import build_report, report_bytes
from agentic.ranking.runner import RankingSettings, run_ranking
from agentic.ranking.schema import RankedQuery, RankingReport
from agentic.ranking.trec import export_files
from tests.support.goldens import (
    NORTH,
    SOUTH,
    golden,
    tiny_goldens,
    write_goldens,
    write_tiny_fixture_with_goldens,
)
from tests.support.tiny_fixture import TASK_A

TOLERANCE = 1e-9


def rank(fixture: Fixture, adapters: tuple[str, ...], **settings: Any) -> RankingReport:
    goldens = load_goldens(fixture)
    run = run_ranking(
        fixture, goldens, adapters, RankingSettings(**settings), catalog=builtin_catalog()
    )
    return build_report(run)


@pytest.fixture(scope="module")
def lexical_report(tiny_fixture_with_goldens: Fixture) -> RankingReport:
    return rank(tiny_fixture_with_goldens, ("lexical",))


def query(report: RankingReport, golden_id: str, run: int = 0) -> RankedQuery:
    return next(q for q in report.runs[run].queries if q.goldenId == golden_id)


def metrics(report: RankingReport, golden_id: str) -> dict[str, Any]:
    found = query(report, golden_id).metrics
    assert found is not None
    return found.to_json()


def test_documents_are_in_the_adapter_order(lexical_report: RankingReport) -> None:
    # BM25 puts the shorter south review first for the bare word "gateway".
    assert query(lexical_report, "gateway-reviews").documents == (SOUTH, NORTH)


def test_graded_ndcg_of_right_documents_in_the_wrong_order(lexical_report: RankingReport) -> None:
    found = metrics(lexical_report, "gateway-reviews")
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert found["recall"] == 1.0
    assert found["mrr"] == 1.0
    assert found["ndcg"] == pytest.approx(expected, abs=TOLERANCE)


def test_multi_turn_raw_final_message_reports_the_honest_floor(
    lexical_report: RankingReport,
) -> None:
    assert query(lexical_report, "atlas-owner-followup").documents == ()
    assert metrics(lexical_report, "atlas-owner-followup")["recall"] == 0.0


def test_refusal_goldens_count_towards_non_empty_rate_only(lexical_report: RankingReport) -> None:
    overall = lexical_report.runs[0].overall
    assert query(lexical_report, "harbor-budget-code").metrics is None
    assert (overall.queries, overall.refusalQueries) == (4, 1)
    assert overall.nonEmptyRate == 1.0


def test_per_tag_summary_covers_only_goldens_with_the_tag(lexical_report: RankingReport) -> None:
    by_tag = lexical_report.runs[0].byTag
    assert by_tag["multi-turn"].queries == 1
    assert by_tag["multi-turn"].recall == 0.0
    assert by_tag["out-of-corpus"].queries == 0
    assert by_tag["out-of-corpus"].recall is None


def test_search_arguments_carry_k_collection_and_threshold(
    tiny_fixture_with_goldens: Fixture,
) -> None:
    report = rank(tiny_fixture_with_goldens, ("lexical",), k=3, threshold=0.5)
    assert query(report, "atlas-launch-date").arguments == {
        "query": "Atlas launch date",
        "limit": 3,
        "collection": "c0b2",
        "minScore": 0.5,
    }


def test_threshold_drops_low_scoring_results(tiny_fixture_with_goldens: Fixture) -> None:
    # Min-max normalization gives the weaker of two hits score 0.
    report = rank(tiny_fixture_with_goldens, ("lexical",), threshold=0.5)
    assert query(report, "gateway-reviews").documents == (SOUTH,)


def test_search_error_counts_as_a_miss_and_is_recorded(tmp_path: Path) -> None:
    root = write_tiny_fixture_with_goldens(tmp_path / "fx")
    bad = golden("unbalanced", TASK_A, searchQuery='"gateway', relevantDocIds=[NORTH])
    write_goldens(root, [bad], name="zz-extra.jsonl")
    report = rank(load_fixture(root), ("lexical",))
    assert query(report, "unbalanced").errorCode == "invalid_search_query"
    assert metrics(report, "unbalanced")["recall"] == 0.0
    assert report.runs[0].overall.errors == 1


def test_ablation_runs_each_adapter_twice_with_switches_off(
    tiny_fixture_with_goldens: Fixture,
) -> None:
    report = rank(tiny_fixture_with_goldens, ("lexical",), ablate=True)
    assert [(r.variant, r.switches) for r in report.runs] == [
        ("default", {}),
        ("ablated", {"expand": False, "rerank": False}),
    ]


def _pytrec(qrels_text: str, run_text: str, measures: set[str]) -> dict[str, dict[str, float]]:
    qrels = pytrec_eval.parse_qrel(io.StringIO(qrels_text))
    run = pytrec_eval.parse_run(io.StringIO(run_text))
    result: dict[str, dict[str, float]] = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(
        run
    )
    return result


@pytest.mark.parametrize("adapter_id", ["lexical", "capsule"])
@pytest.mark.parametrize("k", [1, 2, 5])
def test_exported_trec_files_give_pytrec_eval_our_metrics(
    tiny_fixture_with_goldens: Fixture, adapter_id: str, k: int
) -> None:
    report = rank(tiny_fixture_with_goldens, (adapter_id,), k=k)
    files = export_files(report)
    theirs = _pytrec(
        files["qrels.trec"],
        files[f"run.{adapter_id}.default.trec"],
        {f"recall.{k}", f"success.{k}", f"ndcg_cut.{k}", "recip_rank"},
    )
    checked = 0
    for item in report.runs[0].queries:
        if item.metrics is None:
            continue
        ours = item.metrics
        if item.goldenId not in theirs:  # nothing retrieved: trec_eval skips the query
            zero = {"recall": 0, "hitRate": 0, "mrr": 0, "ndcg": 0, "precision": 0}
            assert ours.to_json() == zero
            continue
        values = theirs[item.goldenId]
        assert abs(ours.recall - values[f"recall_{k}"]) <= TOLERANCE
        assert abs(ours.hitRate - values[f"success_{k}"]) <= TOLERANCE
        assert abs(ours.mrr - values["recip_rank"]) <= TOLERANCE
        assert abs(ours.ndcg - values[f"ndcg_cut_{k}"]) <= TOLERANCE
        checked += 1
    assert checked >= 3


def test_trec_run_lines_have_strictly_decreasing_scores(lexical_report: RankingReport) -> None:
    lines = export_files(lexical_report)["run.lexical.default.trec"].splitlines()
    gateway = [line.split() for line in lines if line.startswith("gateway-reviews ")]
    assert gateway == [
        ["gateway-reviews", "Q0", SOUTH, "1", "2", "lexical.default"],
        ["gateway-reviews", "Q0", NORTH, "2", "1", "lexical.default"],
    ]


def test_qrels_list_grades_of_answerable_goldens_only(lexical_report: RankingReport) -> None:
    qrels = export_files(lexical_report)["qrels.trec"]
    assert f"gateway-reviews 0 {NORTH} 2\n" in qrels
    assert "harbor-budget-code" not in qrels


def test_report_is_canonical_json(lexical_report: RankingReport) -> None:
    data = report_bytes(lexical_report)
    assert canonical_bytes(json.loads(data)) == data


def test_two_cli_runs_write_byte_identical_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tiny_fixture_with_goldens(tmp_path / "fx")
    outputs = []
    for name in ("first", "second"):
        argv = ["ranking", "--fixture", str(root), "--adapter", "lexical,capsule"]
        argv += ["--ablate", "--verbose", "--out", str(tmp_path / name)]
        assert main(argv) == 0
        outputs.append(capsys.readouterr().out)
    first = {p.name: p.read_bytes() for p in sorted((tmp_path / "first").iterdir())}
    second = {p.name: p.read_bytes() for p in sorted((tmp_path / "second").iterdir())}
    assert sorted(first) == [
        "qrels.trec",
        "ranking.json",
        "ranking.txt",
        "run.capsule.ablated.trec",
        "run.capsule.default.trec",
        "run.lexical.ablated.trec",
        "run.lexical.default.trec",
    ]
    assert first == second
    assert outputs[0] == outputs[1]


def test_cli_verbose_shows_misses_with_what_was_retrieved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tiny_fixture_with_goldens(tmp_path / "fx")
    argv = ["ranking", "--fixture", str(root), "--adapter", "lexical", "--verbose"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "MISS atlas-owner-followup [multi-turn]" in out
    assert "REFUSAL-NONEMPTY harbor-budget-code" in out


def test_cli_tag_filter_ranks_only_tagged_goldens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tiny_fixture_with_goldens(tmp_path / "fx")
    argv = ["ranking", "--fixture", str(root), "--adapter", "lexical", "--tag", "multi-hop"]
    assert main([*argv, "--quiet", "--out", str(tmp_path / "out")]) == 0
    report = json.loads((tmp_path / "out" / "ranking.json").read_bytes())
    assert [q["goldenId"] for q in report["runs"][0]["queries"]] == ["gateway-reviews"]
    assert report["settings"]["tags"] == ["multi-hop"]


def test_cli_refuses_to_rank_the_oracle_ceiling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tiny_fixture_with_goldens(tmp_path / "fx")
    assert main(["ranking", "--fixture", str(root), "--adapter", "oracle", "--quiet"]) == 2
    assert "invalid_adapter_schedule" in capsys.readouterr().err


def test_goldens_are_all_ranked(lexical_report: RankingReport) -> None:
    ranked = [q.goldenId for q in lexical_report.runs[0].queries]
    assert ranked == sorted(str_at(g, "id") for g in tiny_goldens())
