"""``agentic export``: one row per pair of a report, in pair order, as JSON lines or CSV; the
report is read as strictly as ``agentic validate`` reads it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.contract.report import PAIR_SORT_FIELDS
from agentic.fixture.loader import Fixture
from agentic.lane import LaneRequest, execute_lane
from agentic.resources import default_fixture_dir
from tests.support.tiny_fixture import TASK_C


@pytest.fixture(scope="module")
def report_path(tiny_fixture: Fixture, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "run"
    request = LaneRequest(
        fixture_dir=tiny_fixture.root, adapters=("lexical", "capsule"), promote=None, out=out
    )
    execute_lane(request)
    return out / "report.json"


def export(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["export", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def identity(row: dict[str, object]) -> tuple[str, ...]:
    return tuple(str(row[field]) for field in PAIR_SORT_FIELDS)


def test_jsonl_has_one_row_per_pair_in_pair_order(
    report_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = export(capsys, str(report_path))
    rows = [json.loads(line) for line in out.splitlines()]
    receipts = json.loads(report_path.read_bytes())["receipts"]
    assert code == 0
    assert len(rows) == len(receipts)
    assert [identity(row) for row in rows] == sorted(identity(r["canonical"]) for r in receipts)


def test_a_row_carries_outcome_score_terms_cost_and_timing(
    report_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = export(capsys, str(report_path))
    row = json.loads(out.splitlines()[0])
    for field in ("success", "failureClass", "failureCode", "missedTerms", "completed"):
        assert field in row
    for field in ("unnecessaryRead", "agentCalls", "modelVisibleUtf8Bytes", "endToEndMs"):
        assert field in row


def test_a_failed_pair_names_its_missed_terms(
    report_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = export(capsys, str(report_path))
    rows = [json.loads(line) for line in out.splitlines()]
    assert all(bool(row["missedTerms"]) == (not row["success"]) for row in rows)


def test_exporting_twice_gives_the_same_bytes(
    report_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for form in ("jsonl", "csv"):
        first = export(capsys, str(report_path), "--format", form)[1]
        assert export(capsys, str(report_path), "--format", form)[1] == first


def test_csv_has_the_jsonl_columns_and_rows(
    report_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jsonl = [json.loads(line) for line in export(capsys, str(report_path))[1].splitlines()]
    table = list(
        csv.DictReader(io.StringIO(export(capsys, str(report_path), "--format", "csv")[1]))
    )
    assert list(table[0]) == list(jsonl[0])
    assert [identity(row) for row in table] == [identity(row) for row in jsonl]


def test_out_writes_the_file_and_nothing_to_stdout(
    report_path: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "pairs.csv"
    code, out, _ = export(capsys, str(report_path), "--format", "csv", "--out", str(target))
    assert (code, out) == (0, "")
    assert target.read_text(encoding="utf-8").startswith("taskId,adapterId,")


def test_an_unwritable_out_is_one_line_and_exit_2(
    report_path: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = export(capsys, str(report_path), "--out", str(tmp_path / "no" / "x.jsonl"))
    assert code == 2
    assert err.startswith("agentic: export_write_failed: ") and err.count("\n") == 1


def test_a_hand_edited_report_is_refused_as_validate_refuses_it(
    report_path: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    document = json.loads(report_path.read_bytes())
    document["scores"][0]["score"]["success"] = 1 - document["scores"][0]["score"]["success"]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(document), encoding="utf-8")
    code, out, err = export(capsys, str(edited))
    assert (code, out) == (2, "")
    assert err.startswith("agentic: report_fingerprint_mismatch: ") and err.count("\n") == 1


def test_a_file_that_is_not_json_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "r.json"
    path.write_text("{", encoding="utf-8")
    code, _, err = export(capsys, str(path))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


# --- attribution (--fixture) ------------------------------------------------------------------

ATTRIBUTION_COLUMNS = ("evidenceDelivered", "verdict")


def test_without_fixture_a_row_has_no_attribution_columns(
    report_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = json.loads(export(capsys, str(report_path))[1].splitlines()[0])
    assert not set(ATTRIBUTION_COLUMNS) & set(row)


def test_with_its_fixture_each_row_carries_evidence_delivered_and_verdict(
    report_path: Path, capsys: pytest.CaptureFixture[str], tiny_fixture: Fixture
) -> None:
    code, out, _ = export(capsys, str(report_path), "--fixture", str(tiny_fixture.root))
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    for row in rows:
        assert row["verdict"] in ({"success"} if row["success"] else {"retrieval", "model"})
        if row["taskId"] == TASK_C:  # the abstention task: nothing to deliver
            assert row["evidenceDelivered"] is None
        else:
            assert isinstance(row["evidenceDelivered"], bool)


def test_csv_with_its_fixture_has_the_attribution_columns(
    report_path: Path, capsys: pytest.CaptureFixture[str], tiny_fixture: Fixture
) -> None:
    argv = (str(report_path), "--format", "csv", "--fixture", str(tiny_fixture.root))
    header = next(csv.reader(io.StringIO(export(capsys, *argv)[1])))
    assert set(ATTRIBUTION_COLUMNS) <= set(header)


def test_a_fixture_the_report_did_not_run_on_is_refused(
    report_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = export(capsys, str(report_path), "--fixture", str(default_fixture_dir()))
    assert (code, out) == (2, "")
    assert err.startswith("agentic: fixture_fingerprint_mismatch: ") and err.count("\n") == 1


def test_help_says_the_attribution_columns_need_the_fixture(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "evidenceDelivered and verdict" in text and "without it they are absent" in text
