"""The readable summary, report.md. It is derived from the report; nothing here is canonical."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable

from agentic.contract.receipt import Timing, TrajectoryReceipt
from agentic.contract.report import BenchmarkReport, Promotion, ScoreRecord


def _number(value: float | int | None) -> str:
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def _cohorts(
    report: BenchmarkReport,
) -> dict[tuple[str, str], list[tuple[TrajectoryReceipt, ScoreRecord]]]:
    groups: dict[tuple[str, str], list[tuple[TrajectoryReceipt, ScoreRecord]]] = defaultdict(list)
    for receipt, score in zip(report.receipts, report.scores, strict=True):
        groups[(receipt.canonical.adapterId, receipt.canonical.lifecycle)].append((receipt, score))
    return dict(sorted(groups.items()))


def _promotion_lines(promotion: Promotion | None) -> list[str]:
    if promotion is None:
        return ["Verdict: not evaluated (the run lacks the candidate or the baseline adapter)."]
    verdict = "PASS" if promotion.passed else "FAIL"
    lines = [f"Verdict: **{verdict}** over {promotion.pairCount} pairs.", ""]
    for name, value in promotion.metrics.to_json().items():
        lines.append(f"- {name}: {_number(value)}")
    if promotion.failures:
        lines.append("")
        lines.append("Failures:")
        lines.extend(f"- `{failure.replace(chr(0), '/')}`" for failure in promotion.failures)
    return lines


def _timing_cell(timings: list[Timing]) -> str:
    total = sum(t.valueMs for t in timings if t.valueMs is not None)
    nulls = [t.unavailableReason for t in timings if t.valueMs is None]
    cell = f"{round(total, 3)} ms"
    if nulls:
        reasons = sorted({r for r in nulls if r})
        cell += f" / null {len(nulls)} ({'; '.join(reasons)})"
    return cell


def _cohort_rows(report: BenchmarkReport) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for (adapter, lifecycle), items in _cohorts(report).items():
        canon = [r.canonical for r, _ in items]
        scores = [s.score for _, s in items]
        rows.append(
            (
                adapter,
                lifecycle,
                str(len(items)),
                str(sum(1 for s in scores if s.scored)),
                str(sum(s.success for s in scores)),
                str(sum(1 for s in scores if not s.scored)),
                str(sum(c.agentCalls for c in canon)),
                str(sum(c.backendInvocations for c in canon)),
                str(sum(c.modelVisibleUtf8Bytes for c in canon)),
            )
        )
    return rows


def _timing_rows(report: BenchmarkReport) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for (adapter, lifecycle), items in _cohorts(report).items():
        timings = [r.observations.timings for r, _ in items]
        rows.append(
            (
                adapter,
                lifecycle,
                _timing_cell([t.startup for t in timings]),
                _timing_cell([t.modelLoad for t in timings]),
                _timing_cell([t.tool for t in timings]),
                _timing_cell([t.driver for t in timings]),
                _timing_cell([t.endToEnd for t in timings]),
            )
        )
    return rows


DEFAULT_PROMOTION_HEADING = "Capsule promotion"


def render_markdown(
    report: BenchmarkReport, promotion_heading: str = DEFAULT_PROMOTION_HEADING
) -> str:
    env = report.environment
    adapters = sorted({r.canonical.adapterId for r in report.receipts})
    success = sum(s.score.success for s in report.scores)
    lines = [
        f"# Agentic Retrieval Benchmark — {env.agentId}",
        "",
        f"- Canonical fingerprint: `{report.canonicalFingerprint}`",
        f"- Results fingerprint: `{report.resultsFingerprint}`",
        f"- Fixture: `{report.fixtureFingerprint}` (version {env.fixtureVersion})",
        f"- Adapters: {', '.join(adapters)}",
        f"- Attempted/scored/successful: {report.attemptedPairs}/{report.scoredPairs}/{success}",
        f"- Excluded: {len(report.exclusions)}",
        "",
        f"## {promotion_heading}",
        "",
        *_promotion_lines(report.promotion),
        "",
        "## Adapter-native indexes",
        "",
        *_table(
            ("adapter", "index fingerprint", "preparation ms"),
            (
                (p.adapterId, f"`{p.indexFingerprint}`", _number(p.observations.preparationMs))
                for p in report.preparations
            ),
        ),
        "",
        "## Cohort accounting",
        "",
        *_table(
            (
                "adapter",
                "lifecycle",
                "attempted",
                "scored",
                "success",
                "excluded",
                "agentCalls",
                "backendInvocations",
                "bytes",
            ),
            _cohort_rows(report),
        ),
        "",
        "## Lifecycle timings",
        "",
        *_table(
            ("adapter", "lifecycle", "startup", "modelLoad", "tool", "driver", "endToEnd"),
            _timing_rows(report),
        ),
        "",
        "## Capsule replay hashes",
        "",
        *_table(
            ("task", "trial", "lifecycle", "first sha256", "second sha256", "equal"),
            (
                (
                    r.taskId,
                    r.trialId,
                    r.lifecycle,
                    f"`{r.first.sha256[:16]}`",
                    f"`{r.second.sha256[:16]}`",
                    "yes" if r.first.sha256 == r.second.sha256 else "NO",
                )
                for r in report.capsuleReplays
            ),
        ),
        "",
        "## Methodology",
        "",
        *(f"- {m}" for m in report.methodology),
        "",
        "## Limitations",
        "",
        *(f"- {m}" for m in report.limitations),
    ]
    if report.exclusions:
        lines += ["", "## Exclusions", ""]
        lines += _table(
            ("adapter", "task", "trial", "lifecycle", "class", "reason"),
            (
                (e.adapterId, e.taskId, e.trialId, e.lifecycle, e.failureClass, e.reason)
                for e in report.exclusions
            ),
        )
    return "\n".join(lines) + "\n"


def _median_ms(timings: list[Timing]) -> str:
    values = [t.valueMs for t in timings if t.valueMs is not None]
    if not values:
        return "null"
    return f"{round(statistics.median(values), 3)} ms"


def _beside_rows(report: BenchmarkReport, source: str) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for (adapter, lifecycle), items in _cohorts(report).items():
        canon = [r.canonical for r, _ in items]
        timings = [r.observations.timings for r, _ in items]
        rows.append(
            (
                adapter,
                lifecycle,
                source,
                f"{sum(s.score.success for _, s in items)}/{len(items)}",
                str(sum(c.agentCalls for c in canon)),
                str(sum(c.modelVisibleUtf8Bytes for c in canon)),
                _median_ms([t.tool for t in timings]),
                _median_ms([t.endToEnd for t in timings]),
            )
        )
    return rows


def render_beside(report: BenchmarkReport, reference: BenchmarkReport, name: str) -> str:
    """This run's cohorts next to a committed reference run on the same fixture (an optional
    lane beside the authoritative baseline). Latency compares only within one machine."""
    header = (
        "adapter",
        "lifecycle",
        "run",
        "success",
        "agentCalls",
        "bytes",
        "median tool",
        "median e2e",
    )
    rows = _beside_rows(report, "this run") + _beside_rows(reference, name)
    lines = ["", f"## Beside `{name}`", ""]
    lines += _table(header, sorted(rows, key=lambda row: (row[1], row[0], row[2])))
    return "\n".join(lines) + "\n"
