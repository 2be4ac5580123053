"""report.md answers "what failed and why" in a minute: one row per task, replay proofs in one
line, labelled timings, and success rates with their uncertainty. Same report, same bytes."""

from __future__ import annotations

import pytest

from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import BenchmarkReport, ScoreRecord
from agentic.fixture.loader import Fixture
from agentic.lane import LaneRequest, execute_lane
from agentic.report.markdown import render_markdown
from agentic.scoring.task_facts import TaskFacts, task_facts
from tests.support.tiny_fixture import TASK_A, TASK_IDS


@pytest.fixture(scope="module")
def report(tiny_fixture: Fixture) -> BenchmarkReport:
    request = LaneRequest(
        fixture_dir=tiny_fixture.root,
        adapters=("capsule", "lexical"),
        promote=("capsule", "lexical"),
    )
    return execute_lane(request).report


@pytest.fixture(scope="module")
def facts(tiny_fixture: Fixture) -> dict[str, TaskFacts]:
    return task_facts(tiny_fixture)


def section(markdown: str, heading: str) -> list[str]:
    """The lines under ``## heading``, up to the next heading."""
    lines = markdown.splitlines()
    start = lines.index(f"## {heading}") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return [line for line in lines[start:end] if line]


def grid_row(markdown: str, task: str) -> list[str]:
    (row,) = [line for line in section(markdown, "Tasks") if line.startswith(f"| {task} |")]
    return [cell.strip() for cell in row.strip("|").split(" | ")]


def failed_everywhere(report: BenchmarkReport, task: str) -> BenchmarkReport:
    """``report`` with every score of ``task`` turned into an unnecessary read."""

    def edit(record: ScoreRecord) -> ScoreRecord:
        if record.taskId != task:
            return record
        update = {"success": 0, "completed": True, "unnecessaryRead": True}
        return record.model_copy(update={"score": record.score.model_copy(update=update)})

    return report.model_copy(update={"scores": tuple(edit(s) for s in report.scores)})


def test_rendering_the_same_report_twice_gives_the_same_bytes(report: BenchmarkReport) -> None:
    assert render_markdown(report).encode() == render_markdown(report).encode()


def test_the_task_grid_has_one_row_per_task_and_one_column_per_adapter(
    report: BenchmarkReport,
) -> None:
    _legend, header, _, *rows = section(render_markdown(report), "Tasks")
    assert header == "| task | capsule | lexical |"
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == sorted(TASK_IDS)


def test_a_pass_cell_shows_its_calls_and_bytes(report: BenchmarkReport) -> None:
    receipt = next(
        r.canonical
        for r, s in zip(report.receipts, report.scores, strict=True)
        if r.canonical.adapterId == "capsule" and s.score.success
    )
    cell = grid_row(render_markdown(report), receipt.taskId)[1]
    assert cell == f"pass · {receipt.agentCalls} · {receipt.modelVisibleUtf8Bytes}"


def test_a_failed_cell_names_the_missed_term(report: BenchmarkReport) -> None:
    cells = grid_row(render_markdown(failed_everywhere(report, TASK_A)), TASK_A)
    assert all(cell.startswith("FAIL unnecessaryRead · ") for cell in cells[1:])


def test_a_lifecycle_that_differs_is_shown_beside_the_other(report: BenchmarkReport) -> None:
    def warm_fails(record: ScoreRecord) -> ScoreRecord:
        if (record.taskId, record.adapterId, record.lifecycle) != (TASK_A, "lexical", "warm"):
            return record
        update = {"success": 0, "filtersCorrect": False}
        return record.model_copy(update={"score": record.score.model_copy(update=update)})

    edited = report.model_copy(update={"scores": tuple(warm_fails(s) for s in report.scores)})
    cell = grid_row(render_markdown(edited), TASK_A)[2]
    assert cell.startswith("cold: ") and " / warm: FAIL " in cell and "not filtersCorrect" in cell


def test_capsule_replays_collapse_to_one_line_when_all_are_equal(report: BenchmarkReport) -> None:
    count = len(report.capsuleReplays)
    assert section(render_markdown(report), "Capsule replays") == [
        f"Capsule replays: {count}/{count} equal (sha256 of the first and the second payload)."
    ]


def test_an_unequal_replay_is_listed_by_name(report: BenchmarkReport) -> None:
    first = report.capsuleReplays[0]
    unequal = first.model_copy(
        update={"second": first.second.model_copy(update={"sha256": "0" * 64})}
    )
    edited = report.model_copy(update={"capsuleReplays": (unequal, *report.capsuleReplays[1:])})
    lines = section(render_markdown(edited), "Capsule replays")
    count = len(report.capsuleReplays)
    assert lines[0].startswith(f"Capsule replays: {count - 1}/{count} equal")
    assert lines[1:] == [
        f"- NOT EQUAL {first.taskId} / {first.trialId} / {first.lifecycle}: "
        f"`{first.first.sha256[:16]}` vs `{'0' * 16}`"
    ]


