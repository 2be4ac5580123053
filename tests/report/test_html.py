"""report.html: every task and every failure reason on one self-contained page, citations read
against the oracle's lines, the same bytes for the same report."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from agentic.contract.report import BenchmarkReport
from agentic.contract.schemas import parse_and_load
from agentic.fixture.loader import load_fixture
from agentic.output.page import MARK
from agentic.report.html import render_html
from agentic.report.html_view import build_page, citation_verdict
from agentic.report.outcomes import missed_terms
from agentic.resources import default_fixture_dir, repo_root
from agentic.scoring.task_facts import OracleSpan, TaskFacts, task_facts

URI = "gno://docs/a.md"


@pytest.fixture(scope="module")
def report() -> BenchmarkReport:
    root = repo_root()
    assert root is not None
    path = root / "baselines" / "fixture-agent" / "report.json"
    return parse_and_load("benchmark-report", path.read_bytes(), source=str(path))


@pytest.fixture(scope="module")
def facts() -> dict[str, TaskFacts]:
    return task_facts(load_fixture(default_fixture_dir()))


@pytest.fixture(scope="module")
def page(report: BenchmarkReport, facts: dict[str, TaskFacts]) -> str:
    return render_html(report, facts).decode("utf-8")


def span(kind: str, start: int, end: int, claim: str = "k") -> OracleSpan:
    return OracleSpan(claim, kind, URI, start, end)  # type: ignore[arg-type]


def test_the_page_names_every_task_of_the_report(report: BenchmarkReport, page: str) -> None:
    missing = {r.canonical.taskId for r in report.receipts if r.canonical.taskId not in page}
    assert missing == set()


def test_every_failing_pair_shows_why_in_its_trajectory(report: BenchmarkReport, page: str) -> None:
    failing = [
        (r, s) for r, s in zip(report.receipts, report.scores, strict=True) if not s.score.success
    ]
    assert failing
    for receipt, record in failing:
        reasons = "; ".join(missed_terms(receipt.canonical, record.score))
        assert html.escape(reasons) in page


def test_the_same_report_renders_to_the_same_bytes(
    report: BenchmarkReport, facts: dict[str, TaskFacts]
) -> None:
    assert render_html(report, facts) == render_html(report, facts)


def test_the_page_fetches_nothing_from_outside_itself(page: str) -> None:
    references = re.findall(r'\b(?:src|href|xlink:href)="([^"]*)"', page)
    assert references
    assert [r for r in references if not r.startswith("#")] == []
    assert "<link" not in page
    assert "<script src" not in page


def test_the_charts_are_inline_svg(page: str) -> None:
    assert page.count("<svg") == 4


def test_the_page_carries_the_kits_generator_mark(page: str) -> None:
    assert MARK.decode() in page


def test_without_the_fixture_the_page_says_it_shows_no_oracle_lines(
    report: BenchmarkReport,
) -> None:
    page = build_page(report, None)
    assert page.notes
    citations = [c for t in page.tasks for p in t.pairs for c in p.citations]
    assert citations
    assert {c.verdict for c in citations} <= {"oracle not at hand", "no citation"}


def test_the_grid_has_one_row_per_task_and_one_cell_per_adapter(
    report: BenchmarkReport, facts: dict[str, TaskFacts]
) -> None:
    page = build_page(report, facts)
    assert [row.task_id for row in page.grid] == sorted(
        {r.canonical.taskId for r in report.receipts}
    )
    assert {len(row.cells) for row in page.grid} == {len(page.adapters)}


def test_a_citation_of_exactly_the_required_lines_reads_required() -> None:
    assert citation_verdict("k", URI, 3, 5, [span("required", 3, 5)]) == "required"


def test_a_citation_touching_forbidden_lines_reads_overlaps_forbidden() -> None:
    spans = [span("required", 3, 5), span("forbidden", 6, 9, claim="other")]
    assert citation_verdict("k", URI, 5, 6, spans) == "overlaps forbidden"


def test_a_citation_inside_the_required_lines_reads_overlaps_required() -> None:
    assert citation_verdict("k", URI, 4, 4, [span("required", 3, 5)]) == "overlaps required"


def test_a_citation_of_another_document_reads_not_in_the_oracle() -> None:
    other = OracleSpan("k", "required", "gno://docs/b.md", 3, 5)
    assert citation_verdict("k", URI, 3, 5, [other]) == "not in the oracle"


def test_another_claims_required_lines_do_not_count_for_this_claim() -> None:
    assert citation_verdict("k", URI, 3, 5, [span("required", 3, 5, claim="j")]) == (
        "not in the oracle"
    )


def test_task_facts_hold_each_tasks_category(facts: dict[str, TaskFacts]) -> None:
    fixture = load_fixture(default_fixture_dir())
    assert {t: f.category for t, f in facts.items()} == {
        t.taskId: t.category for t in fixture.tasks
    }


def test_a_report_folder_on_disk_renders_without_the_fixture(tmp_path: Path) -> None:
    root = repo_root()
    assert root is not None
    path = root / "baselines" / "fixture-agent" / "report.json"
    report = parse_and_load("benchmark-report", path.read_bytes(), source=str(path))
    assert b"The fixture was not at hand" in render_html(report)


def test_the_pages_policy_allows_its_one_script_by_hash_and_no_inline_script(page: str) -> None:
    import base64
    import hashlib

    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert policy is not None
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(html.unescape(scripts[0]).encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy.group(1)
    assert "'unsafe-inline'" not in policy.group(1).split("script-src", 1)[1].split(";")[0]


def test_with_the_fixture_the_summary_has_the_attribution_table(page: str) -> None:
    assert 'id="attribution-table"' in page and "evidence delivered [95% Wilson]" in page


def test_each_failed_pair_names_its_cause_and_a_passing_pair_none(
    report: BenchmarkReport, facts: dict[str, TaskFacts]
) -> None:
    pairs = [p for t in build_page(report, facts).tasks for p in t.pairs]
    assert {p.cause for p in pairs if p.success} == {None}
    assert {p.cause for p in pairs if not p.success} == {"retrieval", "model"}


def test_a_failed_pairs_cause_is_written_in_its_summary(page: str) -> None:
    assert '<span class="ko">FAIL</span> <span class="bad">retrieval</span>' in page


def test_without_the_fixture_the_page_attributes_nothing(report: BenchmarkReport) -> None:
    page = build_page(report, None)
    assert page.attribution_rows == ()
    assert {p.cause for t in page.tasks for p in t.pairs} == {None}
