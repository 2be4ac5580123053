"""The readable summary, report.md. It is derived from the report; nothing here is canonical.

It answers, in order: did the gate pass (and how sure is that), how each cohort did with the
uncertainty of its success rate, with the fixture's facts whether retrieval or the model failed
(``report/attribution_table.py``), which task failed where and why, what it cost, and whether the
capsule replays agreed. Every table is sorted by explicit keys and every number formatted with a
fixed rule, so the same report always renders to the same bytes.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from agentic.contract.receipt import Timing, TrajectoryReceipt
from agentic.contract.report import (
    BenchmarkReport,
    CapsuleReplay,
    Promotion,
    ScoreRecord,
    pair_sort_key,
)
from agentic.report.attribution_table import (
    ATTRIBUTION_HEADER,
    ATTRIBUTION_LEGEND,
    ReportAttribution,
    attribution_rows,
    mcnemar_lines,
    report_attribution,
)
from agentic.report.outcomes import missed_terms
from agentic.report.stats import ALPHA, paired_difference, wilson_interval
from agentic.scoring.task_facts import TaskFacts

Cohort = tuple[str, str]  # (adapter, lifecycle)
Item = tuple[TrajectoryReceipt, ScoreRecord]


def _number(value: float | int | None) -> str:
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# Digits of a promotion metric for people, as many as the Wilson intervals beside it show;
# report.json keeps the full precision the gate compared.
METRIC_DIGITS = 3


def metric_text(value: float | int | None) -> str:
    return _number(round(value, METRIC_DIGITS) if isinstance(value, float) else value)


def metric_lines(promotion: Promotion) -> list[str]:
    """``name: value`` for each of the gate's metrics, rounded (report.md and report.html)."""
    return [f"{name}: {metric_text(value)}" for name, value in promotion.metrics]


def _cell(text: str) -> str:
    """``text`` safe inside a table cell: a pipe or a line break would split the row."""
    return " ".join(text.split()).replace("|", "\\|")


def _table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows)
    return lines


def cohorts(report: BenchmarkReport) -> dict[Cohort, list[Item]]:
    groups: dict[Cohort, list[Item]] = defaultdict(list)
    for receipt, score in zip(report.receipts, report.scores, strict=True):
        groups[(receipt.canonical.adapterId, receipt.canonical.lifecycle)].append((receipt, score))
    return dict(sorted(groups.items()))


# --- promotion --------------------------------------------------------------------------------

PAIRWISE_LOSS = "pairwise_accuracy_loss:"


def promotion_uncertainty(promotion: Promotion) -> str:
    """One informational line: the two success rates with Wilson intervals and the exact paired
    test over the gate's pairs. Only when every pair counted in the rates (then both rates are
    over ``pairCount``); the verdict itself never depends on it."""
    metrics, pairs = promotion.metrics, promotion.pairCount
    base, cand = metrics.baselineSuccessRate, metrics.candidateSuccessRate
    # The gate leaves the unsupported-claim counts null exactly when some pair was invalid.
    if base is None or cand is None or pairs == 0 or metrics.baselineUnsupportedClaims is None:
        return "Uncertainty: not computed (some pairs were left out of the rates)."
    base_k, cand_k = round(base * pairs), round(cand * pairs)
    # The gate names each pair the candidate lost; the net change gives the pairs it won.
    worse = sum(1 for failure in promotion.failures if failure.startswith(PAIRWISE_LOSS))
    paired = paired_difference(worse, cand_k - base_k + worse)
    return (
        f"Uncertainty (informational, not part of the verdict): baseline {base_k}/{pairs} "
        f"{wilson_interval(base_k, pairs).text()}, candidate {cand_k}/{pairs} "
        f"{wilson_interval(cand_k, pairs).text()} (95% Wilson); candidate vs baseline "
        f"{paired.text()}; cold and warm of one task count as two pairs."
    )


NO_GATE_HEADING = "Promotion: not requested"


