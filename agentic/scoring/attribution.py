"""Attribution: did a failed pair fail in retrieval or in the model?
Retrieval failed when the backend never delivered the evidence the answer needs. The model
failed when the agent answered wrong given what it saw.

Definitions (docs/reports.md, "Attribution: retrieval or the model"):

- A task is *answer-bearing* when its oracle does not expect an abstention
  (``completion.expectAbstention`` false) and at least one claim the task marks ``required`` has
  non-empty ``requiredEvidence``.
- ``evidenceDelivered`` of a pair on an answer-bearing task is true iff, for every required claim,
  every coordinate of its ``requiredEvidence`` (all seven fields, ``evidence.evidence_key``, so a
  citation whose hash the backend only asserted is not the observed line) is among the evidence
  of the results delivered to the agent (``evidence.delivered_evidence``). On any other task it
  is null: there is nothing to deliver. It is a fact about the receipt, so an excluded pair has
  one too; the summaries below count scored pairs only.
- The verdict of a pair: ``excluded`` (its score is not scored: a harness error), ``success``
  (``success == 1``), ``retrieval`` (failed, and ``evidenceDelivered`` is false), ``model``
  (failed though the evidence was delivered, or failed on a task with no evidence to deliver).

Everything here is derived from the receipt, the score and plain ``TaskFacts``; nothing is
canonical, and nothing here changes a score. The statistics over these counts (Wilson intervals,
the exact McNemar p-value) are the report stage's (``report/stats.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import BenchmarkReport, TaskScore
from agentic.contract.strict_json import JsonObject
from agentic.scoring.evidence import delivered_evidence, keys_of
from agentic.scoring.task_facts import TaskFacts

Verdict = Literal["excluded", "success", "retrieval", "model"]
# A pair's match across adapters: (taskId, trialId, lifecycle, seed).
PairKey = tuple[str, str, str, int | None]
Outcome = Literal["success", "evidenceDelivered"]


@dataclass(frozen=True)
class Attribution:
    """One pair's attribution: ``evidence_delivered`` is None on a task with nothing to deliver."""

    evidence_delivered: bool | None
    verdict: Verdict

    def to_json(self) -> JsonObject:
        return {"evidenceDelivered": self.evidence_delivered, "verdict": self.verdict}


def answer_bearing(facts: TaskFacts) -> bool:
    return not facts.expect_abstention and any(c.evidence for c in facts.required_claims)


def evidence_delivered(receipt: CanonicalReceipt, facts: TaskFacts) -> bool | None:
    """Whether every required coordinate reached the agent; None when the task has none."""
    if not answer_bearing(facts):
        return None
    delivered = keys_of(delivered_evidence(receipt))
    return all(claim.evidence <= delivered for claim in facts.required_claims)


def verdict(score: TaskScore, delivered: bool | None) -> Verdict:
    if not score.scored:
        return "excluded"
    if score.success == 1:
        return "success"
    # Only a definite "not delivered" blames the backend: a failure on a task with nothing to
    # deliver (an abstention task, say) is the agent's.
    return "retrieval" if delivered is False else "model"


def attribute(receipt: CanonicalReceipt, score: TaskScore, facts: TaskFacts) -> Attribution:
    delivered = evidence_delivered(receipt, facts)
    return Attribution(delivered, verdict(score, delivered))


def report_attributions(
    report: BenchmarkReport, facts: Mapping[str, TaskFacts]
) -> tuple[Attribution, ...] | None:
    """Each pair's attribution, in the report's receipt order; None when ``facts`` lacks a task
    of the report (facts of another fixture must not be read as this one's)."""
    if any(r.canonical.taskId not in facts for r in report.receipts):
        return None
    return tuple(
        attribute(r.canonical, s.score, facts[r.canonical.taskId])
        for r, s in zip(report.receipts, report.scores, strict=True)
    )


# --- per adapter ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttributedPair:
    key: PairKey
    score: TaskScore
    attribution: Attribution


def attributed_pair(
    receipt: CanonicalReceipt, score: TaskScore, attribution: Attribution
) -> AttributedPair:
    key = (receipt.taskId, receipt.trialId, receipt.lifecycle, receipt.seed)
    return AttributedPair(key, score, attribution)


@dataclass(frozen=True)
class CohortAttribution:
    """Counts over one cohort's scored pairs (excluded pairs are left out of every count)."""

    scored: int
    answer_bearing: int  # scored pairs whose evidenceDelivered is not null
    delivered: int  # of those, evidence delivered
    successes: int  # of the scored pairs
    delivered_successes: int  # successes among the pairs whose evidence was delivered
    retrieval: int
    model: int


def summarize(pairs: Iterable[AttributedPair]) -> CohortAttribution:
    scored = [p for p in pairs if p.score.scored]
    bearing = [p for p in scored if p.attribution.evidence_delivered is not None]
    delivered = [p for p in bearing if p.attribution.evidence_delivered]
    verdicts = [p.attribution.verdict for p in scored]
    return CohortAttribution(
        scored=len(scored),
        answer_bearing=len(bearing),
        delivered=len(delivered),
        successes=sum(p.score.success for p in scored),
        delivered_successes=sum(p.score.success for p in delivered),
        retrieval=verdicts.count("retrieval"),
        model=verdicts.count("model"),
    )


@dataclass(frozen=True)
class Discordance:
    """Two adapters over the pairs both have (matched by task, trial, lifecycle and seed):
    how many matched, and how many held only for the first, only for the second."""

    matched: int
    first_only: int
    second_only: int


def _outcomes(pairs: Sequence[AttributedPair], outcome: Outcome) -> dict[PairKey, bool]:
    """The pair's outcome where it has one: success over scored pairs, evidence delivered over
    scored answer-bearing pairs."""
    found: dict[PairKey, bool] = {}
    for pair in pairs:
        if not pair.score.scored:
            continue
        if outcome == "success":
            found[pair.key] = pair.score.success == 1
        elif pair.attribution.evidence_delivered is not None:
            found[pair.key] = pair.attribution.evidence_delivered
    return found


def discordance(
    first: Sequence[AttributedPair], second: Sequence[AttributedPair], outcome: Outcome
) -> Discordance:
    a, b = _outcomes(first, outcome), _outcomes(second, outcome)
    both = a.keys() & b.keys()
    return Discordance(
        matched=len(both),
        first_only=sum(1 for key in both if a[key] and not b[key]),
        second_only=sum(1 for key in both if b[key] and not a[key]),
    )
