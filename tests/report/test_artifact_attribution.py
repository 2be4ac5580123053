"""Attribution in a lane's artifacts: observations.json gives each receipt its attribution when
the fixture's facts are known, and nothing canonical moves with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic.fixture.loader import Fixture
from agentic.lane import LaneOutcome, LaneRequest, execute_lane
from agentic.report.artifacts import render_artifacts
from agentic.scoring.task_facts import task_facts
from tests.support.tiny_fixture import TASK_C


@pytest.fixture(scope="module")
def written(tiny_fixture: Fixture, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("attribution") / "run"
    execute_lane(
        LaneRequest(fixture_dir=tiny_fixture.root, adapters=("lexical",), promote=None, out=out)
    )
    return out


@pytest.fixture(scope="module")
def outcome(tiny_fixture: Fixture) -> LaneOutcome:
    return execute_lane(
        LaneRequest(fixture_dir=tiny_fixture.root, adapters=("lexical",), promote=None)
    )


def test_a_written_lane_gives_each_receipt_of_observations_json_its_attribution(
    written: Path,
) -> None:
    receipts = json.loads((written / "observations.json").read_bytes())["receipts"]
    assert receipts
    for entry in receipts:
        attribution = entry["attribution"]
        assert set(attribution) == {"evidenceDelivered", "verdict"}
        if entry["taskId"] == TASK_C:  # the abstention task: nothing to deliver
            assert attribution["evidenceDelivered"] is None


def test_a_written_lanes_report_md_has_the_attribution_section(written: Path) -> None:
    assert "\n## Attribution\n" in (written / "report.md").read_text(encoding="utf-8")


def test_without_facts_observations_json_has_no_attribution(outcome: LaneOutcome) -> None:
    observations = json.loads(render_artifacts(outcome.report)["observations.json"])
    assert all("attribution" not in entry for entry in observations["receipts"])


def test_facts_change_no_canonical_byte(outcome: LaneOutcome, tiny_fixture: Fixture) -> None:
    plain = render_artifacts(outcome.report)
    attributed = render_artifacts(outcome.report, facts=task_facts(tiny_fixture))
    assert attributed["canonical.json"] == plain["canonical.json"]
    assert attributed["report.json"] == plain["report.json"]
    assert attributed["observations.json"] != plain["observations.json"]
