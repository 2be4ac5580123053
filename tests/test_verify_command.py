"""``agentic verify``: committed lane baselines reproduced by a rerun, or a smoke subset of one.

The committed baselines are written here, from the tiny fixture, into a temporary baselines
root (``--baselines``), so each test edits its own copy to stand for a stale baseline.
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from agentic.cli import main
from tests.support.json_files import edit_json
from tests.support.tiny_fixture import TASK_A, write_tiny_fixture

LANE = "fixture-agent"
OTHER_FP = "f" * 64


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(fixture, baselines root) holding a real run of the lane as its committed baseline."""
    base = tmp_path_factory.mktemp("committed")
    fixture = write_tiny_fixture(base / "fixture")
    out = base / "baselines" / LANE
    argv = ["run", "--lane", LANE, "--fixture", str(fixture), "--out", str(out), "--quiet"]
    with redirect_stdout(io.StringIO()):  # its report.md, never a test's captured output
        code = main(argv)
    assert code in (0, 1)  # 1: the tiny fixture fails the lane's promotion gate, a measurement
    return fixture, base / "baselines"


@pytest.fixture
def baselines(committed: tuple[Path, Path], tmp_path: Path) -> Path:
    """A copy of the committed baselines this test may edit."""
    return Path(shutil.copytree(committed[1], tmp_path / "baselines"))


def verify(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    argv = ["verify", *args, "--fixture", str(committed[0]), "--baselines", str(baselines)]
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def committed_fingerprint(baselines: Path) -> str:
    value: str = json.loads((baselines / LANE / "canonical.json").read_bytes())[
        "resultsFingerprint"
    ]
    return value


SMOKE = ("--smoke", "--adapter", "lexical", "--task", TASK_A, "--lifecycle", "cold")


def edit_lexical_receipt(edit: Callable[[dict[str, Any]], None]) -> Callable[[Any], None]:
    """Edit the committed receipt of the smoke pair (lexical, TASK_A, cold)."""

    def apply(report: Any) -> None:
        for receipt in report["receipts"]:
            canonical = receipt["canonical"]
            pair = (canonical["adapterId"], canonical["taskId"], canonical["lifecycle"])
            if pair == ("lexical", TASK_A, "cold"):
                edit(canonical)

    return apply


# --- rerun --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "merged"),
    [((), ""), (("--shards", "3"), " (3 shards merged)")],
    ids=["whole", "shards"],
)
@pytest.mark.slow
def test_a_rerun_that_reproduces_the_committed_baseline_exits_0(
    committed: tuple[Path, Path],
    baselines: Path,
    capsys: pytest.CaptureFixture[str],
    options: tuple[str, ...],
    merged: str,
) -> None:
    code, out, _ = verify(committed, baselines, capsys, LANE, *options)
    assert code == 0
    assert out.splitlines() == [
        f"{LANE}: ok: resultsFingerprint {committed_fingerprint(baselines)}{merged} equals "
        f"{baselines / LANE}'s; re-scored 18 pairs, none changed"
    ]


