"""The two example servers under examples/backends/ (third-party code written only against the
public mcp SDK) run through full lanes, cold and warm, from their config files alone: scored,
byte-identical when rerun, promotable against ``lexical``, and usable by the ranking and
generation tiers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic.fixture.loader import load_fixture
from tests.support.backends import HTTP_EXAMPLE, STDIO_EXAMPLE, agentic
from tests.support.goldens import write_tiny_fixture_with_goldens
from tests.support.processes import processes_mentioning
from tests.support.tiny_fixture import TASK_IDS

pytestmark = pytest.mark.real_process

EXAMPLES = {"notes-stdio": STDIO_EXAMPLE, "notes-http": HTTP_EXAMPLE}


def run_lane(fixture_dir: Path, out: Path, adapter: str, *extra: str) -> dict[str, Any]:
    done = agentic(
        "run", "--fixture", str(fixture_dir), "--backend", str(EXAMPLES[adapter]),
        "--adapter", adapter, "--out", str(out), "--quiet", *extra, temp=out.parent / "tmp",
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return report


@pytest.mark.slow
@pytest.mark.parametrize("adapter", sorted(EXAMPLES))
def test_an_example_runs_every_task_cold_and_warm_and_is_scored(
    tiny_fixture_dir: Path, tmp_path: Path, adapter: str
) -> None:
    report = run_lane(tiny_fixture_dir, tmp_path / "out", adapter, "--promote", "none")

    pairs = {(s["taskId"], s["lifecycle"]) for s in report["scores"]}
    assert pairs == {(task, lifecycle) for task in TASK_IDS for lifecycle in ("cold", "warm")}
    assert report["scoredPairs"] == report["attemptedPairs"] == 6
    assert all(r["canonical"]["failure"]["class"] != "harness_error" for r in report["receipts"])
    assert sum(s["score"]["success"] for s in report["scores"]) >= 2
    assert processes_mentioning(str(tmp_path / "tmp")) == []


@pytest.mark.slow
@pytest.mark.parametrize("adapter", sorted(EXAMPLES))
def test_an_example_lane_reruns_to_the_same_canonical_bytes(
    tiny_fixture_dir: Path, tmp_path: Path, adapter: str
) -> None:
    run_lane(tiny_fixture_dir, tmp_path / "a", adapter, "--promote", "none")
    run_lane(tiny_fixture_dir, tmp_path / "b", adapter, "--promote", "none")

    first = (tmp_path / "a" / "canonical.json").read_bytes()
    assert first == (tmp_path / "b" / "canonical.json").read_bytes()


@pytest.mark.slow
def test_a_backend_is_promoted_against_lexical_without_a_bundle_replay(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    done = agentic(
        "run", "--fixture", str(tiny_fixture_dir), "--backend", str(STDIO_EXAMPLE),
        "--adapter", "notes-stdio,lexical", "--promote", "notes-stdio:lexical",
        "--out", str(tmp_path / "out"), "--quiet",
    )  # fmt: skip
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    promotion = report["promotion"]

    assert done.returncode == (0 if promotion["passed"] else 1)
    assert promotion["pairCount"] == 6
    assert not [f for f in promotion["failures"] if "replay" in f or "cohort_pairing" in f]
    assert report["capsuleReplays"] == []
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## Promotion notes-stdio vs lexical (bundle replay not applicable)" in markdown


@pytest.mark.slow
@pytest.mark.parametrize("adapter", sorted(EXAMPLES))
def test_the_ranking_tier_ranks_a_backend(tmp_path: Path, adapter: str) -> None:
    fixture = write_tiny_fixture_with_goldens(tmp_path / "fx")
    done = agentic(
        "ranking", "--fixture", str(fixture), "--backend", str(EXAMPLES[adapter]),
        "--adapter", adapter, "--out", str(tmp_path / "ranking"), "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "ranking" / "ranking.json").read_text(encoding="utf-8"))
    assert [run["adapterId"] for run in report["runs"]] == [adapter]
    assert load_fixture(fixture).snapshot.fingerprint == report["fixtureFingerprint"]


@pytest.mark.slow
def test_the_generation_tier_retrieves_through_a_backend(tmp_path: Path) -> None:
    fixture = write_tiny_fixture_with_goldens(tmp_path / "fx")
    done = agentic(
        "generation", "--model", "mock", "--modes", "e2e", "--repeats", "1",
        "--fixture", str(fixture), "--backend", str(STDIO_EXAMPLE), "--adapter", "notes-stdio",
        "--out", str(tmp_path / "generation"), "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "generation" / "generation.json").read_text(encoding="utf-8"))
    assert report["settings"]["adapter"] == "notes-stdio"