def test_timing_columns_say_they_hold_the_median_and_the_sum(report: BenchmarkReport) -> None:
    header = section(render_markdown(report), "Lifecycle timings")[1]
    assert "tool ms (median / sum)" in header and "endToEnd ms (median / sum)" in header


def test_each_cohort_shows_its_success_rate_with_a_wilson_interval(
    report: BenchmarkReport,
) -> None:
    rows = section(render_markdown(report), "Cohort accounting")
    assert "rate [95% Wilson]" in rows[0]
    capsule_cold = next(row for row in rows if row.startswith("| capsule | cold |"))
    rate = capsule_cold.split(" | ")[5]
    assert rate.count("[") == 1 and rate.endswith("]")


def test_the_promotion_section_adds_an_informational_uncertainty_line(
    report: BenchmarkReport,
) -> None:
    promotion = report.promotion
    assert promotion is not None
    lines = section(render_markdown(report, "Promotion"), "Promotion")
    (line,) = [line for line in lines if line.startswith("Uncertainty")]
    assert "not part of the verdict" in line and "exact McNemar p=" in line
    assert f"/{promotion.pairCount} [" in line


# --- attribution ------------------------------------------------------------------------------


def headings(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("## ")]


def undelivered(report: BenchmarkReport, task: str, adapter: str) -> BenchmarkReport:
    """``report`` with no call of ``adapter``'s ``task`` pairs delivered to the agent."""

    def edit(receipt: TrajectoryReceipt) -> TrajectoryReceipt:
        canon = receipt.canonical
        if (canon.taskId, canon.adapterId) != (task, adapter):
            return receipt
        calls = tuple(c.model_copy(update={"deliveredToAgent": False}) for c in canon.calls)
        return receipt.model_copy(update={"canonical": canon.model_copy(update={"calls": calls})})

    return report.model_copy(update={"receipts": tuple(edit(r) for r in report.receipts)})


def test_without_fixture_facts_report_md_has_no_attribution_section(
    report: BenchmarkReport,
) -> None:
    assert "## Attribution" not in headings(render_markdown(report))


def test_with_fixture_facts_the_attribution_section_follows_the_cohort_table(
    report: BenchmarkReport, facts: dict[str, TaskFacts]
) -> None:
    found = headings(render_markdown(report, facts=facts))
    assert found.index("## Attribution") == found.index("## Cohort accounting") + 1


def test_the_attribution_table_has_a_row_per_cohort_over_answer_bearing_tasks(
    report: BenchmarkReport, facts: dict[str, TaskFacts]
) -> None:
    lines = section(render_markdown(report, facts=facts), "Attribution")
    header = lines[1]
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[3:7]]
    assert "evidence delivered [95% Wilson]" in header
    assert [tuple(row[:2]) for row in rows] == [
        ("capsule", "cold"),
        ("capsule", "warm"),
        ("lexical", "cold"),
        ("lexical", "warm"),
    ]
    # Three tasks scored per cohort; the abstention task (t0000c03) bears no answer.
    assert {(row[2], row[3]) for row in rows} == {("3", "2")}


def test_the_attribution_section_tests_each_two_adapters_per_lifecycle(
    report: BenchmarkReport, facts: dict[str, TaskFacts]
) -> None:
    lines = section(render_markdown(report, facts=facts), "Attribution")
    tests = [line for line in lines if line.startswith("- ")]
    assert [t.split(":")[0] for t in tests] == [
        "- cold, capsule vs lexical",
        "- warm, capsule vs lexical",
    ]
    assert all("evidence delivered: " in t and "; success: " in t for t in tests)


def test_a_failed_cell_with_the_evidence_delivered_names_the_model(
    report: BenchmarkReport, facts: dict[str, TaskFacts]
) -> None:
    # capsule passes TASK_A, so its required evidence reached the agent.
    edited = failed_everywhere(report, TASK_A)
    cell = grid_row(render_markdown(edited, facts=facts), TASK_A)[1]
    assert cell.startswith("FAIL model unnecessaryRead · ")


def test_a_failed_cell_without_the_evidence_delivered_names_retrieval(
    report: BenchmarkReport, facts: dict[str, TaskFacts]
) -> None:
    edited = undelivered(failed_everywhere(report, TASK_A), TASK_A, "capsule")
    cell = grid_row(render_markdown(edited, facts=facts), TASK_A)[1]
    assert cell.startswith("FAIL retrieval unnecessaryRead · ")