def _promotion_lines(promotion: Promotion | None, heading: str) -> list[str]:
    if promotion is None and heading == NO_GATE_HEADING:
        return ["No gate: `--promote none`, or the run lacks an adapter of the default gate."]
    if promotion is None:
        return ["Verdict: not evaluated (the run lacks the candidate or the baseline adapter)."]
    verdict = "PASS" if promotion.passed else "FAIL"
    lines = [f"Verdict: **{verdict}** over {promotion.pairCount} pairs.", ""]
    lines.extend(f"- {line}" for line in metric_lines(promotion))
    lines += ["", promotion_uncertainty(promotion)]
    if promotion.failures:
        lines.append("")
        lines.append("Failures:")
        lines.extend(f"- `{failure.replace(chr(0), '/')}`" for failure in promotion.failures)
    return lines


# --- cohorts ----------------------------------------------------------------------------------


def _rate_cell(successes: int, scored: int) -> str:
    if scored == 0:
        return "-"
    return f"{successes / scored:.3f} {wilson_interval(successes, scored).text()}"


def cohort_rows(report: BenchmarkReport) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for (adapter, lifecycle), items in cohorts(report).items():
        canon = [r.canonical for r, _ in items]
        scores = [s.score for _, s in items]
        scored = sum(1 for s in scores if s.scored)
        success = sum(s.success for s in scores)
        rows.append(
            (
                adapter,
                lifecycle,
                str(len(items)),
                str(scored),
                str(success),
                _rate_cell(success, scored),
                str(len(items) - scored),
                str(sum(c.agentCalls for c in canon)),
                str(sum(c.backendInvocations for c in canon)),
                str(sum(c.modelVisibleUtf8Bytes for c in canon)),
            )
        )
    return rows


COHORT_HEADER = (
    "adapter",
    "lifecycle",
    "attempted",
    "scored",
    "success",
    "rate [95% Wilson]",
    "excluded",
    "agentCalls",
    "backendInvocations",
    "bytes",
)


# --- the per-task grid ------------------------------------------------------------------------

GRID_LEGEND = (
    "One row per task, one column per adapter. A cell reads "
    "`outcome · agent calls · model-visible bytes`, once when every lifecycle gave the same, "
    "else as `cold: … / warm: …`. A FAIL names its receipt's failure code or the terms of the "
    'success condition it missed (README, "Reading report.md").'
)
GRID_ATTRIBUTION_LEGEND = (
    "A scored FAIL first names who failed (see Attribution): `retrieval` (the backend never "
    "delivered the required evidence) or `model` (it did, or there was none to deliver)."
)


def _grid_cell(item: Item, attribution: ReportAttribution | None) -> str:
    receipt, record = item
    canon = receipt.canonical
    cost = f"{canon.agentCalls} · {canon.modelVisibleUtf8Bytes}"
    if record.score.success:
        return f"pass · {cost}"
    verdict = "" if attribution is None else attribution.by_pair[pair_sort_key(canon)].verdict
    # An excluded pair already says so through its missed terms.
    cause = f"{verdict} " if verdict in ("retrieval", "model") else ""
    return f"FAIL {cause}{'; '.join(missed_terms(canon, record.score))} · {cost}"


def _merged(by_lifecycle: dict[str, str], lifecycles: list[str]) -> str:
    """One text when every lifecycle of the run gave it; else each lifecycle named."""
    texts = [by_lifecycle.get(lifecycle, "not run") for lifecycle in lifecycles]
    if len(set(texts)) == 1:
        return texts[0]
    return " / ".join(f"{lc}: {text}" for lc, text in zip(lifecycles, texts, strict=True))


