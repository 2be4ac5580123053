"""``agentic compare`` on lane reports says whether a difference is beyond noise: an exact paired
test per adapter and lifecycle beside the tolerance rule, and the pairs that flipped. The gate
itself stays the tolerance rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic.cli import main
from agentic.commands.regression import LoadedReport, PairOutcome, flips, noise_tests, render_noise
from agentic.contract.canonical import canonical_bytes
from agentic.resources import repo_root
from tests.support.reports import resealed


def lane(outcomes: dict[tuple[str, str, str], bool]) -> LoadedReport:
    """A lane report holding just these (adapter, task, lifecycle) -> success outcomes."""
    return LoadedReport(
        kind="lane",
        label="r",
        fixture_fingerprint="f",
        identity={},
        metrics={},
        document={},
        baseline_path=None,
        outcomes=tuple(
            PairOutcome((adapter, task, "trial-01", lifecycle, "0", "agent"), success)
            for (adapter, task, lifecycle), success in sorted(outcomes.items())
        ),
    )


def all_pass(tasks: int, adapter: str = "lexical") -> dict[tuple[str, str, str], bool]:
    return {(adapter, f"t{i:02d}", lc): True for i in range(tasks) for lc in ("cold", "warm")}


def test_a_pair_whose_success_changed_is_listed_with_before_and_after() -> None:
    base = all_pass(3)
    new = base | {("lexical", "t01", "warm"): False}
    (flip,) = flips(lane(base), lane(new))
    assert flip.text(with_trial=False) == "t01 lexical warm: pass -> fail"


def test_cohorts_are_tested_apart_so_one_task_is_not_counted_twice() -> None:
    base = all_pass(8)
    new = base | {("lexical", f"t0{i}", lc): False for i in range(5) for lc in ("cold", "warm")}
    tests = dict(noise_tests(lane(base), lane(new)))
    assert set(tests) == {"lexical cold", "lexical warm"}
    assert (tests["lexical cold"].worse, tests["lexical cold"].better) == (5, 0)
    assert tests["lexical cold"].p_value == 0.0625


def test_one_flipped_task_is_within_noise() -> None:
    base = all_pass(32)
    new = base | {("lexical", "t07", "cold"): False}
    tests = dict(noise_tests(lane(base), lane(new)))
    assert not tests["lexical cold"].beyond_noise


def test_six_tasks_lost_and_none_won_are_beyond_noise() -> None:
    base = all_pass(32)
    new = base | {("lexical", f"t0{i}", "cold"): False for i in range(6)}
    tests = dict(noise_tests(lane(base), lane(new)))
    assert tests["lexical cold"].beyond_noise


def test_a_pair_scored_in_only_one_run_is_left_out_of_the_test() -> None:
    base = all_pass(2)
    new = {key: value for key, value in base.items() if key[1] != "t01"}
    tests = dict(noise_tests(lane(base), lane(new | {("lexical", "t00", "cold"): False})))
    assert (tests["lexical cold"].worse, tests["lexical cold"].better) == (1, 0)


def test_the_noise_lines_say_the_gate_is_the_tolerance_rule() -> None:
    lines = render_noise(lane(all_pass(2)), lane(all_pass(2)))
    assert "the gate is the tolerance rule" in lines[0]
    assert lines[-1] == "  Flipped pairs: 0"


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    root = repo_root()
    assert root is not None
    document: dict[str, Any] = json.loads(
        (root / "baselines" / "fixture-agent" / "report.json").read_bytes()
    )
    return document


@pytest.mark.slow
def test_one_task_flipped_in_both_lifecycles_regresses_yet_reads_as_within_noise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], committed: dict[str, Any]
) -> None:
    new = json.loads(json.dumps(committed))
    task = next(
        s["taskId"]
        for s in new["scores"]
        if s["adapterId"] == "capsule" and s["score"]["success"] == 1
    )
    for record in new["scores"]:
        if (record["adapterId"], record["taskId"]) == ("capsule", task):
            record["score"]["success"] = 0
    base_path, new_path = tmp_path / "base.json", tmp_path / "new.json"
    base_path.write_bytes(canonical_bytes(committed))
    new_path.write_bytes(canonical_bytes(resealed(new)))

    code = main(["compare", str(base_path), str(new_path)])
    out = capsys.readouterr().out

    assert code == 1  # the gate is unchanged: 2 of 64 pairs is past the default 0.02
    assert "REGRESSED capsule successRate" in out
    for lifecycle in ("cold", "warm"):
        (line,) = [x for x in out.splitlines() if x.strip().startswith(f"capsule {lifecycle}")]
        assert "1 pass->fail, 0 fail->pass" in line and "within noise" in line
        assert f"    {task} capsule {lifecycle}: pass -> fail" in out
