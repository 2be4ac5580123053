"""The ranking report: built as the models of ``ranking/schema.py`` (which document its layout),
written as their canonical JSON (RFC 8785, byte-identical across runs), and its text view."""

from __future__ import annotations

from collections.abc import Sequence

from agentic.contract.canonical import canonical_bytes
from agentic.fixture.loader import Fixture
from agentic.ranking.goldens import GoldenSet
from agentic.ranking.metrics import METRIC_NAMES, mean, mean_metrics
from agentic.ranking.runner import QueryResult, RankingRun, VariantRun
from agentic.ranking.schema import (
    RankedQuery,
    RankingReport,
    RankingSummary,
    RankingVariant,
    TierReport,
)


def tier_header(fixture: Fixture, goldens: GoldenSet) -> TierReport:
    """The fields every tier report opens with, for ``**dict(...)`` into a report model."""
    return TierReport(
        fixtureFingerprint=fixture.corpus_fingerprint,
        fixtureVersion=fixture.fixture_version,
        goldensFingerprint=goldens.fingerprint,
        goldenCount=len(goldens.goldens),
    )


def summarize(results: Sequence[QueryResult]) -> RankingSummary:
    answerable = [m for m in (r.metrics for r in results) if m is not None]
    refusals = [r for r in results if r.golden.expectRefusal]
    return RankingSummary(
        queries=len(answerable),
        **mean_metrics(answerable),
        refusalQueries=len(refusals),
        nonEmptyRate=mean([1.0 if r.chunks else 0.0 for r in refusals]),
        errors=sum(1 for r in results if r.error_code is not None),
    )


def by_tag(results: Sequence[QueryResult]) -> dict[str, RankingSummary]:
    tags = sorted({tag for r in results for tag in r.golden.tags})
    return {tag: summarize([r for r in results if tag in r.golden.tags]) for tag in tags}


def variant_model(run: VariantRun) -> RankingVariant:
    return RankingVariant(
        adapterId=run.adapter_id,
        variant=run.variant,
        switches=run.switches,
        overall=summarize(run.results),
        byTag=by_tag(run.results),
        queries=tuple(r.to_model() for r in run.results),
    )


def build_report(run: RankingRun) -> RankingReport:
    return RankingReport(
        schemaVersion="1.0",
        reportKind="ranking",
        **dict(tier_header(run.fixture, run.goldens)),
        settings=run.settings.to_model(),
        runs=tuple(variant_model(v) for v in run.runs),
    )


def report_bytes(report: RankingReport) -> bytes:
    return canonical_bytes(report.to_json())


# --- text view -------------------------------------------------------------------------------

_LABELS = {"recall": "recall", "hitRate": "hit", "mrr": "MRR", "ndcg": "nDCG", "precision": "P"}


def format_rate(value: float | None) -> str:
    """A rate in a text table: three decimals, or ``-`` where it is undefined."""
    return "-" if value is None else f"{value:.3f}"


def _row(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header))]
    return [_row(header, widths), *(_row(row, widths) for row in rows)]


def _summary_cells(summary: RankingSummary) -> list[str]:
    return [
        str(summary.queries),
        *(format_rate(getattr(summary, name)) for name in METRIC_NAMES),
        str(summary.refusalQueries),
        format_rate(summary.nonEmptyRate),
        str(summary.errors),
    ]


def _header(first: str, k: int) -> list[str]:
    metric_labels = [f"{_LABELS[name]}@{k}" for name in METRIC_NAMES]
    metric_labels[-1] = f"P@{k}(chunks)"
    return [first, "queries", *metric_labels, "refusals", "nonEmpty", "errors"]


def _ablation_line(run: RankingVariant, ablated: RankingVariant) -> str:
    deltas = []
    for name in METRIC_NAMES:
        base, off = getattr(run.overall, name), getattr(ablated.overall, name)
        delta = "-" if base is None or off is None else f"{base - off:+.3f}"
        deltas.append(f"{_LABELS[name]} {delta}")
    return f"  {run.adapterId}: " + ", ".join(deltas)


def _ablation_lines(report: RankingReport) -> list[str]:
    by_key = {(r.adapterId, r.variant): r for r in report.runs}
    lines = ["", "Ablation (default - ablated; switches rerank=false expand=false):"]
    for run in report.runs:
        ablated = by_key.get((run.adapterId, "ablated"))
        if run.variant == "default" and ablated is not None:
            lines.append(_ablation_line(run, ablated))
    return lines


def _miss_kind(query: RankedQuery) -> str | None:
    """ERROR, MISS or REFUSAL-NONEMPTY; None for a query that went as it should."""
    if query.errorCode:
        return "ERROR"
    if query.metrics is not None and query.metrics.recall < 1.0:
        return "MISS"
    if query.expectRefusal and query.nonEmpty:
        return "REFUSAL-NONEMPTY"
    return None


def _miss_lines(run: RankingVariant) -> list[str]:
    lines = []
    for query in run.queries:
        kind = _miss_kind(query)
        if kind is None:
            continue
        relevant = ", ".join(item.uri for item in query.relevant) or "-"
        retrieved = ", ".join(query.documents) or "-"
        lines.append(f"  {kind} {query.goldenId} [{', '.join(query.tags)}]")
        lines.append(f"    search:    {query.arguments['query']}")
        lines.append(f"    relevant:  {relevant}")
        lines.append(f"    retrieved: {retrieved}")
        if query.errorCode:
            lines.append(f"    error:     {query.errorCode}")
    return lines


def _title(report: RankingReport) -> str:
    settings = report.settings
    threshold = "none" if settings.threshold is None else str(settings.threshold)
    return (
        f"Ranking tier: fixture {report.fixtureFingerprint[:12]} ({report.fixtureVersion}), "
        f"goldens {report.goldensFingerprint[:12]} ({report.goldenCount} questions), "
        f"k={settings.k}, threshold={threshold}"
    )


def render_text(report: RankingReport, *, verbose: bool = False) -> str:
    k = report.settings.k
    lines = [_title(report), ""]
    rows = [[f"{r.adapterId}/{r.variant}", *_summary_cells(r.overall)] for r in report.runs]
    lines += _table(_header("adapter", k), rows)
    for run in report.runs:
        lines += ["", f"{run.adapterId}/{run.variant} by tag:"]
        tag_rows = [[tag, *_summary_cells(s)] for tag, s in run.byTag.items()]
        lines += ["  " + line for line in _table(_header("tag", k), tag_rows)]
    if report.settings.ablate:
        lines += _ablation_lines(report)
    if verbose:
        for run in report.runs:
            lines += ["", f"{run.adapterId}/{run.variant} misses:"]
            lines += _miss_lines(run) or ["  none"]
    return "\n".join(lines) + "\n"
