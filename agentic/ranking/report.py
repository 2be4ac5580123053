"""The ranking report: canonical JSON (RFC 8785, byte-identical across runs) and its text view.

Layout (``reportKind: "ranking"``)::

    {schemaVersion, reportKind, fixtureFingerprint, fixtureVersion, goldensFingerprint,
     goldenCount, settings: {k, threshold, tags, ablate},
     runs: [{adapterId, variant, switches,
             overall: Summary, byTag: {tag: Summary},
             queries: [{goldenId, tags, expectRefusal, arguments, errorCode, relevant,
                        documents, chunks, nonEmpty, metrics}]}]}

    Summary = {queries, recall, hitRate, mrr, ndcg, precision,   # answerable goldens, at k
               refusalQueries, nonEmptyRate,                      # refusal goldens
               errors}                                            # failed searches

``nonEmptyRate`` is the share of refusal goldens for which the search returned anything: on a
small corpus recall sits near 1, and this is one of the numbers with headroom (sweep
``--threshold`` to move it). Metric values are null where their population is empty.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentic.contract.canonical import canonical_bytes
from agentic.contract.strict_json import JsonObject
from agentic.ranking.goldens import tier_report_header
from agentic.ranking.metrics import METRIC_NAMES, mean, mean_metrics
from agentic.ranking.runner import QueryResult, RankingRun, VariantRun

SCHEMA_VERSION = "1.0"
REPORT_KIND = "ranking"


def summarize(results: Sequence[QueryResult]) -> JsonObject:
    answerable = [m for m in (r.metrics for r in results) if m is not None]
    refusals = [r for r in results if r.golden.expectRefusal]
    return {
        "queries": len(answerable),
        **mean_metrics(answerable),
        "refusalQueries": len(refusals),
        "nonEmptyRate": mean([1.0 if r.chunks else 0.0 for r in refusals]),
        "errors": sum(1 for r in results if r.error_code is not None),
    }


def by_tag(results: Sequence[QueryResult]) -> dict[str, JsonObject]:
    tags = sorted({tag for r in results for tag in r.golden.tags})
    return {tag: summarize([r for r in results if tag in r.golden.tags]) for tag in tags}


def variant_json(run: VariantRun) -> JsonObject:
    return {
        "adapterId": run.adapter_id,
        "variant": run.variant,
        "switches": run.switches,
        "overall": summarize(run.results),
        "byTag": by_tag(run.results),
        "queries": [r.to_json() for r in run.results],
    }


def report_json(run: RankingRun) -> JsonObject:
    return {
        **tier_report_header(SCHEMA_VERSION, REPORT_KIND, run.fixture, run.goldens),
        "settings": run.settings.to_json(),
        "runs": [variant_json(v) for v in run.runs],
    }


def report_bytes(report: JsonObject) -> bytes:
    return canonical_bytes(report)


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


def _summary_cells(summary: JsonObject) -> list[str]:
    return [
        str(summary["queries"]),
        *(format_rate(summary[name]) for name in METRIC_NAMES),
        str(summary["refusalQueries"]),
        format_rate(summary["nonEmptyRate"]),
        str(summary["errors"]),
    ]


def _header(first: str, k: int) -> list[str]:
    metric_labels = [f"{_LABELS[name]}@{k}" for name in METRIC_NAMES]
    metric_labels[-1] = f"P@{k}(chunks)"
    return [first, "queries", *metric_labels, "refusals", "nonEmpty", "errors"]


def _ablation_lines(report: JsonObject) -> list[str]:
    by_key = {(r["adapterId"], r["variant"]): r for r in report["runs"]}
    lines = ["", "Ablation (default - ablated; switches rerank=false expand=false):"]
    for run in report["runs"]:
        ablated = by_key.get((run["adapterId"], "ablated"))
        if run["variant"] != "default" or ablated is None:
            continue
        deltas = []
        for name in METRIC_NAMES:
            base, off = run["overall"][name], ablated["overall"][name]
            delta = "-" if base is None or off is None else f"{base - off:+.3f}"
            deltas.append(f"{_LABELS[name]} {delta}")
        lines.append(f"  {run['adapterId']}: " + ", ".join(deltas))
    return lines


def _miss_lines(run: JsonObject) -> list[str]:
    lines = []
    for query in run["queries"]:
        metrics = query["metrics"]
        missed = metrics is not None and metrics["recall"] < 1.0
        leaked = query["expectRefusal"] and query["nonEmpty"]
        if not (missed or leaked or query["errorCode"]):
            continue
        kind = "ERROR" if query["errorCode"] else ("MISS" if missed else "REFUSAL-NONEMPTY")
        relevant = ", ".join(item["uri"] for item in query["relevant"]) or "-"
        retrieved = ", ".join(query["documents"]) or "-"
        lines.append(f"  {kind} {query['goldenId']} [{', '.join(query['tags'])}]")
        lines.append(f"    search:    {query['arguments']['query']}")
        lines.append(f"    relevant:  {relevant}")
        lines.append(f"    retrieved: {retrieved}")
        if query["errorCode"]:
            lines.append(f"    error:     {query['errorCode']}")
    return lines


def render_text(report: JsonObject, *, verbose: bool = False) -> str:
    settings = report["settings"]
    k = settings["k"]
    threshold = "none" if settings["threshold"] is None else str(settings["threshold"])
    lines = [
        f"Ranking tier: fixture {report['fixtureFingerprint'][:12]} ({report['fixtureVersion']}), "
        f"goldens {report['goldensFingerprint'][:12]} ({report['goldenCount']} questions), "
        f"k={k}, threshold={threshold}",
        "",
    ]
    rows = [
        [f"{r['adapterId']}/{r['variant']}", *_summary_cells(r["overall"])] for r in report["runs"]
    ]
    lines += _table(_header("adapter", k), rows)
    for run in report["runs"]:
        lines += ["", f"{run['adapterId']}/{run['variant']} by tag:"]
        tag_rows = [[tag, *_summary_cells(s)] for tag, s in run["byTag"].items()]
        lines += ["  " + line for line in _table(_header("tag", k), tag_rows)]
    if settings["ablate"]:
        lines += _ablation_lines(report)
    if verbose:
        for run in report["runs"]:
            lines += ["", f"{run['adapterId']}/{run['variant']} misses:"]
            lines += _miss_lines(run) or ["  none"]
    return "\n".join(lines) + "\n"
