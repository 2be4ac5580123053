"""``agentic view REPORT_DIR`` and ``agentic compare --html``: pages built from stored reports,
written only where nothing but a kit page would be replaced."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.fixture.loader import Fixture
from agentic.resources import repo_root
from tests.support.reports import resealed


@pytest.fixture
def report_dir(tmp_path: Path) -> Path:
    root = repo_root()
    assert root is not None
    folder = tmp_path / "run"
    shutil.copytree(root / "baselines" / "fixture-agent", folder)
    (folder / "report.html").unlink(missing_ok=True)
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_view_writes_report_html_beside_the_report(
    report_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "view", str(report_dir))
    assert code == 0
    assert (report_dir / "report.html").read_bytes().startswith(b"<!DOCTYPE html>")
    assert f"wrote {report_dir / 'report.html'}" in err


def test_view_twice_writes_the_same_bytes(
    report_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "view", str(report_dir))
    first = (report_dir / "report.html").read_bytes()
    run(capsys, "view", str(report_dir))
    assert (report_dir / "report.html").read_bytes() == first


def test_view_refuses_to_replace_a_file_it_did_not_write(
    report_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (report_dir / "report.html").write_text("my own page", encoding="utf-8")
    code, _, err = run(capsys, "view", str(report_dir))
    assert code == 2
    assert err.startswith("agentic: unsafe_output_path: ")
    assert err.count("\n") == 1
    assert (report_dir / "report.html").read_text(encoding="utf-8") == "my own page"


def test_view_refuses_a_tampered_report(
    report_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = report_dir / "report.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["scores"][0]["score"]["success"] = 1 - document["scores"][0]["score"]["success"]
    path.write_text(json.dumps(document), encoding="utf-8")
    code, _, err = run(capsys, "view", str(report_dir))
    assert code == 2
    assert err.count("\n") == 1
    assert not (report_dir / "report.html").exists()


def test_view_refuses_malformed_json(report_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (report_dir / "report.json").write_text('{"a": 1, "a": 2}', encoding="utf-8")
    code, _, err = run(capsys, "view", str(report_dir))
    assert code == 2
    assert err.count("\n") == 1


def test_view_with_another_fixture_says_it_shows_no_oracle_lines(
    report_dir: Path, tiny_fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "view", str(report_dir), "--fixture", str(tiny_fixture.root))
    assert code == 0
    assert "is not the fixture this report ran on" in err
    assert b"The fixture was not at hand" in (report_dir / "report.html").read_bytes()


def test_view_of_a_folder_without_a_report_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "view", str(tmp_path))
    assert code == 2
    assert err.count("\n") == 1


def _flipped(report_dir: Path, tmp_path: Path) -> tuple[Path, str]:
    document = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    failing = next(s for s in document["scores"] if not s["score"]["success"])
    failing["score"]["success"] = 1
    new = tmp_path / "new.json"
    new.write_text(json.dumps(resealed(document)), encoding="utf-8")
    return new, failing["taskId"]


@pytest.mark.slow
def test_compare_html_lists_the_flipped_pair_with_its_reason_before(
    report_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new, task_id = _flipped(report_dir, tmp_path)
    page = tmp_path / "compare.html"
    code, _, _ = run(
        capsys, "compare", str(report_dir / "report.json"), str(new), "--html", str(page)
    )
    assert code == 0
    text = page.read_text(encoding="utf-8")
    assert "Flipped pairs (1)" in text
    assert task_id in text
    assert "incomplete" in text or "failure" in text or "unnecessaryRead" in text


@pytest.mark.slow
def test_compare_html_refuses_a_foreign_file_before_comparing(
    report_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "notes.html"
    page.write_text("keep me", encoding="utf-8")
    report = str(report_dir / "report.json")
    code, out, err = run(capsys, "compare", report, report, "--html", str(page))
    assert code == 2
    assert out == ""
    assert err.startswith("agentic: unsafe_output_path: ")
    assert page.read_text(encoding="utf-8") == "keep me"


def test_a_lane_written_with_out_has_its_page_beside_the_artifacts(
    tiny_fixture: Fixture, tmp_path: Path
) -> None:
    from agentic.lane import LaneRequest, execute_lane

    out = tmp_path / "run"
    request = LaneRequest(
        fixture_dir=tiny_fixture.root, adapters=("lexical",), lifecycles=("cold",), promote=None,
        out=out,
    )  # fmt: skip
    execute_lane(request)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert all(task.taskId in page for task in tiny_fixture.tasks)
    assert sorted(p.name for p in out.iterdir()) == [
        "canonical.json", "observations.json", "report.html", "report.json", "report.md",
    ]  # fmt: skip