def _grid_rows(
    report: BenchmarkReport, by_trial: bool, attribution: ReportAttribution | None
) -> tuple[list[str], list[tuple[str, ...]]]:
    """The adapters (columns) and one row per task (and trial)."""
    cells: dict[tuple[str, ...], dict[str, dict[str, str]]] = defaultdict(lambda: defaultdict(dict))
    for (adapter, lifecycle), items in cohorts(report).items():
        for item in items:
            canon = item[0].canonical
            row = (canon.taskId, canon.trialId) if by_trial else (canon.taskId,)
            cells[row][adapter][lifecycle] = _grid_cell(item, attribution)
    adapters = sorted({r.canonical.adapterId for r in report.receipts})
    lifecycles: list[str] = sorted({r.canonical.lifecycle for r in report.receipts})
    rows = [
        (*row, *(_merged(cells[row][adapter], lifecycles) for adapter in adapters))
        for row in sorted(cells)
    ]
    return adapters, rows


def _task_grid(report: BenchmarkReport, attribution: ReportAttribution | None) -> list[str]:
    if not report.receipts:
        return ["No pairs ran."]
    # A trial column only when there is more than one trial to tell apart.
    by_trial = len({r.canonical.trialId for r in report.receipts}) > 1
    adapters, rows = _grid_rows(report, by_trial, attribution)
    header = ("task", *(("trial",) if by_trial else ()), *adapters)
    legend = GRID_LEGEND if attribution is None else f"{GRID_LEGEND} {GRID_ATTRIBUTION_LEGEND}"
    return [legend, "", *_table(header, rows)]


# --- attribution ------------------------------------------------------------------------------


def _attribution_section(attribution: ReportAttribution | None) -> list[str]:
    """The per-cohort attribution table and the paired tests; nothing without fixture facts."""
    if attribution is None:
        return []
    tests = mcnemar_lines(attribution)
    return [
        "## Attribution",
        "",
        ATTRIBUTION_LEGEND,
        "",
        *_table(ATTRIBUTION_HEADER, attribution_rows(attribution)),
        "",
        *(
            [
                "Between adapters, over pairs matched by task, trial, lifecycle and seed "
                f"(two-sided exact McNemar, alpha {ALPHA:g}; trials of one task are not "
                "independent, so this overstates certainty when there are several):",
                "",
                *(f"- {line}" for line in tests),
            ]
            if tests
            else ["Between adapters: one adapter per lifecycle, nothing to pair."]
        ),
        "",
    ]


# --- timings ----------------------------------------------------------------------------------


def _ms(value: float) -> str:
    return _number(round(value, 3))


def _timing_cell(timings: list[Timing]) -> str:
    """``median / sum`` over the pairs that measured it, then how many did not and why."""
    values = [t.valueMs for t in timings if t.valueMs is not None]
    nulls = [t.unavailableReason for t in timings if t.valueMs is None]
    cell = f"{_ms(statistics.median(values))} / {_ms(sum(values))}" if values else "-"
    if nulls:
        reasons = sorted({r for r in nulls if r})
        cell += f" (null {len(nulls)}: {'; '.join(reasons)})"
    return cell


TIMING_FIELDS = ("startup", "modelLoad", "tool", "driver", "endToEnd")
TIMING_HEADER = ("adapter", "lifecycle", *(f"{name} ms (median / sum)" for name in TIMING_FIELDS))
TIMING_LEGEND = (
    "Each cell: median per pair / sum over the cohort, in ms; pairs that did not measure a "
    "phase are counted as null with their reason. Latency compares only within one machine."
)


def _timing_rows(report: BenchmarkReport) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for (adapter, lifecycle), items in cohorts(report).items():
        timings = [r.observations.timings for r, _ in items]
        cells = [_timing_cell([getattr(t, name) for t in timings]) for name in TIMING_FIELDS]
        rows.append((adapter, lifecycle, *cells))
    return rows


# --- replays ----------------------------------------------------------------------------------


