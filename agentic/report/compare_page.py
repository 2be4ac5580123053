"""The page of ``agentic compare --html``: which pairs flipped between two runs and why, whether
each cohort's difference is beyond noise, and every metric beside its tolerance verdict. The
comparison itself is agentic/compare.py's; this module only lays its rows out."""

from __future__ import annotations

from dataclasses import dataclass

from agentic.contract.report import BenchmarkReport
from agentic.report.outcomes import missed_terms
from agentic.report.pages import GENERATOR, page_environment


@dataclass(frozen=True)
class MetricRow:
    key: str
    base: str
    new: str
    delta: str
    status: str


@dataclass(frozen=True)
class FlipRow:
    task_id: str
    adapter: str
    lifecycle: str
    trial: str
    before: str
    after: str
    before_reasons: str
    after_reasons: str


@dataclass(frozen=True)
class ComparePage:
    title: str
    base_label: str
    new_label: str
    verdict: str
    verdict_tone: str
    tolerance: str
    metrics: tuple[MetricRow, ...]
    noise: tuple[tuple[str, str], ...]
    flips: tuple[FlipRow, ...]


def pair_reasons(report: BenchmarkReport) -> dict[tuple[str, str, str, str], str]:
    """(adapter, task, trial, lifecycle) -> why the pair failed ("pass" for a success)."""
    reasons: dict[tuple[str, str, str, str], str] = {}
    for receipt, record in zip(report.receipts, report.scores, strict=True):
        c = receipt.canonical
        text = "pass" if record.score.success else "; ".join(missed_terms(c, record.score))
        reasons[(c.adapterId, c.taskId, c.trialId, c.lifecycle)] = text or "fail"
    return reasons


def render_compare_html(page: ComparePage) -> bytes:
    return (
        page_environment()
        .get_template("compare.html.j2")
        .render(page=page, generator=GENERATOR)
        .encode("utf-8")
    )
