"""Failures the harness causes: pairs of a real-model lane that ended on the agent's mechanics.
Such a pair failed neither on retrieval nor on the model's judgement.

The openai-chat agent's rendered protocol (``agents/rendered_chat.py``) leaves the model only
the choices that are its own: each turn's grammar admits only a tool the task allows, the task's
collections, uris results have shown and lines the model was shown, and the final answer as
claims and gaps; the context policy (``agents/context_policy.py``) sizes each read to the task's
byte budget and each result to the model's context. A pair that ends on one of these failure
codes is therefore a failure of those mechanics:

- ``agent_context_exceeded``, ``context_byte_budget_exceeded``: the sizing let a request outgrow
  the model's context, or a result outgrow the task's byte budget;
- ``malformed_agent_json``, ``invalid_agent_step``, ``llm_grammar_ignored``: a reply the grammar
  should have shaped was not a step (or the endpoint ignored the grammar);
- ``task_scope_violation``, ``document_not_found``, ``disallowed_tool``: a call reached a
  collection, a uri or a tool the grammar should not have admitted;
- an invalid final envelope: the receipt's failure code ``invalid_final_envelope`` (the runner
  refused the agent's final step), or an ``invalid_final_envelope:`` entry in the score's
  ``invalidOutputs`` of a pair no other failure ended (the scorer refused the envelope). The
  scorer writes that entry for every pair that ended without an envelope, whatever ended it
  (an ``agent_timeout`` is not the harness's), so the entry alone does not count.

The real-model issue's target is at most ``TARGET_SHARE`` (10%) of a lane's pairs. Pure
functions of a report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from agentic.contract.code_names import ErrorCodeName
from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import BenchmarkReport, TaskScore

TARGET_SHARE = 0.10
INVALID_ENVELOPE: ErrorCodeName = "invalid_final_envelope"
HARNESS_CODES: frozenset[ErrorCodeName] = frozenset(
    {
        "agent_context_exceeded",
        "context_byte_budget_exceeded",
        "malformed_agent_json",
        "llm_grammar_ignored",
        "task_scope_violation",
        "document_not_found",
        "invalid_agent_step",
        "disallowed_tool",
    }
)


@dataclass(frozen=True)
class HarnessFailures:
    """Of a lane's ``pairs``, those the harness failed, counted by cause (most first)."""

    pairs: int
    causes: tuple[tuple[str, int], ...]

    @property
    def count(self) -> int:
        return sum(count for _, count in self.causes)

    @property
    def share(self) -> float:
        return self.count / self.pairs if self.pairs else 0.0

    @property
    def within_target(self) -> bool:
        return self.count <= TARGET_SHARE * self.pairs


def harness_cause(receipt: CanonicalReceipt, score: TaskScore) -> str | None:
    """The code by which the harness failed this pair; None when it did not."""
    code = receipt.failure.code
    if code in HARNESS_CODES:
        return code
    refused = any(entry.startswith(f"{INVALID_ENVELOPE}:") for entry in score.invalidOutputs)
    if code == INVALID_ENVELOPE or (code is None and refused):
        return INVALID_ENVELOPE
    return None


def count_harness_failures(pairs: Iterable[tuple[CanonicalReceipt, TaskScore]]) -> HarnessFailures:
    """The pairs (receipt and score) the harness failed, by cause."""
    total = 0
    causes: Counter[str] = Counter()
    for receipt, score in pairs:
        total += 1
        cause = harness_cause(receipt, score)
        if cause is not None:
            causes[cause] += 1
    ordered = sorted(causes.items(), key=lambda item: (-item[1], item[0]))
    return HarnessFailures(total, tuple(ordered))


def report_harness_failures(report: BenchmarkReport) -> HarnessFailures:
    """Every pair of the report (scored or excluded), as ``count_harness_failures`` counts them."""
    return count_harness_failures(
        (receipt.canonical, record.score)
        for receipt, record in zip(report.receipts, report.scores, strict=True)
    )
