"""``agentic ranking --gate``: a ranking run held to the committed baseline of its fixture."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentic.cli import main
from tests.support.goldens import write_tiny_fixture_with_goldens
from tests.support.json_files import edit_json

RANKING = ("ranking", "--adapter", "lexical")


@pytest.fixture(scope="module")
def fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_fixture_with_goldens(tmp_path_factory.mktemp("ranking") / "fixture")


def ranking(
    fixture: Path, capsys: pytest.CaptureFixture[str], *args: str, quiet: bool = True
) -> tuple[int, str, str]:
    code = main([*RANKING, "--fixture", str(fixture), *(["--quiet"] if quiet else []), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def accepted_baseline(fixture: Path, baselines: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """This fixture's committed baseline: a run, accepted as `agentic compare --accept` does."""
    report = baselines.parent / "first"
    assert ranking(fixture, capsys, "--out", str(report))[0] == 0
    accept = ["compare", str(report / "ranking.json"), "--accept"]
    assert main([*accept, "--baselines", str(baselines)]) == 0
    capsys.readouterr()
    (path,) = (baselines / "ranking").glob("*/ranking.json")
    return path


def test_a_fixture_without_a_ranking_baseline_exits_2_saying_how_to_create_one(
    fixture: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = ranking(fixture, capsys, "--gate", "--baselines", str(tmp_path))
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith("agentic: baseline_missing: no ranking baseline for fixture ")
    assert "agentic ranking --out DIR" in err
    assert "--accept" in err


def test_a_run_equal_to_its_baseline_passes_the_gate(
    fixture: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    baselines = tmp_path / "baselines"
    accepted_baseline(fixture, baselines, capsys)
    code, out, _ = ranking(fixture, capsys, "--gate", "--baselines", str(baselines), quiet=False)
    assert code == 0
    assert out.splitlines()[-1].startswith("OK:")


def raise_lexical_precision(by: float) -> Callable[[Any], None]:
    """An edit of a ranking baseline: lexical's committed precision, raised (at most to 1)."""

    def edit(document: Any) -> None:
        overall = next(r for r in document["runs"] if r["adapterId"] == "lexical")["overall"]
        overall["precision"] = min(1.0, overall["precision"] + by)

    return edit


def test_a_regression_beyond_the_tolerance_exits_1(
    fixture: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    baselines = tmp_path / "baselines"
    path = accepted_baseline(fixture, baselines, capsys)
    edit_json(path, raise_lexical_precision(0.5))  # the run now falls short
    code, out, _ = ranking(fixture, capsys, "--gate", "--baselines", str(baselines), quiet=False)
    assert code == 1
    assert "REGRESSED lexical/default overall precision" in out
    assert out.splitlines()[-1].startswith("FAIL:")


def test_a_regression_under_quiet_exits_1_printing_nothing(
    fixture: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    baselines = tmp_path / "baselines"
    edit_json(accepted_baseline(fixture, baselines, capsys), raise_lexical_precision(0.5))
    assert ranking(fixture, capsys, "--gate", "--baselines", str(baselines)) == (1, "", "")


def test_a_drop_within_a_given_tolerance_passes(
    fixture: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    baselines = tmp_path / "baselines"
    path = accepted_baseline(fixture, baselines, capsys)
    edit_json(path, raise_lexical_precision(0.05))
    gate = ("--gate", "--baselines", str(baselines), "--tolerance", "0.1")
    assert ranking(fixture, capsys, *gate)[0] == 0


def test_a_tolerance_without_the_gate_exits_2(
    fixture: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = ranking(fixture, capsys, "--tolerance", "0.1")
    assert code == 2
    assert err == "agentic: invalid_cli_option: --tolerance applies only with --gate\n"
