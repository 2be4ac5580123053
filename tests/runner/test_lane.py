"""The lane end to end on the tiny fixture: real adapters, the fixture agent, scoring, reports."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.contract.errors import ContractError
from agentic.contract.schemas import schema_errors
from agentic.lane import Execution, LaneRequest, execute_lane, plan_lane
from agentic.lane.executors.units import worker_spec
from agentic.report.markdown import render_beside
from tests.support.tiny_fixture import TASK_A, TASK_IDS


def _request(fixture_dir: Path, **changes: object) -> LaneRequest:
    defaults: dict[str, object] = {
        "fixture_dir": fixture_dir,
        "adapters": ("capsule", "lexical"),
        "promote": None,
    }
    defaults.update(changes)
    return LaneRequest(**defaults)  # type: ignore[arg-type]


def test_the_oracle_ceiling_solves_every_tiny_task_in_both_lifecycles(
    tiny_fixture_dir: Path,
) -> None:
    outcome = execute_lane(_request(tiny_fixture_dir, adapters=("oracle",)))
    assert outcome.exit_code == 0
    assert [s.score.success for s in outcome.report.scores] == [1] * (2 * len(TASK_IDS))


def test_a_worker_retries_a_failed_pair_setup_as_often_as_one_process_would(
    tiny_fixture_dir: Path,
) -> None:
    plan = plan_lane(_request(tiny_fixture_dir, execution=Execution(retries=2)))
    assert plan.config.retries == 2
    spec = worker_spec(plan, shared_filesystem=True)
    rebuilt = plan_lane(spec.request)
    assert rebuilt.config.retries == 2


def test_a_worker_spec_is_plain_data_a_worker_receives_as_it_was_sent(
    tiny_fixture_dir: Path,
) -> None:
    spec = worker_spec(plan_lane(_request(tiny_fixture_dir)), shared_filesystem=False)
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_a_ray_address_without_the_ray_executor_is_refused(
    tiny_fixture_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--fixture", str(tiny_fixture_dir), "--ray-address", "127.0.0.1:6379"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "agentic: invalid_cli_option: --ray-address needs --executor ray (the address is Ray's)\n"
    )


def test_two_runs_write_byte_identical_canonical_json(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    execute_lane(_request(tiny_fixture_dir, out=tmp_path / "one"))
    execute_lane(_request(tiny_fixture_dir, out=tmp_path / "two"))
    first = (tmp_path / "one" / "canonical.json").read_bytes()
    assert first == (tmp_path / "two" / "canonical.json").read_bytes()


def test_the_written_report_validates_against_the_published_schema(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    execute_lane(_request(tiny_fixture_dir, out=tmp_path / "out"))
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert schema_errors("benchmark-report", report) == []


def test_temp_paths_never_reach_the_artifacts(tiny_fixture_dir: Path, tmp_path: Path) -> None:
    execute_lane(_request(tiny_fixture_dir, out=tmp_path / "out"))
    for name in ("report.json", "canonical.json", "observations.json", "report.md"):
        text = (tmp_path / "out" / name).read_text(encoding="utf-8")
        assert "/tmp" not in text and "agentic-run-" not in text, name


def test_the_oracle_ceiling_never_runs_beside_a_product(tiny_fixture_dir: Path) -> None:
    with pytest.raises(ContractError) as caught:
        execute_lane(_request(tiny_fixture_dir, adapters=("lexical", "oracle")))
    assert caught.value.code == "invalid_adapter_schedule"


def test_a_partial_lane_cannot_be_written_as_a_baseline(tiny_fixture_dir: Path) -> None:
    with pytest.raises(ContractError) as caught:
        execute_lane(_request(tiny_fixture_dir, tasks=(TASK_A,), write=True))
    assert caught.value.code == "unsafe_baseline_write"


@pytest.mark.parametrize(
    "changes",
    [
        {"tasks": ()},
        {"tasks": (TASK_A, TASK_A)},
        {"tasks": ("t9999999",)},
        {"adapters": ("nonesuch",)},
        {"lifecycles": ("tepid",)},
    ],
    ids=["empty-tasks", "duplicate-task", "unknown-task", "unknown-adapter", "unknown-lifecycle"],
)
def test_a_bad_schedule_is_refused_before_any_preparation(
    tiny_fixture_dir: Path, changes: dict[str, object]
) -> None:
    with pytest.raises(ContractError):
        execute_lane(_request(tiny_fixture_dir, **changes))


def test_promotion_is_absent_unless_both_adapters_ran(tiny_fixture_dir: Path) -> None:
    outcome = execute_lane(_request(tiny_fixture_dir, promote=("capsule", "mcp-reference")))
    assert outcome.report.promotion is None


def test_rescoring_a_fresh_report_finds_no_difference(
    tiny_fixture_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    execute_lane(_request(tiny_fixture_dir, out=tmp_path / "out"))
    code = main(
        ["score", str(tmp_path / "out" / "report.json"), "--fixture", str(tiny_fixture_dir)]
    )
    assert code == 0, capsys.readouterr()


def test_rescoring_reports_a_stored_score_that_differs(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    execute_lane(_request(tiny_fixture_dir, out=tmp_path / "out"))
    path = tmp_path / "out" / "report.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    stored = report["scores"][0]["score"]
    stored["success"] = 1 - stored["success"]
    path.write_text(json.dumps(report), encoding="utf-8")
    assert main(["score", str(path), "--fixture", str(tiny_fixture_dir)]) == 1


def test_the_cli_exits_2_with_one_line_on_an_unknown_task(
    tiny_fixture_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "--fixture", str(tiny_fixture_dir), "--task", "t9999999", "--quiet"])
    assert code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_a_reused_index_gives_the_same_canonical_report(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    execute_lane(_request(tiny_fixture_dir, out=tmp_path / "fresh"))
    execute_lane(_request(tiny_fixture_dir, out=tmp_path / "filled", index_cache=cache))
    reused = execute_lane(_request(tiny_fixture_dir, out=tmp_path / "reused", index_cache=cache))
    details = [p.observations.details for p in reused.report.preparations]
    assert all(d.get("indexCache") == "reused" for d in details)
    expected = (tmp_path / "fresh" / "canonical.json").read_bytes()
    for name in ("filled", "reused"):
        assert (tmp_path / name / "canonical.json").read_bytes() == expected


def test_an_optional_lane_can_be_read_beside_a_reference_run(tiny_fixture_dir: Path) -> None:
    report = execute_lane(_request(tiny_fixture_dir)).report
    table = render_beside(report, report, "baselines/fixture-agent")
    rows = [line for line in table.splitlines() if line.startswith("| capsule | cold")]
    assert [row.split(" | ")[2] for row in rows] == ["baselines/fixture-agent", "this run"]
