"""A report written by the contract's reference implementation is a v1.0 report here too.

The reference runs on Bun: its environment has a ``bunVersion`` and no ``pythonVersion``, and it
writes no ``resultsFingerprint`` (both are this kit's extensions). Its receipts repeat
``schemaVersion`` inside ``canonical``. Such a report must validate, re-score and compare.

The reference-shaped report is built from a real lane of the tiny fixture, reshaped the way the
reference writes it, and its canonicalFingerprint is computed here as the reference defines it
(with ``rfc8785`` and ``hashlib``, not with the kit's projection code).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import rfc8785

from agentic.cli import main
from agentic.lane import LaneRequest, execute_lane
from tests.support.tiny_fixture import write_tiny_fixture

BUN_VERSION = "1.2.19"


def reference_fingerprint(report: dict[str, Any]) -> str:
    """sha256 of the RFC 8785 bytes of the reference's report projection."""
    projection = {
        "schemaVersion": report["schemaVersion"],
        "benchmarkId": report["benchmarkId"],
        "fixtureFingerprint": report["fixtureFingerprint"],
        "environment": report["environment"],
        "methodology": report["methodology"],
        "limitations": report["limitations"],
        "preparations": [
            {key: p[key] for key in ("adapterId", "corpusFingerprint", "indexFingerprint")}
            for p in report["preparations"]
        ],
        "attemptedPairs": report["attemptedPairs"],
        "scoredPairs": report["scoredPairs"],
        "exclusions": report["exclusions"],
        "receipts": [receipt["canonical"] for receipt in report["receipts"]],
        "scores": report["scores"],
        "capsuleReplays": report["capsuleReplays"],
        "promotion": report["promotion"],
    }
    return hashlib.sha256(rfc8785.dumps(projection)).hexdigest()


def as_the_reference_writes_it(report: dict[str, Any]) -> dict[str, Any]:
    shaped = {key: value for key, value in report.items() if key != "resultsFingerprint"}
    environment = {k: v for k, v in report["environment"].items() if k != "pythonVersion"}
    shaped["environment"] = {**environment, "bunVersion": BUN_VERSION, "platform": "darwin"}
    shaped["canonicalFingerprint"] = reference_fingerprint(shaped)
    return shaped


@pytest.fixture(scope="module")
def lane(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The tiny fixture and a real report of capsule and lexical, cold and warm, with the
    promotion gate."""
    root = tmp_path_factory.mktemp("reference-reports")
    fixture = write_tiny_fixture(root / "fixture")
    request = LaneRequest(
        fixture_dir=fixture,
        adapters=("capsule", "lexical"),
        promote=("capsule", "lexical"),
        out=root / "ours",
    )
    execute_lane(request)
    return fixture, root / "ours" / "report.json"


@pytest.fixture
def reference_report(lane: tuple[Path, Path], tmp_path: Path) -> Path:
    ours = json.loads(lane[1].read_bytes())
    path = tmp_path / "reference-report.json"
    path.write_text(json.dumps(as_the_reference_writes_it(ours), indent=2), encoding="utf-8")
    return path


def test_every_receipt_repeats_schema_version_inside_canonical(lane: tuple[Path, Path]) -> None:
    receipts = json.loads(lane[1].read_bytes())["receipts"]
    assert {receipt["canonical"]["schemaVersion"] for receipt in receipts} == {"1.0"}
    assert {len(receipt["canonical"]) for receipt in receipts} == {17}


def test_our_fingerprint_is_the_reference_projection_of_our_report(
    lane: tuple[Path, Path],
) -> None:
    ours = json.loads(lane[1].read_bytes())
    assert ours["canonicalFingerprint"] == reference_fingerprint(ours)


def test_validate_accepts_a_reference_report(
    reference_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "report", str(reference_report)]) == 0
    assert capsys.readouterr().out.startswith("ok report")


def test_score_re_scores_a_reference_report_without_a_change(
    lane: tuple[Path, Path], reference_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["score", str(reference_report), "--fixture", str(lane[0])])
    assert (code, capsys.readouterr().out) == (0, "")


def test_compare_gates_our_report_against_a_reference_baseline(
    lane: tuple[Path, Path], reference_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", str(reference_report), str(lane[1])]) == 0
    assert "report_fingerprint_mismatch" not in capsys.readouterr().err


def test_a_receipt_without_schema_version_in_canonical_is_not_a_v1_receipt(
    reference_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = json.loads(reference_report.read_bytes())
    del report["receipts"][0]["canonical"]["schemaVersion"]
    reference_report.write_text(json.dumps(report), encoding="utf-8")
    assert main(["validate", "report", str(reference_report)]) == 2
    assert "schemaVersion" in capsys.readouterr().err
