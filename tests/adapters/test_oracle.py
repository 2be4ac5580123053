"""The evaluation-only ``oracle`` ceiling: its search serves exactly the oracle's required lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic.adapters.errors import AdapterError
from agentic.adapters.oracle import ORACLE_HASH_REASON, OracleAdapter
from agentic.contract.oracle import HiddenOracle
from tests.support.sessions import call, open_session
from tests.support.snapshots import (
    TASK_ID,
    make_oracle,
    make_task,
    standard_snapshot,
)

SNAPSHOT = standard_snapshot()
TASK = make_task(["c001", "c002"])
POLICY = "gno://c001/policy.md"
GLOSSARY = "gno://c002/glossary.md"


def search_with(oracle: HiddenOracle, tmp_path: Path) -> tuple[str, list[tuple[str, int, int]]]:
    adapter = OracleAdapter(SNAPSHOT, {TASK_ID: oracle})
    with open_session(adapter, SNAPSHOT, tmp_path / "root", TASK) as session:
        result = call(session, "search", query="anything at all").result
    return result.content, [(e.uri, e.startLine, e.endLine) for e in result.evidence]


def test_search_serves_the_required_spans_in_claim_order_once_each(tmp_path: Path) -> None:
    oracle = make_oracle(SNAPSHOT, [(GLOSSARY, 3, 3), (POLICY, 3, 4), (GLOSSARY, 3, 3)])

    content, coordinates = search_with(oracle, tmp_path)

    assert coordinates == [(GLOSSARY, 3, 3), (POLICY, 3, 4)]
    assert content == (
        "SLA: service level agreement.\n"
        "Retention period: 30 days for standard logs.\nRegulated logs: kept 7 years."
    )


def test_oracle_evidence_is_harness_observed_with_a_reason_for_no_backend_hashes(
    tmp_path: Path,
) -> None:
    adapter = OracleAdapter(SNAPSHOT, {TASK_ID: make_oracle(SNAPSHOT, [(POLICY, 3, 3)])})
    with open_session(adapter, SNAPSHOT, tmp_path / "root", TASK) as session:
        outcome = call(session, "search", query="x")

    (item,) = outcome.result.evidence
    assert (outcome.result.resultRole, outcome.backend_invocations) == ("source", 1)
    assert item.backendHashUnavailableReason == ORACLE_HASH_REASON
    assert item.sourceHashProvenance == item.spanHashProvenance == "harness_observed"


def test_an_abstention_task_gets_an_ok_empty_result(tmp_path: Path) -> None:
    assert search_with(make_oracle(SNAPSHOT, []), tmp_path) == ("", [])


def test_a_task_without_an_oracle_is_a_harness_error(tmp_path: Path) -> None:
    adapter = OracleAdapter(SNAPSHOT, {})
    with (
        open_session(adapter, SNAPSHOT, tmp_path / "root", TASK) as session,
        pytest.raises(AdapterError) as raised,
    ):
        call(session, "search", query="x")

    assert (raised.value.code, raised.value.failure_class) == ("oracle_not_found", "harness_error")


def test_an_oracle_span_that_does_not_match_the_snapshot_is_refused(tmp_path: Path) -> None:
    good = make_oracle(SNAPSHOT, [(POLICY, 3, 3)])
    claim = good.claims[0]
    shifted = claim.requiredEvidence[0].model_copy(update={"startLine": 4, "endLine": 4})
    tampered = good.model_copy(
        update={"claims": (claim.model_copy(update={"requiredEvidence": (shifted,)}),)}
    )

    with pytest.raises(AdapterError) as raised:
        search_with(tampered, tmp_path)

    assert (raised.value.code, raised.value.failure_class) == (
        "invalid_oracle_evidence",
        "harness_error",
    )
