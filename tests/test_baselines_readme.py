"""baselines/README.md is generated from the committed reports (``agentic/docgen/baselines.py``)
and must be the committed file byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic.docgen.baselines import PAGE, read_lane, render_baselines, success

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
