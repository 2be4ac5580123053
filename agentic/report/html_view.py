"""What report.html shows, computed from a report: rows, figures and groupings (``build_page``).

The page's view model is plain data: the verdict and the facts of the run, the cohort and
attribution rows, the charts (the kit's own SVG, ``charts.py``), the task grid, and per task each
pair's calls and citations, each citation read against the oracle's required and forbidden lines
when the task facts are at hand. ``html.py`` writes it out as markup; nothing here emits HTML.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from agentic.contract.envelope import ClaimValue, FinalEnvelope
from agentic.contract.receipt import Call, TrajectoryReceipt
from agentic.contract.report import BenchmarkReport, ScoreRecord, pair_sort_key
from agentic.contract.text import clip
from agentic.report.attribution_table import (
    ReportAttribution,
    attribution_rows,
    mcnemar_lines,
    report_attribution,
)
from agentic.report.charts import RateBar, distributions, grouped_rates, rate_bars
from agentic.report.markdown import (
    COHORT_HEADER,
    cohort_rows,
    cohorts,
    metric_lines,
    promotion_uncertainty,
)
from agentic.report.outcomes import missed_terms
from agentic.report.stats import wilson_interval
from agentic.scoring.task_facts import OracleSpan, TaskFacts

EXCERPT_CHARS = 400  # of a result's content, per call
ARGUMENT_CHARS = 300  # of a call's arguments, as compact JSON
Facts = Mapping[str, TaskFacts]


# --- the rows the page is written from --------------------------------------------------------
# NamedTuples rather than frozen dataclasses: each dataclass costs about half a millisecond to
# define at import, and this module is imported by every lane that writes its report.


class Citation(NamedTuple):
    claim_key: str
    value: str
    where: str  # uri:start-end
    verdict: str  # "required", "optional", "forbidden", "overlaps required", "not in the oracle"
    tone: str  # css class: good | bad | neutral


class CallRow(NamedTuple):
    number: int  # the call's index in its trajectory
    tool: str
    arguments: str
    status: str
    role: str
    excerpt: str
    evidence: str  # the spans returned, comma-separated, or "-"
    failure: str | None
    delivered: bool


class PairView(NamedTuple):
    anchor: str
    adapter: str
    lifecycle: str
    trial: str
    success: bool
    reasons: tuple[str, ...]
    agent_calls: int
    visible_bytes: int
    stop_reason: str
    calls: tuple[CallRow, ...]
    citations: tuple[Citation, ...]
    uncited_required: tuple[str, ...]
    gaps: tuple[str, ...]
    abstained: bool | None
    cause: str | None = None  # "retrieval", "model" or "excluded" for a failure, with facts


class TaskView(NamedTuple):
    anchor: str
    task_id: str
    category: str
    passed: int
    pairs: tuple[PairView, ...]
    oracle_lines: tuple[str, ...]


class GridCell(NamedTuple):
    text: str
    tone: str  # pass | fail | mixed | none
    anchor: str | None


class GridRow(NamedTuple):
    task_id: str
    anchor: str
    category: str
    failed: bool
    cells: tuple[GridCell, ...]


class Page(NamedTuple):
    title: str
    facts: tuple[tuple[str, str], ...]
    verdict: str
    verdict_tone: str
    promotion_lines: tuple[str, ...]
    promotion_failures: tuple[str, ...]
    cohort_header: tuple[str, ...]
    cohort_rows: tuple[tuple[str, ...], ...]
    charts: tuple[tuple[str, str], ...]  # (caption, svg)
    adapters: tuple[str, ...]
    grid: tuple[GridRow, ...]
    tasks: tuple[TaskView, ...]
    replays: str
    notes: tuple[str, ...] = ()
    attribution_rows: tuple[tuple[str, ...], ...] = ()  # empty without the fixture's facts
    attribution_tests: tuple[str, ...] = ()


# --- citations against the oracle ------------------------------------------------------------


def _where(uri: str, start: int, end: int) -> str:
    return f"{uri}:{start}" if start == end else f"{uri}:{start}-{end}"


def _span_text(span: OracleSpan) -> str:
    return f"{span.kind} {span.claim_key} {_where(span.uri, span.start_line, span.end_line)}"


def citation_verdict(
    claim_key: str, uri: str, start: int, end: int, spans: Iterable[OracleSpan]
) -> str:
    """How one citation reads against the oracle: an exact match of the claim's lines first,
    then any overlap with forbidden lines (which the scorer counts against it), then overlaps."""
    own = [s for s in spans if s.claim_key == claim_key]
    for span in own:
        if span.equals(uri, start, end):
            return span.kind
    if any(s.kind == "forbidden" and s.overlaps(uri, start, end) for s in spans):
        return "overlaps forbidden"
    for span in own:
        if span.overlaps(uri, start, end):
            return f"overlaps {span.kind}"
    return "not in the oracle"


TONES = {
    "required": "good",
    "optional": "good",
    "forbidden": "bad",
    "overlaps forbidden": "bad",
}


def _value_text(value: ClaimValue) -> str:
    return json.dumps(value.value, ensure_ascii=False, separators=(",", ":"))


def _citations(
    envelope: FinalEnvelope | None, facts: TaskFacts | None
) -> tuple[tuple[Citation, ...], tuple[str, ...]]:
    """Every cited span with its reading, and the required spans no citation named exactly."""
    if envelope is None:
        return (), ()
    spans = facts.spans if facts is not None else ()
    rows: list[Citation] = []
    cited: set[tuple[str, str, int, int]] = set()
    for claim in envelope.claims:
        if not claim.citations:
            rows.append(
                Citation(claim.claimKey, _value_text(claim.value), "-", "no citation", "bad")
            )
        for evidence in claim.citations:
            start, end = evidence.startLine, evidence.endLine
            cited.add((claim.claimKey, evidence.uri, start, end))
            verdict = (
                citation_verdict(claim.claimKey, evidence.uri, start, end, spans)
                if facts is not None
                else "oracle not at hand"
            )
            rows.append(
                Citation(
                    claim.claimKey,
                    _value_text(claim.value),
                    _where(evidence.uri, start, end),
                    verdict,
                    TONES.get(verdict, "neutral"),
                )
            )
    uncited = tuple(
        _span_text(s)
        for s in spans
        if s.kind == "required" and (s.claim_key, s.uri, s.start_line, s.end_line) not in cited
    )
    return tuple(rows), uncited


# --- pairs and tasks --------------------------------------------------------------------------


def _call_row(call: Call) -> CallRow:
    result = call.result
    arguments = json.dumps(
        call.arguments, ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )
    return CallRow(
        number=call.callIndex,
        tool=call.toolName,
        arguments=clip(arguments, ARGUMENT_CHARS),
        status=result.status if result.errorCode is None else f"{result.status} {result.errorCode}",
        role=result.resultRole,
        excerpt=clip(result.content, EXCERPT_CHARS),
        evidence=", ".join([_where(e.uri, e.startLine, e.endLine) for e in result.evidence]) or "-",
        failure=call.failureCode,
        delivered=call.deliveredToAgent,
    )


def _cause(canon_key: tuple[str, ...], attribution: ReportAttribution | None) -> str | None:
    """Who failed this pair, by its attribution's verdict; None for a success or without facts."""
    if attribution is None:
        return None
    verdict = attribution.by_pair[canon_key].verdict
    return None if verdict == "success" else verdict