@pytest.mark.slow
def test_merged_shards_that_differ_from_the_baseline_exit_1(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_json(baselines / LANE / "canonical.json", lambda c: c.update(resultsFingerprint=OTHER_FP))
    code, out, _ = verify(committed, baselines, capsys, LANE, "--shards", "2")
    assert code == 1
    assert out.startswith(f"{LANE}: FAIL: resultsFingerprint differs")


@pytest.mark.slow
def test_quiet_prints_no_verdict_and_exits_1_for_a_lane_that_differs(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_json(baselines / LANE / "canonical.json", lambda c: c.update(resultsFingerprint=OTHER_FP))
    summary = baselines.parent / "summary.json"
    code, out, err = verify(
        committed, baselines, capsys, LANE, "--summary", str(summary), "--quiet"
    )
    assert (code, out, err) == (1, "", "")
    assert json.loads(summary.read_bytes())["passed"] is False


@pytest.mark.slow
def test_a_rerun_in_worker_processes_reproduces_the_committed_baseline(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = (LANE, "--executor", "processes", "--jobs", "2")
    code, out, _ = verify(committed, baselines, capsys, *args)
    assert code == 0, out


@pytest.mark.slow
def test_a_committed_fingerprint_that_differs_exits_1_naming_both(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fresh = committed_fingerprint(baselines)
    edit_json(baselines / LANE / "canonical.json", lambda c: c.update(resultsFingerprint=OTHER_FP))
    code, out, _ = verify(committed, baselines, capsys, LANE)
    assert code == 1
    (line,) = out.splitlines()
    assert line.startswith(f"{LANE}: FAIL: resultsFingerprint differs")
    assert f"rerun {fresh}" in line
    assert f"committed {OTHER_FP}" in line


@pytest.mark.slow
def test_a_committed_score_the_current_scorer_disagrees_with_exits_1(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def flip_first_score(report: Any) -> None:
        score = report["scores"][0]["score"]
        score["success"] = 1 - score["success"]

    edit_json(baselines / LANE / "report.json", flip_first_score, reseal=True)
    code, out, _ = verify(committed, baselines, capsys, LANE)
    assert code == 1
    assert out.splitlines()[0].startswith("  changed ")
    assert "changed 1 of 18 pairs" in out.splitlines()[-1]


# --- bad input ----------------------------------------------------------------------------------


def test_an_unknown_lane_exits_2_with_one_line_listing_the_known_lanes(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = verify(committed, baselines, capsys, "no-such-lane")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("agentic: invalid_cli_option: unknown lane 'no-such-lane'; known: ")
    assert LANE in err


def test_a_lane_without_a_committed_baseline_exits_2_before_any_rerun(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = verify(committed, baselines, capsys, LANE, "optional/qmd-lex")
    assert code == 2
    assert out == ""  # the committed fixture-agent lane was not rerun first
    assert err.startswith("agentic: baseline_missing: optional/qmd-lex: ")
    assert "agentic run --lane optional/qmd-lex --write" in err


def test_smoke_options_without_smoke_exit_2(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = verify(committed, baselines, capsys, LANE, "--task", TASK_A)
    assert code == 2
    assert err == "agentic: invalid_cli_option: --task: only with --smoke\n"


def test_shards_with_smoke_exit_2(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = verify(committed, baselines, capsys, LANE, "--smoke", "--shards", "2")
    assert code == 2
    assert err == "agentic: invalid_cli_option: --shards: not with --smoke\n"


def test_a_smoke_adapter_outside_the_lane_exits_2(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = verify(committed, baselines, capsys, LANE, "--smoke", "--adapter", "oracle")
    assert code == 2
    assert "--adapter oracle: not an adapter of lane fixture-agent" in err


# --- smoke --------------------------------------------------------------------------------------


def test_a_repeatable_smoke_subset_equal_to_the_committed_lane_exits_0(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = verify(committed, baselines, capsys, LANE, *SMOKE)
    assert code == 0
    (line,) = out.splitlines()
    assert line.startswith(f"{LANE}: ok: resultsFingerprint ")
    assert line.endswith(f" in 2 runs; 1/1 receipts equal {baselines / LANE}'s")


def test_a_smoke_receipt_that_differs_from_the_committed_lane_exits_1_naming_the_pair(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edit(receipt: dict[str, Any]) -> None:
        receipt["calls"][0]["arguments"]["query"] = "edited"

    edit_json(baselines / LANE / "report.json", edit_lexical_receipt(edit), reseal=True)
    code, out, _ = verify(committed, baselines, capsys, LANE, *SMOKE, "--repeats", "1")
    assert code == 1
    detail, verdict = out.splitlines()
    assert detail.startswith(f"  lexical/{TASK_A}/")
    assert "calls[0].arguments.query" in detail
    assert verdict.startswith(f"{LANE}: FAIL: 1 of 1 receipts differ")


def test_another_model_build_is_not_compared_when_allowed_and_says_so(
    committed: tuple[Path, Path], baselines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def other_build(receipt: dict[str, Any]) -> None:
        receipt["fingerprints"]["model"] = OTHER_FP

    def every_receipt(report: Any) -> None:
        for receipt in report["receipts"]:
            other_build(receipt["canonical"])

    edit_json(baselines / LANE / "report.json", every_receipt, reseal=True)
    smoke = (*SMOKE, "--repeats", "1")
    strict, _, _ = verify(committed, baselines, capsys, LANE, *smoke)
    code, out, _ = verify(committed, baselines, capsys, LANE, *smoke, "--allow-other-build")
    assert strict == 1
    assert code == 0
    assert "receipts not compared: the run's model fingerprint" in out


def test_the_summary_records_the_verdict_for_tools(
    committed: tuple[Path, Path],
    baselines: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    summary = tmp_path / "verify.json"
    out = tmp_path / "run"
    args = (*SMOKE, "--repeats", "1", "--summary", str(summary), "--out", str(out))
    code, _, _ = verify(committed, baselines, capsys, LANE, *args)
    assert code == 0
    document = json.loads(summary.read_bytes())
    (verdict,) = document["lanes"]
    assert document["passed"] is True
    assert (verdict["lane"], verdict["mode"], verdict["receiptsCompared"]) == (LANE, "smoke", 1)
    kept = json.loads((out / "canonical.json").read_bytes())
    assert verdict["resultsFingerprint"] == kept["resultsFingerprint"]
