"""baselines/README.md is generated from the committed reports (``agentic/docgen/baselines.py``)
and must be the committed file byte for byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentic.catalog.load import load_catalog
from agentic.contract.envelope import Evidence
from agentic.contract.receipt import CanonicalReceipt, TrajectoryReceipt
from agentic.contract.report import BenchmarkReport, ScoreRecord
from agentic.docgen.baselines import (
    PAGE,
    REAL_MODELS,
    attribution_text,
    read_lane,
    render_baselines,
    success,
)
from agentic.scoring.evidence import keys_of
from agentic.scoring.task_facts import RequiredClaim, TaskFacts
from tests.support.scoring import (
    line_evidence,
    make_call,
    make_receipt,
    make_result,
    plain_score,
    score_record,
)

ROOT = Path(__file__).resolve().parent.parent
BASELINES = ROOT / "baselines"


@pytest.fixture(scope="module")
def page() -> str:
    return render_baselines(BASELINES)


def test_the_committed_baselines_page_is_the_generated_one(page: str) -> None:
    committed = (ROOT / PAGE).read_text(encoding="utf-8")
    assert committed == page, f"{PAGE} is stale: run `python -m agentic.docgen` and commit it"


def test_every_committed_lane_report_has_a_row(page: str) -> None:
    folders = sorted(path.parent for path in BASELINES.rglob("report.json"))
    rows = [f"| [{f.relative_to(BASELINES).as_posix()}/](" for f in folders]
    assert [row for row in rows if row not in page] == []


def _report(tmp_path: Path, outcomes: dict[str, int]) -> Path:
    """A lane report holding only what the page reads: one task of ``lexical`` per lifecycle,
    with the given success, one call and 100 model-visible bytes."""
    document: dict[str, Any] = {
        "environment": {"agentId": "fixture-agent-v1", "trials": [{"seed": 0}]},
        "fixtureFingerprint": "ab" * 32,
        "attemptedPairs": len(outcomes),
        "exclusions": [],
        "promotion": None,
        "receipts": [
            {"canonical": {"adapterId": "lexical", "lifecycle": lifecycle, "agentCalls": 1,
                           "modelVisibleUtf8Bytes": 100}}
            for lifecycle in outcomes
        ],
        "scores": [
            {"adapterId": "lexical", "lifecycle": lifecycle, "taskId": "t0000001",
             "score": {"success": won}}
            for lifecycle, won in outcomes.items()
        ],
    }  # fmt: skip
    path = tmp_path / "lane" / "report.json"
    path.parent.mkdir()
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_figure_is_written_once_when_cold_and_warm_agree(tmp_path: Path) -> None:
    lane = read_lane(tmp_path, _report(tmp_path, {"cold": 1, "warm": 1}))
    assert success(lane, "lexical") == "1/1"
    assert lane.cohorts_agree()


def test_a_figure_is_written_per_lifecycle_when_they_differ(tmp_path: Path) -> None:
    lane = read_lane(tmp_path, _report(tmp_path, {"cold": 1, "warm": 0}))
    assert success(lane, "lexical") == "cold 1/1, warm 0/1"
    assert not lane.cohorts_agree()


# -- the real-model lanes ---------------------------------------------------------------------

TASKS = ("t0000001", "t0000002")
OWNER = line_evidence()
REVIEWED = line_evidence(4, "Reviewed yearly.")
# Both tasks require the owner's line.
FACTS = {
    task: TaskFacts(
        "exact_identifier", (), required_claims=(RequiredClaim("owner", keys_of([OWNER])),)
    )
    for task in TASKS
}


def _pair(
    adapter: str, task: str, delivered: Evidence, success: int
) -> tuple[CanonicalReceipt, ScoreRecord]:
    receipt = make_receipt([make_call(0, make_result([delivered]))], adapter=adapter, task_id=task)
    return receipt, score_record(receipt, plain_score(success=success, task_id=task))


def _synthetic_report() -> BenchmarkReport:
    """Two adapters on two tasks: capsule delivers the evidence both times and succeeds once;
    lexical misses it on the first task (and fails) and succeeds on the second."""
    pairs = [
        _pair("capsule", TASKS[0], OWNER, 1),
        _pair("capsule", TASKS[1], OWNER, 0),
        _pair("lexical", TASKS[0], REVIEWED, 0),
        _pair("lexical", TASKS[1], OWNER, 1),
    ]
    # Attribution reads only the receipts' canonical part and the scores: the rest is left unset
    # (passed as a dict, which the type checker cannot hold to every field).
    receipts = []
    for receipt, _ in pairs:
        fields: dict[str, Any] = {"canonical": receipt}
        receipts.append(TrajectoryReceipt.model_construct(**fields))
    report: dict[str, Any] = {"receipts": tuple(receipts), "scores": tuple(s for _, s in pairs)}
    return BenchmarkReport.model_construct(**report)


def test_the_attribution_table_gives_each_adapters_evidence_success_and_blame() -> None:
    text = "\n".join(attribution_text(_synthetic_report(), FACTS))

    assert (
        "| capsule | 2 | 2 | 2/2 1.000 [0.342, 1.000] | 1/2 0.500 [0.095, 0.905] | 1/2 | 0 | 1 |"
    ) in text
    assert (
        "| lexical | 2 | 2 | 1/2 0.500 [0.095, 0.905] | 1/2 0.500 [0.095, 0.905] | 1/1 | 1 | 0 |"
    ) in text
    assert (
        "- capsule vs lexical: evidence delivered: 2 matched pairs, 1 only capsule, 0 only "
        "lexical, exact McNemar p=1: within noise."
    ) in text


def test_a_real_model_lane_without_a_committed_report_is_left_out(tmp_path: Path) -> None:
    # Only qwen-sqlite's report is there; qwen-bundled's folder is not.
    present, missing = REAL_MODELS[1], REAL_MODELS[0]
    folder = tmp_path / "baselines" / present.lane
    folder.mkdir(parents=True)
    for name in ("report.json", "observations.json"):
        shutil.copyfile(BASELINES / present.lane / name, folder / name)

    page = render_baselines(tmp_path / "baselines")

    assert f"\n### {present.lane} on " in page
    assert missing.lane not in page


def test_each_real_model_lane_is_the_catalogs_with_its_cache_beside_a_lane_on_its_fixture() -> None:
    lanes = load_catalog(plugins=False).lanes
    for real in REAL_MODELS:
        assert lanes[real.lane].llm_cache == f"baselines/{real.cache}"
        assert lanes[real.lane].fixture == lanes[real.beside].fixture