def _pair_view(
    anchor: str,
    receipt: TrajectoryReceipt,
    record: ScoreRecord,
    facts: Facts,
    attribution: ReportAttribution | None,
) -> PairView:
    canon = receipt.canonical
    envelope = canon.finalEnvelope
    citations, uncited = _citations(envelope, facts.get(canon.taskId) if facts else None)
    return PairView(
        anchor=anchor,
        adapter=canon.adapterId,
        lifecycle=canon.lifecycle,
        trial=canon.trialId,
        success=bool(record.score.success),
        reasons=missed_terms(canon, record.score),
        agent_calls=canon.agentCalls,
        visible_bytes=canon.modelVisibleUtf8Bytes,
        stop_reason=canon.stopReason,
        calls=tuple(_call_row(c) for c in canon.calls),
        citations=citations,
        uncited_required=uncited,
        gaps=tuple(g.claimKey for g in envelope.gaps) if envelope is not None else (),
        abstained=envelope.abstained if envelope is not None else None,
        cause=_cause(pair_sort_key(canon), attribution),
    )


def _items(report: BenchmarkReport) -> list[tuple[TrajectoryReceipt, ScoreRecord]]:
    """Every pair in (task, adapter, lifecycle, trial) order: how a reader walks the page."""
    items = list(zip(report.receipts, report.scores, strict=True))
    return sorted(
        items,
        key=lambda item: (
            item[0].canonical.taskId,
            item[0].canonical.adapterId,
            item[0].canonical.lifecycle,
            item[0].canonical.trialId,
        ),
    )


