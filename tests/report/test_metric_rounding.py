"""The gate's metrics are read by people in report.md and report.html, rounded to three decimals
as the Wilson intervals beside them are; report.json keeps the precision the gate compared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic.contract.report import BenchmarkReport
from agentic.contract.schemas import parse_and_load
from agentic.report.artifacts import render_artifacts
from agentic.report.html import render_html
from agentic.report.markdown import metric_text, render_markdown
from agentic.resources import repo_root

TWO_NINTHS = 2 / 9  # 0.2222222222222222


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (TWO_NINTHS, "0.222"),
        (0.6888888888888889, "0.689"),
        (-1.5744339846808675, "-1.574"),
        (0.25, "0.25"),
        (1.0, "1"),
        (0.99996, "1"),
        (-0.0001, "0"),
        (18, "18"),
        (None, "null"),
    ],
)
def test_a_metric_is_rounded_to_three_decimals_without_trailing_zeros(
    value: float | int | None, text: str
) -> None:
    assert metric_text(value) == text


@pytest.fixture(scope="module")
def report() -> BenchmarkReport:
    """The committed lane's report with a baseline success rate of 2/9."""
    root = repo_root()
    assert root is not None
    path = Path(root, "baselines", "fixture-agent", "report.json")
    committed = parse_and_load("benchmark-report", path.read_bytes(), source=str(path))
    assert committed.promotion is not None
    metrics = committed.promotion.metrics.model_copy(update={"baselineSuccessRate": TWO_NINTHS})
    promotion = committed.promotion.model_copy(update={"metrics": metrics})
    return committed.model_copy(update={"promotion": promotion})


def test_report_md_shows_the_rate_rounded(report: BenchmarkReport) -> None:
    markdown = render_markdown(report)
    assert "- baselineSuccessRate: 0.222\n" in markdown
    assert "0.2222" not in markdown


def test_report_html_shows_the_rate_rounded(report: BenchmarkReport) -> None:
    page = render_html(report).decode("utf-8")
    assert "<li>baselineSuccessRate: 0.222</li>" in page
    assert "0.2222" not in page


def test_report_json_keeps_the_full_precision(report: BenchmarkReport) -> None:
    document = json.loads(render_artifacts(report)["report.json"])
    assert document["promotion"]["metrics"]["baselineSuccessRate"] == TWO_NINTHS