def _replay_lines(replays: tuple[CapsuleReplay, ...]) -> list[str]:
    """One line when every replay agreed; each unequal one listed under it otherwise."""
    if not replays:
        return ["Capsule replays: none in this run."]
    unequal = [r for r in replays if r.first.sha256 != r.second.sha256]
    lines = [
        f"Capsule replays: {len(replays) - len(unequal)}/{len(replays)} equal "
        "(sha256 of the first and the second payload)."
    ]
    lines.extend(
        f"- NOT EQUAL {r.taskId} / {r.trialId} / {r.lifecycle}: "
        f"`{r.first.sha256[:16]}` vs `{r.second.sha256[:16]}`"
        for r in unequal
    )
    return lines


DEFAULT_PROMOTION_HEADING = "Capsule promotion"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def _is_loopback(base_url: str) -> bool:
    return urlsplit(base_url).hostname in LOOPBACK_HOSTS


def _endpoint_lines(report: BenchmarkReport) -> list[str]:
    """For an endpoint agent: which endpoint, and whether this run can be reproduced."""
    endpoint = report.environment.agentEndpoint
    if endpoint is None:
        return []
    models = ", ".join(endpoint.endpointModels) or "none listed"
    if endpoint.answers == "content-addressed cache":
        verdict = (
            "reproducible: every answer is in the content-addressed LLM cache; "
            "`--llm-cache DIR --llm-cache-mode reuse` reruns it with the endpoint down"
        )
    elif _is_loopback(endpoint.baseUrl):
        verdict = (
            "live, local endpoint: reproducible only as far as the server is deterministic; "
            "record it (`--llm-cache-mode record`) to make it a baseline"
        )
    else:
        verdict = (
            "NOT reproducible: live answers of a remote endpoint; record them "
            "(`--llm-cache DIR --llm-cache-mode record`) and reuse them"
        )
    return [
        f"- Agent endpoint: `{endpoint.model}` at {endpoint.baseUrl} (reports: {models})",
        f"- Reproducibility: {verdict}",
        f"- Step deadline: {endpoint.stepTimeoutS:g} s of wall clock per request, its "
        "retries and 429 waits included (the agent config's timeout_s); tool calls: the "
        "run's --timeout-ms",
    ]


def render_markdown(
    report: BenchmarkReport,
    promotion_heading: str = DEFAULT_PROMOTION_HEADING,
    facts: Mapping[str, TaskFacts] | None = None,
) -> str:
    """report.md. With ``facts`` of the report's fixture it adds the Attribution section and
    names each failed pair's cause in the task grid; without them both are left out."""
    env = report.environment
    attribution = report_attribution(report, facts)
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
        *_endpoint_lines(report),
        "",
        f"## {promotion_heading}",
        "",
        *_promotion_lines(report.promotion, promotion_heading),
        "",
        "## Cohort accounting",
        "",
        *_table(COHORT_HEADER, cohort_rows(report)),
        "",
        *_attribution_section(attribution),
        "## Tasks",
        "",
        *_task_grid(report, attribution),
        "",
        "## Lifecycle timings",
        "",
        TIMING_LEGEND,
        "",
        *_table(TIMING_HEADER, _timing_rows(report)),
        "",
        "## Capsule replays",
        "",
        *_replay_lines(report.capsuleReplays),
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
        *_mapping_lines(report),
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


# Preparation details in which a configured backend states how the kit read it.
MAPPING_DETAILS = ("scope", "corpus", "multiGet", "reads", "query", "paging")


def _mapping_lines(report: BenchmarkReport) -> list[str]:
    """How the kit read each configured server, where it says so (nothing for other adapters)."""
    found = [
        f"- {p.adapterId}: {key}: {p.observations.details[key]}"
        for p in report.preparations
        for key in MAPPING_DETAILS
        if key in p.observations.details
    ]
    return ["", "How the kit read configured servers:", "", *found] if found else []


def _median_ms(timings: list[Timing]) -> str:
    values = [t.valueMs for t in timings if t.valueMs is not None]
    if not values:
        return "null"
    return f"{round(statistics.median(values), 3)} ms"


def _beside_rows(report: BenchmarkReport, source: str) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for (adapter, lifecycle), items in cohorts(report).items():
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