def _category(facts: Facts, task_id: str) -> str:
    entry = facts.get(task_id)
    return entry.category if entry is not None else "-"


def _task_views(
    report: BenchmarkReport, facts: Facts, attribution: ReportAttribution | None
) -> tuple[TaskView, ...]:
    by_task: dict[str, list[PairView]] = defaultdict(list)
    for number, (receipt, record) in enumerate(_items(report)):
        pair = _pair_view(f"pair-{number}", receipt, record, facts, attribution)
        by_task[receipt.canonical.taskId].append(pair)
    views = []
    for number, (task_id, pairs) in enumerate(sorted(by_task.items())):
        entry = facts.get(task_id)
        views.append(
            TaskView(
                anchor=f"task-{number}",
                task_id=task_id,
                category=_category(facts, task_id),
                passed=sum(p.success for p in pairs),
                pairs=tuple(pairs),
                oracle_lines=tuple(_span_text(s) for s in entry.spans) if entry else (),
            )
        )
    return tuple(views)


def _cell(pairs: list[PairView]) -> GridCell:
    if not pairs:
        return GridCell("not run", "none", None)
    passed = sum(p.success for p in pairs)
    if passed == len(pairs):
        return GridCell(f"pass {passed}/{len(pairs)}", "pass", pairs[0].anchor)
    first_fail = next(p for p in pairs if not p.success)
    # The cause (retrieval or model) first; an excluded pair's reasons already say so.
    cause = [first_fail.cause] if first_fail.cause in ("retrieval", "model") else []
    reasons = "; ".join([*cause, *first_fail.reasons]) or "fail"
    labels = ", ".join(f"{p.lifecycle}{'' if p.success else ' ✗'}" for p in pairs)
    tone = "fail" if passed == 0 else "mixed"
    return GridCell(f"{passed}/{len(pairs)} ({labels}): {reasons}", tone, first_fail.anchor)


def _grid(tasks: tuple[TaskView, ...], adapters: tuple[str, ...]) -> tuple[GridRow, ...]:
    rows = []
    for task in tasks:
        by_adapter: dict[str, list[PairView]] = defaultdict(list)
        for pair in task.pairs:
            by_adapter[pair.adapter].append(pair)
        cells = tuple(_cell(by_adapter[a]) for a in adapters)
        rows.append(
            GridRow(
                task_id=task.task_id,
                anchor=task.anchor,
                category=task.category,
                failed=task.passed < len(task.pairs),
                cells=cells,
            )
        )
    return tuple(rows)


# --- charts -----------------------------------------------------------------------------------


def _rate_bar(label: str, successes: int, scored: int) -> RateBar:
    if scored == 0:
        return RateBar(label, 0.0, 0.0, 0.0, "0 scored")
    interval = wilson_interval(successes, scored)
    rate = successes / scored
    return RateBar(label, rate, interval.low, interval.high, f"{successes}/{scored}")


def _charts(report: BenchmarkReport, facts: Facts) -> tuple[tuple[str, str], ...]:
    groups = cohorts(report)
    bars = [
        _rate_bar(
            f"{adapter} {lifecycle}",
            sum(s.score.success for _, s in items),
            sum(1 for _, s in items if s.score.scored),
        )
        for (adapter, lifecycle), items in groups.items()
    ]
    adapters = sorted({adapter for adapter, _ in groups})
    calls = {
        a: [float(r.canonical.agentCalls) for r in report.receipts if r.canonical.adapterId == a]
        for a in adapters
    }
    visible = {
        a: [
            float(r.canonical.modelVisibleUtf8Bytes)
            for r in report.receipts
            if r.canonical.adapterId == a
        ]
        for a in adapters
    }
    charts = [
        ("Success rate by adapter and lifecycle", rate_bars(bars, title="Success by cohort")),
    ]
    if facts:
        charts.append(
            (
                "Success rate by task category (lifecycles and trials pooled)",
                _by_category(report, facts, adapters),
            )
        )
    charts += [
        ("Agent calls per pair", distributions(calls, title="Agent calls per pair", unit="calls")),
        (
            "Model-visible bytes per pair",
            distributions(visible, title="Model-visible bytes per pair", unit="UTF-8 bytes"),
        ),
    ]
    return tuple(charts)


