"""Attribution as people read it in report.md and report.html, with intervals and McNemar tests.
Per adapter and lifecycle it shows how often the backend delivered the required evidence and
how often the pair succeeded, each with its 95% Wilson interval. Per failed pair it says whether
retrieval or the model failed. Between adapters it gives the exact McNemar test on both. The
per-pair facts and counts are ``scoring/attribution.py``'s; this module adds the statistics and
the text. Derived, never canonical.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from agentic.contract.report import BenchmarkReport, pair_sort_key
from agentic.report.stats import p_text, paired_difference, wilson_interval
from agentic.scoring.attribution import (
    AttributedPair,
    Attribution,
    CohortAttribution,
    Discordance,
    Outcome,
    attributed_pair,
    discordance,
    report_attributions,
    summarize,
)
from agentic.scoring.task_facts import TaskFacts

Cohort = tuple[str, str]  # (adapter, lifecycle), as report.md groups its cohorts
PairName = tuple[str, ...]  # pair_sort_key

ATTRIBUTION_LEGEND = (
    "Per pair: was the required evidence delivered to the agent (every coordinate of every "
    "required claim's requiredEvidence among the delivered results), and did the pair succeed. "
    "A failed pair is retrieval when the backend never delivered that evidence, model when "
    "it did (or the task had none to deliver). Counts are over scored pairs; evidence over "
    "answer-bearing pairs (not an abstention, something required); intervals are 95% Wilson."
)
ATTRIBUTION_HEADER = (
    "adapter",
    "lifecycle",
    "scored",
    "answer-bearing",
    "evidence delivered [95% Wilson]",
    "success [95% Wilson]",
    "success given delivered",
    "retrieval",
    "model",
)
OUTCOME_NAMES: Mapping[Outcome, str] = {
    "evidenceDelivered": "evidence delivered",
    "success": "success",
}


@dataclass(frozen=True)
class ReportAttribution:
    """A report's pairs with their attribution: by pair (``pair_sort_key``), and grouped by
    cohort in (adapter, lifecycle) order."""

    by_pair: Mapping[PairName, Attribution]
    cohorts: Mapping[Cohort, Sequence[AttributedPair]]


def _grouped(report: BenchmarkReport, attributions: Sequence[Attribution]) -> ReportAttribution:
    by_pair: dict[PairName, Attribution] = {}
    groups: dict[Cohort, list[AttributedPair]] = defaultdict(list)
    for receipt, record, attribution in zip(
        report.receipts, report.scores, attributions, strict=True
    ):
        canon = receipt.canonical
        by_pair[pair_sort_key(canon)] = attribution
        groups[(canon.adapterId, canon.lifecycle)].append(
            attributed_pair(canon, record.score, attribution)
        )
    return ReportAttribution(by_pair, dict(sorted(groups.items())))


def report_attribution(
    report: BenchmarkReport, facts: Mapping[str, TaskFacts] | None
) -> ReportAttribution | None:
    """The report's attribution, or None without facts of its fixture (the section is left out)."""
    if not facts:
        return None
    attributions = report_attributions(report, facts)
    return None if attributions is None else _grouped(report, attributions)


def count_rate(k: int, n: int) -> str:
    """``k/n rate [low, high]``, or ``-`` over no pairs."""
    if n == 0:
        return "-"
    return f"{k}/{n} {k / n:.3f} {wilson_interval(k, n).text()}"


def _row(cohort: Cohort, counts: CohortAttribution) -> tuple[str, ...]:
    given = f"{counts.delivered_successes}/{counts.delivered}" if counts.delivered else "-"
    return (
        *cohort,
        str(counts.scored),
        str(counts.answer_bearing),
        count_rate(counts.delivered, counts.answer_bearing),
        count_rate(counts.successes, counts.scored),
        given,
        str(counts.retrieval),
        str(counts.model),
    )


def attribution_rows(attribution: ReportAttribution) -> list[tuple[str, ...]]:
    return [_row(cohort, summarize(pairs)) for cohort, pairs in attribution.cohorts.items()]


def discordance_text(outcome: Outcome, first: str, second: str, found: Discordance) -> str:
    name = OUTCOME_NAMES[outcome]
    if found.matched == 0:
        return f"{name}: no matched pairs"
    # The exact test is symmetric in the two counts; which one is "worse" does not matter.
    paired = paired_difference(found.first_only, found.second_only)
    noise = "beyond noise" if paired.beyond_noise else "within noise"
    return (
        f"{name}: {found.matched} matched pairs, {found.first_only} only {first}, "
        f"{found.second_only} only {second}, exact McNemar p={p_text(paired.p_value)}: {noise}"
    )


def mcnemar_lines(attribution: ReportAttribution) -> list[str]:
    """One line per lifecycle and pair of adapters: both outcomes over their matched pairs."""
    by_lifecycle: dict[str, dict[str, Sequence[AttributedPair]]] = defaultdict(dict)
    for (adapter, lifecycle), pairs in attribution.cohorts.items():
        by_lifecycle[lifecycle][adapter] = pairs
    lines = []
    for lifecycle, adapters in sorted(by_lifecycle.items()):
        for first, second in combinations(sorted(adapters), 2):
            texts = [
                discordance_text(
                    outcome, first, second, discordance(adapters[first], adapters[second], outcome)
                )
                for outcome in OUTCOME_NAMES
            ]
            lines.append(f"{lifecycle}, {first} vs {second}: {'; '.join(texts)}.")
    return lines
