"""The page of ``agentic compare --html``: which pairs flipped between two runs, and why.
It also shows whether each cohort's difference is beyond noise, and every metric beside its
tolerance verdict. The comparison itself is commands/regression.py's. This module only writes
its rows out, every text escaped (``markup.py``). The page runs no script."""

from __future__ import annotations

from dataclasses import dataclass

from agentic.contract.report import BenchmarkReport
from agentic.report.markup import Html, element
from agentic.report.outcomes import missed_terms
from agentic.report.pages import BLANK, NO_SCRIPT, document, facts_list, table, verdict_badge


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


FLIP_HEADER = ("task", "adapter", "lifecycle", "trial", "BASE", "NEW", "why in BASE", "why in NEW")
NOISE_HEADING = "Beyond noise? (exact McNemar test per adapter and lifecycle)"
METRIC_HEADER = ("metric", "BASE", "NEW", "change", "status")


def _outcome(text: str) -> Html:
    return element("td", text, attrs={"class": "pass" if text == "pass" else "fail"})


def _flip_html(flip: FlipRow) -> Html:
    return element(
        "tr",
        element("td", flip.task_id, attrs={"class": "mono"}),
        element("td", flip.adapter),
        element("td", flip.lifecycle),
        element("td", flip.trial),
        "\n",
        _outcome(flip.before),
        "\n",
        _outcome(flip.after),
        "\n",
        element("td", flip.before_reasons),
        element("td", flip.after_reasons),
    )


def _flips_html(page: ComparePage) -> list[Html]:
    heading = element("h2", f"Flipped pairs ({len(page.flips)})", attrs={"id": "flips"})
    if not page.flips:
        return [heading, element("p", "No pair scored in both runs changed its outcome."), BLANK]
    rows = [_flip_html(flip) for flip in page.flips]
    return [heading, table(FLIP_HEADER, rows, {"id": "flip-table"}), BLANK]


def _noise_html(page: ComparePage) -> list[Html]:
    if not page.noise:
        return []
    rows = [
        element("tr", element("td", cohort), element("td", test)) for cohort, test in page.noise
    ]
    return [
        element("h2", NOISE_HEADING, attrs={"id": "noise"}),
        table(("cohort", "test"), rows),
        BLANK,
    ]


def _status_tone(status: str) -> str:
    if status in ("regressed", "missing"):
        return "fail"
    return "pass" if status == "improved" else ""


def _metric_html(metric: MetricRow) -> Html:
    return element(
        "tr",
        element("td", metric.key, attrs={"class": "mono"}),
        element("td", metric.base),
        element("td", metric.new),
        element("td", metric.delta),
        element("td", metric.status, attrs={"class": _status_tone(metric.status)}),
    )


def render_compare_html(page: ComparePage) -> bytes:
    """The compare page, as UTF-8 bytes."""
    note = element(
        "span",
        f"(tolerance {page.tolerance}; the noise tests are informational)",
        attrs={"class": "muted"},
    )
    metrics = [_metric_html(metric) for metric in page.metrics]
    body = [
        element("h1", page.title),
        element("p", "Verdict: ", verdict_badge(page.verdict, page.verdict_tone), " ", note),
        facts_list([("BASE", page.base_label), ("NEW", page.new_label)]),
        BLANK,
        *_flips_html(page),
        *_noise_html(page),
        element("h2", "Metrics", attrs={"id": "metrics"}),
        table(METRIC_HEADER, metrics, {"id": "metric-table"}),
    ]
    return document(page.title, body, NO_SCRIPT)
