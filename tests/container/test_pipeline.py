"""The pipeline's decisions: options, fingerprint and provenance checks, lanes, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from containers import pipeline
from containers.engine import ENGINE_ENV
from containers.errors import ContainerError
from tests.support.reports import resealed

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


def test_smoke_lanes_follow_what_the_kit_has() -> None:
    lanes = pipeline.smoke_lanes(("lexical", "qmd-lex"), True, "t1")
    assert [lane.name for lane in lanes] == ["qmd-lex", "local-model"]
    local = lanes[1].args
    assert local[local.index("--agent") + 1] == "local-model"
    assert local[local.index("--task") + 1] == "t1"


def test_the_qmd_lex_smoke_lane_reproduces_its_optional_baseline() -> None:
    (lane,) = pipeline.smoke_lanes(("qmd-lex",), False, "t1")
    assert lane.baseline == pipeline.QMD_LEX_BASELINE


def test_a_smoke_lane_that_differs_from_its_baseline_fails(tmp_path: Path) -> None:
    (lane,) = pipeline.smoke_lanes(("qmd-lex",), False, "t1")
    path = tmp_path / pipeline.QMD_LEX_BASELINE
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"resultsFingerprint": FP_B}), encoding="utf-8")
    options = pipeline.Options(fixture=None, base="pinned", keep_store=False)
    with pytest.raises(ContainerError) as caught:
        pipeline.compare_optional_baseline(tmp_path, options, lane, FP_A)
    assert caught.value.code == "fingerprint_mismatch"


def test_a_smoke_lane_without_a_committed_baseline_is_not_compared(tmp_path: Path) -> None:
    (lane,) = pipeline.smoke_lanes(("qmd-lex",), False, "t1")
    options = pipeline.Options(fixture=None, base="pinned", keep_store=False)
    assert pipeline.compare_optional_baseline(tmp_path, options, lane, FP_A) is False


# --- the local-model smoke lane, pair by pair against the committed lane -----------------------

REPO = Path(__file__).resolve().parents[2]
BUNDLED = pipeline.Options(fixture=None, base="pinned", keep_store=False)


@pytest.fixture(scope="module")
def committed_lane() -> dict[str, Any]:
    document: dict[str, Any] = json.loads((REPO / pipeline.LOCAL_MODEL_BASELINE).read_bytes())
    return document


def open_local_model_agent() -> pipeline.Lane:
    (lane,) = pipeline.smoke_lanes(("lexical",), True, "t1")
    return lane


def three_pairs(committed: dict[str, Any], tmp_path: Path, edit: Any = None) -> Path:
    """A report holding three of the committed lane's receipts, optionally edited; sealed with
    its content's fingerprints, as a rerun that wrote it would be."""
    document = json.loads(json.dumps(committed))
    document["receipts"] = document["receipts"][:3]
    if edit is not None:
        edit(document["receipts"][0]["canonical"])
    path = tmp_path / "report.json"
    path.write_text(json.dumps(resealed(document)), encoding="utf-8")
    return path


def test_the_local_model_smoke_lane_is_checked_against_the_committed_lane() -> None:
    assert open_local_model_agent().pair_baseline == pipeline.LOCAL_MODEL_BASELINE


def test_smoke_receipts_equal_to_the_committed_lane_pass(
    committed_lane: dict[str, Any], tmp_path: Path
) -> None:
    report = three_pairs(committed_lane, tmp_path)
    assert pipeline.compare_pair_baseline(REPO, BUNDLED, open_local_model_agent(), report) is None


def test_a_smoke_receipt_that_differs_from_the_committed_lane_fails(
    committed_lane: dict[str, Any], tmp_path: Path
) -> None:
    def edit(receipt: dict[str, Any]) -> None:
        receipt["calls"][0]["arguments"]["query"] = "edited"

    report = three_pairs(committed_lane, tmp_path, edit)
    with pytest.raises(ContainerError) as caught:
        pipeline.compare_pair_baseline(REPO, BUNDLED, open_local_model_agent(), report)
    assert caught.value.code == "receipts_mismatch"
    assert "calls[0].arguments.query" in str(caught.value)


def test_an_image_with_another_llama_build_is_not_compared_and_says_why(
    committed_lane: dict[str, Any], tmp_path: Path
) -> None:
    def edit(receipt: dict[str, Any]) -> None:
        receipt["fingerprints"]["model"] = FP_A

    report = three_pairs(committed_lane, tmp_path, edit)
    reason = pipeline.compare_pair_baseline(REPO, BUNDLED, open_local_model_agent(), report)
    assert reason is not None
    assert "llama.cpp build" in reason


def test_without_the_committed_lane_pairs_are_not_compared(
    committed_lane: dict[str, Any], tmp_path: Path
) -> None:
    report = three_pairs(committed_lane, tmp_path)
    reason = pipeline.compare_pair_baseline(tmp_path, BUNDLED, open_local_model_agent(), report)
    assert reason == f"{pipeline.LOCAL_MODEL_BASELINE} not found"


def test_lane_command_points_the_kit_at_the_mounted_fixture_and_output() -> None:
    lane = pipeline.Lane("authoritative", ("--adapter", "capsule"))
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
    lane = pipeline.Lane("authoritative", ())
    assert "--fixture" not in pipeline.lane_command(lane, fixture=None, out="/out/a")


def _write_baseline(root: Path, fingerprint: str) -> None:
    path = root / pipeline.BASELINE
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"resultsFingerprint": fingerprint}), encoding="utf-8")


def test_the_bundled_fixture_requires_the_committed_baseline(tmp_path: Path) -> None:
    options = pipeline.Options(fixture=None, base="pinned", keep_store=False)
    with pytest.raises(ContainerError) as caught:
        pipeline.compare_baseline(tmp_path, options, FP_A)
    assert caught.value.code == "baseline_missing"


def test_a_container_run_that_differs_from_the_baseline_fails(tmp_path: Path) -> None:
    _write_baseline(tmp_path, FP_B)
    options = pipeline.Options(fixture=None, base="pinned", keep_store=False)
    with pytest.raises(ContainerError) as caught:
        pipeline.compare_baseline(tmp_path, options, FP_A)
    assert caught.value.code == "fingerprint_mismatch"


def test_a_container_run_equal_to_the_baseline_passes(tmp_path: Path) -> None:
    _write_baseline(tmp_path, FP_A)
    options = pipeline.Options(fixture=None, base="pinned", keep_store=False)
    assert pipeline.compare_baseline(tmp_path, options, FP_A) == FP_A


def test_another_fixture_is_not_compared_with_the_baseline(tmp_path: Path) -> None:
    _write_baseline(tmp_path, FP_B)
    options = pipeline.Options(fixture=tmp_path, base="pinned", keep_store=False)
    assert pipeline.compare_baseline(tmp_path, options, FP_A) is None


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
