"""``agentic compare``: the regression gate over ranking, generation and agentic lane reports."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agentic.cli import main
from agentic.contract.canonical import canonical_bytes
from agentic.contract.json_access import array_at, str_at
from agentic.contract.strict_json import JsonObject
from agentic.lane import LaneRequest, execute_lane
from tests.support.goldens import tiny_goldens, write_goldens
from tests.support.reports import resealed
from tests.support.tiny_fixture import write_tiny_fixture


def tiny_with_goldens(root: Path, *, line_ending: str = "\n") -> Path:
    write_tiny_fixture(root, line_ending=line_ending)
    write_goldens(root, tiny_goldens())
    return root


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, JsonObject]:
    """One real report of each kind from the tiny fixture, as JSON values."""
    base = tmp_path_factory.mktemp("reports")
    fixture = tiny_with_goldens(base / "fx")
    crlf = tiny_with_goldens(base / "fx-crlf", line_ending="\r\n")
    found: dict[str, JsonObject] = {}
    for name, root in (("ranking", fixture), ("ranking-crlf", crlf)):
        argv = ["ranking", "--fixture", str(root), "--adapter", "lexical,capsule", "--quiet"]
        assert main([*argv, "--out", str(base / name)]) == 0
        found[name] = json.loads((base / name / "ranking.json").read_bytes())
    argv = ["generation", "--model", "mock", "--fixture", str(fixture), "--quiet"]
    assert main([*argv, "--repeats", "1", "--out", str(base / "generation")]) == 0
    found["generation"] = json.loads((base / "generation" / "generation.json").read_bytes())
    lane = LaneRequest(
        fixture_dir=fixture,
        adapters=("oracle",),  # the ceiling solves every task, so a success can drop
        lifecycles=("cold",),
        promote=None,
        replay=False,
        out=base / "lane",
    )
    execute_lane(lane)
    found["lane"] = json.loads((base / "lane" / "report.json").read_bytes())
    first_task = str_at(found["lane"], "receipts", 0, "canonical", "taskId")
    execute_lane(replace(lane, tasks=(first_task,), out=base / "lane-one-task"))
    found["lane-one-task"] = json.loads((base / "lane-one-task" / "report.json").read_bytes())
    return found


def write(path: Path, document: Any) -> Path:
    path.write_bytes(canonical_bytes(document))
    return path


def changed(document: Any, edit: Callable[[Any], None]) -> Any:
    """An edited copy; a lane report is resealed, standing for a real run with that content."""
    copy = json.loads(json.dumps(document))
    edit(copy)
    return resealed(copy) if "benchmarkId" in copy else copy


def edited(document: Any, edit: Callable[[Any], None]) -> Any:
    """An edited copy whose stored fingerprints still describe the original (a hand edit)."""
    copy = json.loads(json.dumps(document))
    edit(copy)
    return copy


def run_compare(tmp_path: Path, base: Any, new: Any, *options: str) -> int:
    base_path = write(tmp_path / "base.json", base)
    new_path = write(tmp_path / "new.json", new)
    return main(["compare", str(base_path), str(new_path), *options])


def outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base: Any, new: Any, *options: str
) -> tuple[int, str, str]:
    code = run_compare(tmp_path, base, new, *options)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def lexical_overall(report: Any) -> Any:
    return next(r for r in report["runs"] if r["adapterId"] == "lexical")["overall"]


def set_lexical(name: str, value: float) -> Callable[[Any], None]:
    def edit(report: Any) -> None:
        lexical_overall(report)[name] = value

    return edit


def test_identical_ranking_reports_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    code, out, _ = outcome(tmp_path, capsys, reports["ranking"], reports["ranking"])
    assert code == 0
    assert out.splitlines()[-1].startswith("OK:")


def test_a_drop_beyond_the_tolerance_fails_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = reports["ranking"]
    recall = lexical_overall(base)["recall"]
    new = changed(base, set_lexical("recall", recall - 0.05))
    code, out, _ = outcome(tmp_path, capsys, base, new)
    assert code == 1
    assert "REGRESSED lexical/default overall recall" in out


def test_a_drop_within_the_tolerance_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = reports["ranking"]
    new = changed(base, set_lexical("ndcg", lexical_overall(base)["ndcg"] - 0.01))
    code, out, _ = outcome(tmp_path, capsys, base, new)
    assert code == 0
    assert "WITHIN    lexical/default overall ndcg" in out


def test_the_tolerance_option_widens_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = reports["ranking"]
    new = changed(base, set_lexical("mrr", lexical_overall(base)["mrr"] - 0.05))
    assert outcome(tmp_path, capsys, base, new, "--tolerance", "0.1")[0] == 0


def test_a_rise_of_a_lower_is_better_rate_is_a_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = changed(reports["ranking"], set_lexical("nonEmptyRate", 0.0))
    new = changed(base, set_lexical("nonEmptyRate", 1.0))
    code, out, _ = outcome(tmp_path, capsys, base, new)
    assert code == 1
    assert "REGRESSED lexical/default overall nonEmptyRate" in out


def test_an_adapter_missing_from_new_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = reports["ranking"]
    new = changed(
        base, lambda r: r.update(runs=[x for x in r["runs"] if x["adapterId"] != "capsule"])
    )
    code, out, _ = outcome(tmp_path, capsys, base, new)
    assert code == 1
    assert "MISSING   capsule/default overall recall" in out


def test_an_adapter_only_in_new_is_reported_but_not_gated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    new = reports["ranking"]
    base = changed(
        new, lambda r: r.update(runs=[x for x in r["runs"] if x["adapterId"] != "capsule"])
    )
    code, out, _ = outcome(tmp_path, capsys, base, new)
    assert code == 0
    assert "NEW       capsule/default overall recall" in out


def test_reports_of_different_fixtures_are_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    code, out, err = outcome(tmp_path, capsys, reports["ranking"], reports["ranking-crlf"])
    assert code == 2
    assert out == ""
    assert err.startswith("agentic: fixture_fingerprint_mismatch:")


def test_reports_with_different_settings_are_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    new = changed(reports["ranking"], lambda r: r["settings"].update(k=3))
    code, _, err = outcome(tmp_path, capsys, reports["ranking"], new)
    assert code == 2
    assert "report_incomparable" in err and "settings.k" in err


def test_reports_with_different_goldens_are_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    new = changed(reports["ranking"], lambda r: r.update(goldensFingerprint="0" * 64))
    code, _, err = outcome(tmp_path, capsys, reports["ranking"], new)
    assert code == 2
    assert "goldensFingerprint" in err


def test_reports_of_different_kinds_are_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    code, _, err = outcome(tmp_path, capsys, reports["ranking"], reports["generation"])
    assert code == 2
    assert "report_kind_mismatch" in err


def test_a_report_with_an_unknown_field_is_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    new = changed(reports["ranking"], lambda r: r.update(extra=1))
    code, _, err = outcome(tmp_path, capsys, reports["ranking"], new)
    assert code == 2
    assert "invalid_report" in err


def test_generation_pass_rate_drop_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = reports["generation"]
    new = changed(base, lambda r: r["modes"]["oracle"]["overall"].update(passRate=0.5))
    code, out, _ = outcome(tmp_path, capsys, base, new)
    assert code == 1
    assert "REGRESSED oracle overall passRate" in out


def test_generation_leakage_rise_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = reports["generation"]
    new = changed(base, lambda r: r["modes"]["e2e"]["overall"].update(leakageRate=0.2))
    code, out, _ = outcome(tmp_path, capsys, base, new)
    assert code == 1
    assert "REGRESSED e2e overall leakageRate" in out


def lane_scores_of(report: Any, adapter: str) -> list[Any]:
    return [s for s in report["scores"] if s["adapterId"] == adapter]


def test_identical_lane_reports_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    code, out, _ = outcome(tmp_path, capsys, reports["lane"], reports["lane"])
    assert code == 0
    assert "successRate" not in out  # nothing moved, so nothing is listed


def test_a_lane_success_drop_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = reports["lane"]

    def fail_first_success(report: Any) -> None:
        winner = next(s for s in lane_scores_of(report, "oracle") if s["score"]["success"] == 1)
        winner["score"]["success"] = 0

    code, out, _ = outcome(tmp_path, capsys, base, changed(base, fail_first_success))
    assert code == 1
    assert "REGRESSED oracle successRate" in out


def test_lane_bytes_growth_beyond_relative_tolerance_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = reports["lane"]

    def grow(report: Any) -> None:
        for receipt in report["receipts"]:
            receipt["canonical"]["modelVisibleUtf8Bytes"] *= 2

    code, out, _ = outcome(tmp_path, capsys, base, changed(base, grow))
    assert code == 1
    assert "REGRESSED oracle meanModelVisibleBytes" in out


def test_lane_reports_of_different_agents_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    new = changed(reports["lane"], lambda r: r["environment"].update(agentId="other-agent"))
    code, _, err = outcome(tmp_path, capsys, reports["lane"], new)
    assert code == 2
    assert "agentId" in err


def flip_first_success(report: Any) -> None:
    winner = next(s for s in lane_scores_of(report, "oracle") if s["score"]["success"] == 1)
    winner["score"]["success"] = 0


def test_compare_refuses_a_hand_edited_report_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = reports["lane"]
    code, out, err = outcome(tmp_path, capsys, base, edited(base, flip_first_success))
    assert code == 2
    assert err.startswith("agentic: report_fingerprint_mismatch: ")
    assert "canonicalFingerprint" in err and "IMPROVED" not in out


def test_validate_refuses_a_hand_edited_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    path = write(tmp_path / "edited.json", edited(reports["lane"], flip_first_success))
    assert main(["validate", "report", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "report_fingerprint_mismatch" in err


def test_validate_refuses_an_edited_results_fingerprint_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    document = edited(reports["lane"], lambda r: r.update(resultsFingerprint="0" * 64))
    assert main(["validate", "report", str(write(tmp_path / "r.json", document))]) == 2
    assert "resultsFingerprint" in capsys.readouterr().err


def test_validate_accepts_a_report_as_the_kit_wrote_it(
    tmp_path: Path, reports: dict[str, JsonObject]
) -> None:
    assert main(["validate", "report", str(write(tmp_path / "r.json", reports["lane"]))]) == 0


# --- receipt by receipt ---------------------------------------------------------------------------


def test_identical_lane_reports_have_equal_receipts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    pairs = len(array_at(reports["lane"], "receipts"))
    code, out, _ = outcome(tmp_path, capsys, reports["lane"], reports["lane"], "--receipts")
    assert code == 0
    assert f"{pairs}/{pairs} receipts" in out


def test_a_shorter_rerun_matches_the_pairs_it_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    subset = reports["lane-one-task"]
    code, out, _ = outcome(tmp_path, capsys, reports["lane"], subset, "--receipts")
    assert code == 0
    pairs = len(array_at(subset, "receipts"))
    assert f"{pairs}/{pairs} receipts" in out


def test_a_differing_receipt_fails_naming_its_pair_and_first_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    def edit(report: Any) -> None:
        report["receipts"][0]["canonical"]["calls"][0]["arguments"]["query"] = "edited"

    new = changed(reports["lane-one-task"], edit)
    code, out, _ = outcome(tmp_path, capsys, reports["lane"], new, "--receipts")
    canonical = new["receipts"][0]["canonical"]
    assert code == 1
    assert out.startswith(f"oracle/{canonical['taskId']}/{canonical['trialId']}/cold: ")
    assert "calls[0].arguments.query" in out


def test_a_pair_the_base_never_ran_is_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    code, _, err = outcome(
        tmp_path, capsys, reports["lane-one-task"], reports["lane"], "--receipts"
    )
    assert code == 2
    assert "pair_not_in_base" in err


def test_receipts_of_reports_of_two_fixtures_are_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    other = changed(reports["lane"], lambda r: r.update(fixtureFingerprint="f" * 64))
    code, _, err = outcome(tmp_path, capsys, reports["lane"], other, "--receipts")
    assert code == 2
    assert "fixture_fingerprint_mismatch" in err


def test_receipts_of_a_ranking_report_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    code, _, err = outcome(tmp_path, capsys, reports["ranking"], reports["ranking"], "--receipts")
    assert code == 2
    assert "lane reports" in err


def test_accept_files_a_first_baseline_under_its_fingerprint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    report = write(tmp_path / "r.json", reports["ranking"])
    baselines = tmp_path / "baselines"
    assert main(["compare", str(report), "--accept", "--baselines", str(baselines)]) == 0
    fingerprint = str_at(reports["ranking"], "fixtureFingerprint")
    target = baselines / "ranking" / fingerprint / "ranking.json"
    assert target.read_bytes() == canonical_bytes(reports["ranking"])
    assert capsys.readouterr().err == f"agentic: accepted {report} as the baseline {target}\n"


def test_a_first_baseline_never_replaces_an_existing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    report = write(tmp_path / "r.json", reports["ranking"])
    argv = ["compare", str(report), "--accept", "--baselines", str(tmp_path / "b")]
    assert main(argv) == 0
    assert main(argv) == 2
    assert "baseline_exists" in capsys.readouterr().err


def test_baselines_of_two_fixtures_live_side_by_side(
    tmp_path: Path, reports: dict[str, JsonObject]
) -> None:
    baselines = tmp_path / "baselines"
    for name in ("ranking", "ranking-crlf"):
        report = write(tmp_path / f"{name}.json", reports[name])
        assert main(["compare", str(report), "--accept", "--baselines", str(baselines)]) == 0
    assert len(list((baselines / "ranking").iterdir())) == 2


def test_a_passing_comparison_accepts_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    base = reports["ranking"]
    new = changed(base, set_lexical("recall", 1.0))
    baselines = tmp_path / "baselines"
    code, _, err = outcome(tmp_path, capsys, base, new, "--accept", "--baselines", str(baselines))
    assert code == 0
    target = baselines / "ranking" / str_at(base, "fixtureFingerprint") / "ranking.json"
    assert target.read_bytes() == canonical_bytes(new)
    assert err == f"agentic: accepted {tmp_path / 'new.json'} as the baseline {target}\n"


def test_a_failing_comparison_accepts_nothing(
    tmp_path: Path, reports: dict[str, JsonObject]
) -> None:
    base = reports["ranking"]
    new = changed(base, set_lexical("recall", 0.0))
    baselines = tmp_path / "baselines"
    code = run_compare(tmp_path, base, new, "--accept", "--baselines", str(baselines))
    assert code == 1
    assert not baselines.exists()


def test_promote_the_former_name_of_accept_is_refused_and_files_nothing(
    tmp_path: Path, reports: dict[str, JsonObject], capsys: pytest.CaptureFixture[str]
) -> None:
    """ "Promotion" is only the adapter gate: ``compare --promote`` names ``--accept`` instead."""
    base = reports["ranking"]
    baselines = tmp_path / "baselines"
    first = write(tmp_path / "first.json", base)
    assert main(["compare", str(first), "--promote", "--baselines", str(baselines)]) == 2
    assert (
        capsys.readouterr().err == "agentic: invalid_cli_option: --promote was renamed --accept\n"
    )
    assert not baselines.exists()


def test_generation_baselines_are_filed_per_model(
    tmp_path: Path, reports: dict[str, JsonObject]
) -> None:
    report = write(tmp_path / "g.json", reports["generation"])
    baselines = tmp_path / "baselines"
    assert main(["compare", str(report), "--accept", "--baselines", str(baselines)]) == 0
    fingerprint = str_at(reports["generation"], "fixtureFingerprint")
    assert (baselines / "generation" / fingerprint / "mock.json").is_file()


def test_lane_reports_are_not_accepted_here(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    report = write(tmp_path / "l.json", reports["lane"])
    argv = ["compare", str(report), "--accept", "--baselines", str(tmp_path / "b")]
    assert main(argv) == 2
    assert "agentic run --write" in capsys.readouterr().err


def test_one_report_without_accept_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reports: dict[str, JsonObject]
) -> None:
    report = write(tmp_path / "r.json", reports["ranking"])
    assert main(["compare", str(report)]) == 2
    assert "invalid_cli_option" in capsys.readouterr().err