def _by_category(report: BenchmarkReport, facts: Facts, adapters: list[str]) -> str:
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for record in report.scores:
        if record.score.scored:
            counts = tally[(_category(facts, record.taskId), record.adapterId)]
            counts[0] += record.score.success
            counts[1] += 1
    categories = sorted({category for category, _ in tally})
    series = {
        adapter: [
            tally[(c, adapter)][0] / tally[(c, adapter)][1] if tally[(c, adapter)][1] else None
            for c in categories
        ]
        for adapter in adapters
    }
    return grouped_rates(categories, series, title="Success by category")


# --- the page ---------------------------------------------------------------------------------


def _facts_list(report: BenchmarkReport) -> tuple[tuple[str, str], ...]:
    env = report.environment
    success = sum(s.score.success for s in report.scores)
    git = env.git.commit[:12] if env.git.commit else (env.git.unavailableReason or "unknown")
    return (
        ("Agent", env.agentId),
        (
            "Pairs attempted / scored / successful",
            f"{report.attemptedPairs} / {report.scoredPairs} / {success}",
        ),
        ("Excluded pairs", str(len(report.exclusions))),
        ("Results fingerprint", report.resultsFingerprint or "-"),
        ("Canonical fingerprint", report.canonicalFingerprint),
        ("Fixture", f"{report.fixtureFingerprint} (version {env.fixtureVersion})"),
        (
            "Kit",
            f"agentic {env.packageVersion}, Python {env.pythonVersion or '-'}, "
            f"{env.platform} {env.architecture}",
        ),
        ("Backend isolation", env.isolation or "no backend process"),
        *_endpoint_facts(report),
        ("Source", f"git {git}" + (" (dirty)" if env.git.dirty else "")),
    )


def _endpoint_facts(report: BenchmarkReport) -> tuple[tuple[str, str], ...]:
    endpoint = report.environment.agentEndpoint
    if endpoint is None:
        return ()
    models = ", ".join(endpoint.endpointModels) or "none listed"
    return (
        ("Agent endpoint", f"{endpoint.model} at {endpoint.baseUrl} (reports: {models})"),
        ("Model answers", endpoint.answers),
    )


def _promotion(report: BenchmarkReport) -> tuple[str, str, tuple[str, ...], tuple[str, ...]]:
    promotion = report.promotion
    if promotion is None:
        return (
            "not evaluated",
            "none",
            ("The run lacks the candidate or the baseline adapter, or no gate was asked for.",),
            (),
        )
    verdict = "PASS" if promotion.passed else "FAIL"
    lines = tuple(metric_lines(promotion))
    return (
        f"{verdict} over {promotion.pairCount} pairs",
        "pass" if promotion.passed else "fail",
        (*lines, promotion_uncertainty(promotion)),
        tuple(f.replace(chr(0), "/") for f in promotion.failures),
    )


def _replays(report: BenchmarkReport) -> str:
    replays = report.capsuleReplays
    if not replays:
        return "Capsule replays: none in this run."
    unequal = [r for r in replays if r.first.sha256 != r.second.sha256]
    listed = "".join(f"; NOT EQUAL {r.taskId}/{r.trialId}/{r.lifecycle}" for r in unequal)
    return f"Capsule replays: {len(replays) - len(unequal)}/{len(replays)} equal{listed}."


def build_page(report: BenchmarkReport, facts: Facts | None = None) -> Page:
    facts = facts or {}
    attribution = report_attribution(report, facts)
    adapters = tuple(sorted({r.canonical.adapterId for r in report.receipts}))
    tasks = _task_views(report, facts, attribution)
    verdict, tone, promotion_lines, failures = _promotion(report)
    notes = (
        ()
        if facts
        else (
            "The fixture was not at hand: citations are shown without the oracle's lines, "
            "and categories are unknown.",
        )
    )
    return Page(
        title=f"Agentic Retrieval Benchmark — {report.environment.agentId}",
        facts=_facts_list(report),
        verdict=verdict,
        verdict_tone=tone,
        promotion_lines=promotion_lines,
        promotion_failures=failures,
        cohort_header=COHORT_HEADER,
        cohort_rows=tuple(cohort_rows(report)),
        charts=_charts(report, facts),
        adapters=adapters,
        grid=_grid(tasks, adapters),
        tasks=tasks,
        replays=_replays(report),
        notes=notes,
        attribution_rows=tuple(attribution_rows(attribution)) if attribution else (),
        attribution_tests=tuple(mcnemar_lines(attribution)) if attribution else (),
    )
