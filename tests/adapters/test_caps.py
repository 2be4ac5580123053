"""Cap-aware provenance (issue 3, seed 003): when ``maxBytes`` or a byte budget cuts a result, its
evidence names exactly the lines that were served; that provenance reaches the receipt, while the
agent-visible projection carries none of the evaluator-only fields.

Each test drives a real adapter session through the real trial loop with a scripted agent, then
reads both sides: the receipt the evaluator keeps and the history the agent was shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.base import AdapterSession
from agentic.adapters.indexed import INDEXED_CAPABILITIES
from agentic.contract.accounting import accounting_issues
from agentic.contract.canonical import ZERO_HASH, canonical_bytes, canonical_text
from agentic.contract.json_access import objects_at
from agentic.contract.receipt import (
    Call,
    Fingerprints,
    Timing,
    ToolEvidence,
    TrajectoryReceipt,
)
from agentic.contract.schemas import schema_errors
from agentic.contract.steps import VisibleCall
from agentic.contract.task import AgentTask
from agentic.runner.bounded import BoundedExecutor
from agentic.runner.receipts import PairTimings, build_receipt
from agentic.runner.trial import TrialBounds, run_trial
from agentic.tools import TOOL_NAMES, visible_bytes
from tests.support.receipts import identity
from tests.support.scripted import OneCallThenAbstain
from tests.support.sessions import capsule_session, lexical_session
from tests.support.snapshots import filler, make_task, snapshot_from

EVALUATOR_ONLY = {"backendSourceHash", "backendSpanHash", "backendHashUnavailableReason"}
VISIBLE_EVIDENCE_KEYS = {
    "uri",
    "sourceHash",
    "startLine",
    "endLine",
    "spanHash",
    "sourceHashProvenance",
    "spanHashProvenance",
    "text",
}
LINES = [
    "# Retention policy",
    "",
    "Retention period: 30 days for standard logs.",
    "Regulated logs: kept 7 years.",
    "",
    "Archived logs: kept 10 years in cold storage.",
]
SNAPSHOT = snapshot_from(
    {
        "c001/policy.md": "\n".join(LINES) + "\n",
        "c001/notes.md": "# Notes\n\nRetention period review is due in March.\n",
        **filler(3),
    }
)
POLICY_URI = "gno://c001/policy.md"
ZERO_FINGERPRINTS = Fingerprints(
    corpus=ZERO_HASH,
    prompt=ZERO_HASH,
    tools=ZERO_HASH,
    model=ZERO_HASH,
    runtime=ZERO_HASH,
    config=ZERO_HASH,
    index=ZERO_HASH,
)


@dataclass(frozen=True)
class Trial:
    receipt: TrajectoryReceipt
    shown: VisibleCall

    @property
    def call(self) -> Call:
        return self.receipt.canonical.calls[0]


def run_one_call(session: AdapterSession, task: AgentTask, tool: str, **arguments: Any) -> Trial:
    agent = OneCallThenAbstain(task, tool, arguments)
    executor = BoundedExecutor()
    try:
        outcome = run_trial(
            agent, session, task, TrialBounds(30.0, frozenset(TOOL_NAMES), executor)
        )
    finally:
        executor.close()
    assert outcome.failure is None, outcome.failure
    measured = Timing.measured(1.0)
    receipt = build_receipt(
        identity(task.taskId, "adapter", "trial-01", 0, "scripted"),
        outcome,
        capabilities=INDEXED_CAPABILITIES,
        fingerprints=ZERO_FINGERPRINTS,
        timings=PairTimings(measured, measured, measured, measured),
    )
    return Trial(receipt=receipt, shown=agent.seen[1][0])


def served_coordinates(evidence: tuple[ToolEvidence, ...]) -> list[tuple[str, int, int, str]]:
    return [(e.uri, e.startLine, e.endLine, e.text) for e in evidence]


def assert_receipt_keeps_provenance(trial: Trial) -> None:
    document = trial.receipt.to_json()
    assert schema_errors("trajectory-receipt", document) == []
    assert accounting_issues(trial.receipt.canonical, call_bytes=visible_bytes) == []
    for item in objects_at(document, "canonical", "calls", 0, "result", "evidence"):
        assert set(item) >= EVALUATOR_ONLY
        assert item["backendHashUnavailableReason"]


def assert_projection_is_clean(trial: Trial) -> None:
    shown = trial.shown.to_json()
    evidence = objects_at(shown, "result", "evidence")
    assert all(set(item) == VISIBLE_EVIDENCE_KEYS for item in evidence)
    assert not any(key in canonical_text(shown) for key in EVALUATOR_ONLY)
    assert trial.call.modelVisibleUtf8Bytes == len(canonical_bytes(shown["result"]))


@pytest.fixture
def lexical(tmp_path: Path) -> Iterator[tuple[AdapterSession, AgentTask]]:
    task = make_task(["c001"])
    with lexical_session(SNAPSHOT, tmp_path / "root", task) as session:
        yield session, task


# --- maxBytes -------------------------------------------------------------------------------------


def test_after_a_max_bytes_cut_the_evidence_names_exactly_the_served_lines(
    lexical: tuple[AdapterSession, AgentTask],
) -> None:
    session, task = lexical
    cap = len(LINES[0].encode()) + len(LINES[2].encode()) + 5  # line 4 would cross the cap

    trial = run_one_call(session, task, "multi_get", uris=[POLICY_URI], maxBytes=cap)

    # Only the kept evidence texts are content (the blank line 2 never is).
    assert trial.call.result.content == f"{LINES[0]}\n{LINES[2]}"
    assert served_coordinates(trial.call.result.evidence) == [
        (POLICY_URI, 1, 1, LINES[0]),
        (POLICY_URI, 3, 3, LINES[2]),
    ]


def test_after_a_max_bytes_cut_the_receipt_keeps_the_evaluator_provenance(
    lexical: tuple[AdapterSession, AgentTask],
) -> None:
    session, task = lexical

    trial = run_one_call(session, task, "multi_get", uris=[POLICY_URI], maxBytes=60)

    assert trial.call.result.evidence
    assert_receipt_keeps_provenance(trial)


def test_after_a_max_bytes_cut_the_agent_sees_the_same_lines_without_evaluator_fields(
    lexical: tuple[AdapterSession, AgentTask],
) -> None:
    session, task = lexical

    trial = run_one_call(session, task, "multi_get", uris=[POLICY_URI], maxBytes=60)

    assert_projection_is_clean(trial)
    shown = [(e.uri, e.startLine, e.endLine, e.text) for e in trial.shown.result.evidence]
    assert shown == served_coordinates(trial.call.result.evidence)


def test_a_get_line_range_is_a_cut_whose_evidence_is_exactly_that_range(
    lexical: tuple[AdapterSession, AgentTask],
) -> None:
    session, task = lexical

    trial = run_one_call(session, task, "get", uri=POLICY_URI, fromLine=3, lineCount=1)

    assert served_coordinates(trial.call.result.evidence) == [(POLICY_URI, 3, 3, LINES[2])]
    assert_receipt_keeps_provenance(trial)
    assert_projection_is_clean(trial)


# --- byte budget ----------------------------------------------------------------------------------


def tight_budget(tmp_path: Path) -> int:
    """One byte less than the uncut bundle needs, so selection must cut."""
    roomy = make_task(["c001"])
    with capsule_session(SNAPSHOT, tmp_path / "roomy", roomy) as session:
        result = session.call("search", {"query": "retention logs"}, timeout_s=30.0).result
    return visible_bytes(result) - 1


@pytest.fixture
def budget_cut(tmp_path: Path) -> Trial:
    task = make_task(["c001"], max_bytes=tight_budget(tmp_path))
    with capsule_session(SNAPSHOT, tmp_path / "tight", task) as session:
        return run_one_call(session, task, "search", query="retention logs")


def test_after_a_budget_cut_the_bundle_evidence_names_exactly_the_lines_in_the_payload(
    budget_cut: Trial,
) -> None:
    payload = json.loads(budget_cut.call.result.content)

    assert payload["t"] is True and dict(payload["o"][1])["global_budget"] >= 1
    in_payload = [(t[0], t[1], t[2], t[6]) for t in payload["e"]]
    assert in_payload == served_coordinates(budget_cut.call.result.evidence)
    assert in_payload


def test_after_a_budget_cut_the_receipt_keeps_the_evaluator_provenance(budget_cut: Trial) -> None:
    assert_receipt_keeps_provenance(budget_cut)


def test_after_a_budget_cut_the_agent_sees_only_the_payload(budget_cut: Trial) -> None:
    assert_projection_is_clean(budget_cut)
    assert budget_cut.shown.result.evidence == ()
    assert budget_cut.shown.result.content == budget_cut.call.result.content
    budget = json.loads(budget_cut.call.result.content)["b"][1]
    assert budget_cut.call.modelVisibleUtf8Bytes <= budget
