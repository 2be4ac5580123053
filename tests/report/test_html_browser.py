"""report.html in a real browser: headless Chromium opens the page from disk, its scripts run
without a console message, every task id is in the rendered DOM, and a screenshot is taken.
CI installs Chromium (``nox -s system-packages``) and sets AGENTIC_REQUIRE_BROWSER, so there
the test cannot be skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.resources import repo_root
from tests.support.chromium import PNG_MAGIC, PageRun, open_page, requires_chromium
from tests.support.reports import resealed

pytestmark = [requires_chromium, pytest.mark.real_process]


def baseline_folder() -> Path:
    root = repo_root()
    assert root is not None
    return root / "baselines" / "fixture-agent"


@pytest.fixture(scope="module")
def report_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[PageRun, set[str]]:
    workdir = tmp_path_factory.mktemp("browser")
    page = workdir / "report.html"
    assert main(["view", str(baseline_folder()), "--out", str(page)]) == 0
    document = json.loads((baseline_folder() / "report.json").read_text(encoding="utf-8"))
    task_ids = {r["canonical"]["taskId"] for r in document["receipts"]}
    return open_page(page, workdir), task_ids


def test_the_report_page_logs_nothing_to_the_console(
    report_page: tuple[PageRun, set[str]],
) -> None:
    run, _ = report_page
    assert run.console == ()


def test_every_task_id_is_in_the_rendered_dom(report_page: tuple[PageRun, set[str]]) -> None:
    run, task_ids = report_page
    assert task_ids
    assert {t for t in task_ids if t not in run.dom} == set()


def test_the_pages_script_ran_in_the_browser(report_page: tuple[PageRun, set[str]]) -> None:
    run, task_ids = report_page
    # filterRows() fills in the count once the DOM is loaded.
    assert f"{len(task_ids)} of {len(task_ids)} tasks" in run.dom


def test_the_browser_takes_a_screenshot_of_the_page(
    report_page: tuple[PageRun, set[str]],
) -> None:
    run, _ = report_page
    assert run.screenshot.startswith(PNG_MAGIC)
    assert len(run.screenshot) > 10_000


@pytest.mark.slow
def test_the_compare_page_shows_a_flipped_task_in_the_browser(tmp_path: Path) -> None:
    document = json.loads((baseline_folder() / "report.json").read_text(encoding="utf-8"))
    failing = next(s for s in document["scores"] if not s["score"]["success"])
    failing["score"]["success"] = 1
    new = tmp_path / "new.json"
    new.write_text(json.dumps(resealed(document)), encoding="utf-8")
    page = tmp_path / "compare.html"
    code = main(["compare", str(baseline_folder() / "report.json"), str(new), "--html", str(page)])
    assert code in (0, 1)
    run = open_page(page, tmp_path)
    assert run.console == ()
    assert failing["taskId"] in run.dom
    assert "Flipped pairs (1)" in run.dom
