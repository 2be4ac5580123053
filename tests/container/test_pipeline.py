"""The pipeline's decisions: options, fingerprint and provenance checks, lanes, exit codes."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from agentic.cli import main
from containers import pipeline
from containers.engine import ENGINE_ENV, Engine
from containers.errors import ContainerError

FP_A = "a" * 64
FP_B = "b" * 64


def test_default_options_build_the_base_from_debian_packages() -> None:
    options = pipeline.parse_options([])
    assert options == pipeline.Options(fixture=None, base="debootstrap", keep_store=False)


def test_an_unknown_base_is_an_invalid_option() -> None:
    with pytest.raises(ContainerError) as caught:
        pipeline.parse_options(["--base", "alpine"])
    assert caught.value.code == "invalid_option"


def test_a_fixture_that_is_not_a_folder_is_an_invalid_option(tmp_path: Path) -> None:
    with pytest.raises(ContainerError) as caught:
        pipeline.parse_options(["--fixture", str(tmp_path / "missing")])
    assert caught.value.code == "invalid_option"


def test_a_canonical_file_without_results_fingerprint_is_unreadable() -> None:
    with pytest.raises(ContainerError) as caught:
        pipeline.results_fingerprint({"canonicalFingerprint": FP_A}, "container run")
    assert caught.value.code == "report_unreadable"


def test_differing_fingerprints_fail_with_both_values() -> None:
    with pytest.raises(ContainerError) as caught:
        pipeline.require_same("resultsFingerprint", FP_A, FP_B, "fingerprint_mismatch")
    assert caught.value.code == "fingerprint_mismatch"
    assert FP_A in caught.value.message
    assert FP_B in caught.value.message


def test_build_metadata_is_passed_as_both_arguments() -> None:
    assert pipeline.build_metadata("c0ffee", dirty=False) == {
        "AGENTIC_BUILD_COMMIT": "c0ffee",
        "AGENTIC_BUILD_DIRTY": "false",
    }


def test_unknown_git_state_bakes_no_metadata() -> None:
    assert pipeline.build_metadata(None, None) == {}


def test_a_report_that_names_another_commit_fails_provenance() -> None:
    report = {"environment": {"git": {"commit": "other", "dirty": False}}}
    with pytest.raises(ContainerError) as caught:
        pipeline.check_provenance(report, "c0ffee", False)
    assert caught.value.code == "provenance_mismatch"


def test_a_report_with_the_builds_commit_and_dirty_flag_passes_provenance() -> None:
    report = {"environment": {"git": {"commit": "c0ffee", "dirty": True}}}
    pipeline.check_provenance(report, "c0ffee", True)


def test_the_image_tag_names_the_commit() -> None:
    assert pipeline.image_tag("0123456789abcdef") == "localhost/agentic-kit:0123456789ab"


def test_a_kit_without_qmd_lex_or_local_model_has_no_smoke_lanes() -> None:
    assert pipeline.smoke_lanes(("capsule", "lexical"), False, "t1") == ()


def test_smoke_lanes_without_committed_baselines_only_have_to_run() -> None:
    lanes = pipeline.smoke_lanes(("lexical", "qmd-lex"), True, "t1", frozenset())
    assert [(lane.name, lane.verify) for lane in lanes] == [
        ("qmd-lex", False),
        ("local-model", False),
    ]
    local = lanes[1].args
    assert local[local.index("--agent") + 1] == "local-model"
    assert local[local.index("--task") + 1] == "t1"


ALL_COMMITTED = frozenset(pipeline.VERIFIABLE_LANES)


def test_the_qmd_lex_smoke_lane_verifies_its_committed_lane() -> None:
    (lane,) = pipeline.smoke_lanes(("qmd-lex",), False, "t1", ALL_COMMITTED)
    assert lane.verify
    assert lane.args == (pipeline.QMD_LEX_LANE,)


def test_the_local_model_smoke_lane_verifies_one_cold_task_against_the_committed_lane() -> None:
    (lane,) = pipeline.smoke_lanes(("lexical",), True, "t1", ALL_COMMITTED)
    assert lane.verify
    assert lane.args[:2] == (pipeline.LOCAL_MODEL_LANE, "--smoke")
    args = lane.args
    assert args[args.index("--task") + 1] == "t1"
    assert args[args.index("--lifecycle") + 1] == "cold"
    assert args[args.index("--repeats") + 1] == "1"
    # The image may build llama.cpp with other CPU flags: not compared then, and said so.
    assert "--allow-other-build" in args


def write_committed(root: Path, lane: str) -> None:
    folder = root / pipeline.BASELINES / lane
    folder.mkdir(parents=True)
    for name in pipeline.BASELINE_FILES:
        (folder / name).write_text(json.dumps({"resultsFingerprint": FP_A}), encoding="utf-8")


def test_committed_lanes_are_those_whose_baseline_files_exist(tmp_path: Path) -> None:
    write_committed(tmp_path, pipeline.AUTHORITATIVE_LANE)
    write_committed(tmp_path, pipeline.QMD_LEX_LANE)
    (tmp_path / pipeline.BASELINES / pipeline.QMD_LEX_LANE / "report.json").unlink()
    assert pipeline.committed_lanes(tmp_path, None) == {pipeline.AUTHORITATIVE_LANE}


def test_another_fixture_has_no_committed_lanes(tmp_path: Path) -> None:
    write_committed(tmp_path, pipeline.AUTHORITATIVE_LANE)
    assert pipeline.committed_lanes(tmp_path, tmp_path / "fixture") == frozenset()


def test_the_bundled_fixture_requires_the_committed_baseline() -> None:
    with pytest.raises(ContainerError) as caught:
        pipeline.require_authoritative_baseline(frozenset(), None)
    assert caught.value.code == "baseline_missing"


def test_another_fixture_needs_no_committed_baseline(tmp_path: Path) -> None:
    pipeline.require_authoritative_baseline(frozenset(), tmp_path)


def test_the_bundled_authoritative_lane_is_verified_and_another_fixture_is_only_run() -> None:
    verified = pipeline.authoritative_lane(ALL_COMMITTED)
    assert (verified.verify, verified.args) == (True, (pipeline.AUTHORITATIVE_LANE,))
    run = pipeline.authoritative_lane(frozenset())
    assert (run.verify, run.args) == (False, ("--lane", pipeline.AUTHORITATIVE_LANE))


def test_a_verify_lane_points_the_kit_at_the_baselines_and_writes_a_summary() -> None:
    lane = pipeline.Rerun("qmd-lex", (pipeline.QMD_LEX_LANE,), verify=True)
    command = pipeline.lane_command(lane, fixture=None, out="/out/qmd-lex", baselines="/baselines")
    assert command == [
        "verify",
        pipeline.QMD_LEX_LANE,
        "--baselines",
        "/baselines",
        "--out",
        "/out/qmd-lex",
        "--summary",
        "/out/qmd-lex.verify.json",
        "--quiet",
    ]


def verdict(tmp_path: Path, **fields: Any) -> pipeline.RerunResult:
    """A lane result whose `agentic verify --summary` holds one verdict with ``fields``."""
    out = tmp_path / "qmd-lex"
    summary = {"passed": fields.get("passed"), "lanes": [fields]}
    pipeline.summary_path(out).write_text(json.dumps(summary), encoding="utf-8")
    return pipeline.RerunResult(exit_code=0 if fields.get("passed") else 1, seconds=1.0, out=out)


VERIFIED = pipeline.Rerun("qmd-lex", (pipeline.QMD_LEX_LANE,), verify=True)


def test_a_passing_verdict_passes(tmp_path: Path) -> None:
    pipeline.require_verified(VERIFIED, verdict(tmp_path, passed=True, mode="rerun"))


def test_a_rerun_verdict_that_failed_is_a_fingerprint_mismatch_naming_the_problem(
    tmp_path: Path,
) -> None:
    problem = f"resultsFingerprint differs: rerun {FP_A}, committed {FP_B}"
    result = verdict(tmp_path, passed=False, mode="rerun", problems=[problem])
    with pytest.raises(ContainerError) as caught:
        pipeline.require_verified(VERIFIED, result)
    assert caught.value.code == "fingerprint_mismatch"
    assert FP_A in caught.value.message
    assert FP_B in caught.value.message


def test_a_smoke_verdict_that_failed_is_a_receipts_mismatch(tmp_path: Path) -> None:
    result = verdict(tmp_path, passed=False, mode="smoke", problems=["1 of 3 receipts differ"])
    with pytest.raises(ContainerError) as caught:
        pipeline.require_verified(VERIFIED, result)
    assert caught.value.code == "receipts_mismatch"


def test_a_verify_without_a_summary_failed(tmp_path: Path) -> None:
    result = pipeline.RerunResult(exit_code=1, seconds=1.0, out=tmp_path / "qmd-lex")
    with pytest.raises(ContainerError) as caught:
        pipeline.require_verified(VERIFIED, result)
    assert caught.value.code == "lane_failed"


def test_smoke_figures_say_why_pairs_were_not_compared(tmp_path: Path) -> None:
    result = verdict(
        tmp_path,
        passed=True,
        mode="smoke",
        receiptsCompared=None,
        receiptsNotCompared="another llama.cpp build",
    )
    (result.out).mkdir()
    (result.out / "canonical.json").write_text(
        json.dumps({"resultsFingerprint": FP_A}), encoding="utf-8"
    )
    figures = pipeline.smoke_figures(VERIFIED, result)
    assert figures["pairsCompared"] is False
    assert figures["pairsNotCompared"] == "another llama.cpp build"
    assert figures["resultsFingerprint"] == FP_A


def test_staged_baselines_hold_the_committed_files_readable_by_the_images_user(
    tmp_path: Path,
) -> None:
    write_committed(tmp_path, pipeline.QMD_LEX_LANE)
    report = tmp_path / pipeline.BASELINES / pipeline.QMD_LEX_LANE / "report.json"
    report.chmod(0o600)  # what an atomic writer leaves behind
    staged = pipeline.stage_baselines(
        tmp_path, frozenset({pipeline.QMD_LEX_LANE}), tmp_path / "scratch"
    )
    assert staged is not None
    copied = staged / pipeline.QMD_LEX_LANE / "report.json"
    assert copied.stat().st_mode & 0o777 == 0o644
    assert copied.read_bytes() == report.read_bytes()


def test_nothing_is_staged_without_committed_lanes(tmp_path: Path) -> None:
    assert pipeline.stage_baselines(tmp_path, frozenset(), tmp_path / "scratch") is None


# --- the authoritative step, with the host and image runs faked ------------------------------


def lane_result(
    folder: Path, fingerprint: str, exit_code: int, verdict: dict[str, Any] | None = None
) -> pipeline.RerunResult:
    """What a run (or verify) left: canonical.json, a report with provenance, a summary."""
    out = folder / "authoritative"
    out.mkdir(parents=True)
    (out / "canonical.json").write_text(
        json.dumps({"resultsFingerprint": fingerprint}), encoding="utf-8"
    )
    report = {"environment": {"git": {"commit": "c0ffee", "dirty": False}}}
    (out / "report.json").write_text(json.dumps(report), encoding="utf-8")
    if verdict is not None:
        summary = {"passed": verdict["passed"], "lanes": [verdict]}
        pipeline.summary_path(out).write_text(json.dumps(summary), encoding="utf-8")
    return pipeline.RerunResult(exit_code=exit_code, seconds=2.0, out=out)


def run_authoritative(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    host: pipeline.RerunResult,
    inside: pipeline.RerunResult,
    committed: frozenset[str] = ALL_COMMITTED,
) -> tuple[dict[str, Any], list[pipeline.Rerun]]:
    ran: list[pipeline.Rerun] = []

    def on_host(lane: pipeline.Rerun, *args: Any) -> pipeline.RerunResult:
        ran.append(lane)
        return host

    def in_image(*args: Any) -> pipeline.RerunResult:
        return inside

    monkeypatch.setattr(pipeline, "run_host_lane", on_host)
    monkeypatch.setattr(pipeline, "run_image_lane", in_image)
    engine = Engine(kind="docker", program="docker", global_args=(), env={})
    session = pipeline.Session(engine=engine, root=tmp_path, scratch=tmp_path, user=())
    inputs = pipeline.Inputs(fixture=None, committed=committed, baselines=tmp_path)
    figures: dict[str, Any] = {}
    with ExitStack() as stack:
        pipeline.authoritative(
            session,
            stack,
            tag="t",
            inputs=inputs,
            metadata=("c0ffee", False),
            figures=figures,
        )
    return figures, ran


def test_the_bundled_lane_verified_on_the_host_and_inside_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    passed = {"passed": True, "mode": "rerun", "problems": []}
    host = lane_result(tmp_path / "host", FP_A, 0, passed)
    inside = lane_result(tmp_path / "inside", FP_A, 0, passed)
    figures, ran = run_authoritative(tmp_path, monkeypatch, host, inside)
    assert [lane.verify for lane in ran] == [True]
    assert figures["lane"]["baselineCompared"] is True
    assert figures["lane"]["resultsFingerprint"] == FP_A


def test_an_image_that_differs_from_the_host_run_fails_with_both_fingerprints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = lane_result(tmp_path / "host", FP_A, 0, {"passed": True, "mode": "rerun"})
    inside = lane_result(tmp_path / "inside", FP_B, 1, {"passed": False, "mode": "rerun"})
    with pytest.raises(ContainerError) as caught:
        run_authoritative(tmp_path, monkeypatch, host, inside)
    assert caught.value.code == "fingerprint_mismatch"
    assert FP_A in caught.value.message
    assert FP_B in caught.value.message


def test_host_and_image_agreeing_but_not_reproducing_the_baseline_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem = f"resultsFingerprint differs: rerun {FP_A}, committed {FP_B}"
    failed = {"passed": False, "mode": "rerun", "problems": [problem]}
    host = lane_result(tmp_path / "host", FP_A, 1, failed)
    inside = lane_result(tmp_path / "inside", FP_A, 1, failed)
    with pytest.raises(ContainerError) as caught:
        run_authoritative(tmp_path, monkeypatch, host, inside)
    assert caught.value.code == "fingerprint_mismatch"
    assert FP_B in caught.value.message


def test_another_fixture_is_compared_with_the_host_run_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = lane_result(tmp_path / "host", FP_A, 1)  # 1: the promotion gate, a measurement
    inside = lane_result(tmp_path / "inside", FP_A, 1)
    figures, ran = run_authoritative(tmp_path, monkeypatch, host, inside, frozenset())
    assert [lane.verify for lane in ran] == [False]
    assert figures["lane"]["baselineCompared"] is False


def test_lane_command_points_the_kit_at_the_mounted_fixture_and_output() -> None:
    lane = pipeline.Rerun("authoritative", ("--adapter", "capsule"))
    assert pipeline.lane_command(lane, fixture="/fixture", out="/out/authoritative") == [
        "run",
        "--adapter",
        "capsule",
        "--fixture",
        "/fixture",
        "--out",
        "/out/authoritative",
        "--quiet",
    ]


def test_the_bundled_fixture_uses_no_fixture_argument() -> None:
    lane = pipeline.Rerun("authoritative", ())
    assert "--fixture" not in pipeline.lane_command(lane, fixture=None, out="/out/a")


def test_ca_bundle_prefers_ssl_cert_file(tmp_path: Path) -> None:
    bundle = tmp_path / "ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n", encoding="utf-8")
    assert pipeline.ca_bundle({"SSL_CERT_FILE": str(bundle)}) == bundle


def test_a_missing_engine_exits_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))  # no podman, no docker, nothing to install with
    monkeypatch.setenv(ENGINE_ENV, "docker")
    assert pipeline.main(["--base", "pinned"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("container: engine_missing: ")
    assert err.count("\n") == 1


def test_an_unknown_engine_exits_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(ENGINE_ENV, "lxc")
    assert pipeline.main([]) == 2
    assert capsys.readouterr().err == (
        f"container: engine_unknown: {ENGINE_ENV}='lxc': expected one of podman, docker\n"
    )


def test_a_staged_fixture_is_readable_by_the_images_user(tmp_path: Path) -> None:
    source = tmp_path / "source"
    (source / "tasks").mkdir(parents=True)
    manifest = source / "manifest.json"
    manifest.write_text("{}", encoding="utf-8")
    manifest.chmod(0o600)  # what an atomic writer leaves behind
    staged = pipeline.stage_fixture(source, tmp_path / "scratch")
    assert (staged / "manifest.json").stat().st_mode & 0o777 == 0o644
    assert (staged / "tasks").stat().st_mode & 0o777 == 0o755
    assert (staged / "manifest.json").read_text(encoding="utf-8") == "{}"


def test_a_failed_run_leaves_a_summary_naming_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(ENGINE_ENV, "lxc")
    assert pipeline.main([]) == 2
    summary = json.loads(
        (tmp_path / pipeline.CACHE / pipeline.LAST_RUN / "summary.json").read_text()
    )
    assert summary == {
        "error": f"engine_unknown: {ENGINE_ENV}='lxc': expected one of podman, docker"
    }


def test_a_smoke_lane_failure_names_the_first_harness_error(tmp_path: Path) -> None:
    receipts = [
        {"canonical": {"failure": {"class": "none"}}, "observations": {"diagnostics": []}},
        {
            "canonical": {"failure": {"class": "harness_error"}},
            "observations": {"diagnostics": ["cold_trial_setup_failed: seed missing"]},
        },
    ]
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"receipts": receipts}), encoding="utf-8")
    assert pipeline.first_harness_error(report) == ": cold_trial_setup_failed: seed missing"


def test_the_llm_rerun_lane_replays_the_committed_lanes_own_schedule() -> None:
    report = {
        "receipts": [
            {"canonical": {"taskId": t, "adapterId": "lexical", "lifecycle": "cold"}}
            for t in ("t2", "t1")
        ]
    }
    lane = pipeline.llm_rerun_lane(report)
    args = dict(zip(lane.args[::2], lane.args[1::2], strict=True))
    assert (lane.name, lane.verify) == ("llm-rerun", False)
    assert args["--llm-cache-mode"] == "reuse"
    assert (args["--adapter"], args["--lifecycle"], args["--task"]) == ("lexical", "cold", "t1,t2")


def test_the_committed_llm_lane_is_found_in_this_checkout() -> None:
    root = Path(__file__).resolve().parents[2]
    assert pipeline.llm_lane_committed(root, None)
    assert not pipeline.llm_lane_committed(root, root / "fixtures" / "agentic-retrieval")


def test_the_committed_llm_cache_replays_to_the_committed_receipts(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    baseline = root / pipeline.BASELINES / pipeline.LLM_LANE / "report.json"
    lane = pipeline.llm_rerun_lane(pipeline.read_json(baseline))
    args = [
        a.replace(f"{pipeline.IMAGE_LLM}/agent.toml", str(root / pipeline.LLM_CONFIG)).replace(
            f"{pipeline.IMAGE_LLM}/cache", str(root / pipeline.LLM_CACHE)
        )
        for a in lane.args
    ]
    assert main(["run", *args, "--quiet", "--out", str(tmp_path / "out")]) == 0
    assert pipeline.receipts_differences(baseline, tmp_path / "out" / "report.json") == []
