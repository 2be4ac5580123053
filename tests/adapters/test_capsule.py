"""The capsule adapter (contract v1, 5.2): one search returns one ``evidence_bundle`` whose
``gno-context-agent-v1`` payload carries the selected lines within the task's byte budget."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.base import CallOutcome
from agentic.adapters.capsule import CONFIG, CapsuleAdapter
from agentic.adapters.capsule_plan import plan_query
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.reads import READ_HASH_REASON
from agentic.contract.canonical import canonical_bytes, canonical_text, fingerprint
from agentic.contract.receipt import ToolResult
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.tools import project_result, visible_bytes
from tests.support.sessions import TIMEOUT_S, call, capsule_session
from tests.support.snapshots import TASK_ID, filler, make_task, snapshot_from

SNAPSHOT = snapshot_from(
    {
        "c001/policy.md": (
            "# Retention policy\n\n"
            "Retention period: 30 days for standard logs.\n"
            "Regulated logs: kept 7 years.\n\n"
            "## Scope\nApplies to every service.\n"
        ),
        "c001/archive.md": "# Archive\n\nArchived logs keep their retention period.\n",
        "c002/glossary.md": "# Glossary\n\nSLA: service level agreement.\n",
        **filler(3),
    }
)
TASK = make_task(["c001", "c002"], claim_keys=("retentionPeriod",))
QUERY = "retention period logs"


def bundle(
    tmp_path: Path, task: AgentTask = TASK, snapshot: CorpusSnapshot = SNAPSHOT, **arguments: Any
) -> CallOutcome:
    with capsule_session(snapshot, tmp_path / "root", task) as session:
        return call(session, "search", **{"query": QUERY, **arguments})


def payload(result: ToolResult) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(result.content)
    return value


def selected_lines(result: ToolResult) -> list[tuple[str, int]]:
    return [(e.uri, e.startLine) for e in result.evidence]


def test_one_search_returns_one_evidence_bundle(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert (result.status, result.resultRole, result.errorCode) == ("ok", "evidence_bundle", None)
    assert result.evidence


def test_the_payload_is_canonical_json_with_the_projection_keys(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert result.content == canonical_text(payload(result))
    assert list(payload(result)) == ["b", "c", "e", "g", "id", "o", "r", "t", "trust", "v"]
    assert payload(result)["v"] == "gno-context-agent-v1"
    assert payload(result)["trust"] == "untrusted_data"
    assert payload(result)["g"] == ["untrusted_data", "hard_delimited", []]


def test_the_payload_e_tuples_are_exactly_the_bundle_evidence(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert payload(result)["e"] == [
        [
            e.uri,
            e.startLine,
            e.endLine,
            e.sourceHash,
            e.sourceHash,
            e.spanHash,
            e.text,
            None,
            None,
            [],
            "unavailable",
        ]
        for e in result.evidence
    ]
    assert {e.backendHashUnavailableReason for e in result.evidence} == {READ_HASH_REASON}


def test_the_payload_id_hashes_task_query_and_span_hashes(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert payload(result)["id"] == fingerprint(
        {"taskId": TASK_ID, "query": QUERY, "evidence": [e.spanHash for e in result.evidence]}
    )


def test_the_budget_section_derives_from_the_task_byte_budget(tmp_path: Path) -> None:
    task = make_task(["c001", "c002"], max_bytes=9001)

    result = bundle(tmp_path, task).result

    assert payload(result)["b"] == [2250, 9001, None, None, "model_visible_utf8", None]


def test_the_retrieval_section_names_index_config_and_retrieval_fingerprints(
    tmp_path: Path,
) -> None:
    adapter = CapsuleAdapter(SNAPSHOT)
    prepared = adapter.prepare(SNAPSHOT, tmp_path / "root", timeout_s=TIMEOUT_S)
    session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    try:
        session.reset(TASK, readiness_probe=False, timeout_s=TIMEOUT_S)
        outcome = call(session, "search", query=QUERY)
    finally:
        session.close()
    plan = plan_query(QUERY, ("retentionPeriod",))
    uris = {e.uri for e in outcome.result.evidence}
    stages = {
        "queryPlanning": 1,
        "lexicalSearch": len(plan.variants) * 2,
        "sourceRead": 2 * 2,  # policy.md and archive.md were hits
        "selection": 1,
        "finalization": 1,
    }

    assert uris == {"gno://c001/policy.md", "gno://c001/archive.md"}
    assert payload(outcome.result)["r"] == [
        "fast",
        prepared.index_fingerprint,
        fingerprint(CONFIG),
        fingerprint({"variants": list(plan.variants), "stages": stages}),
        None,
        None,
        ["lexicalSearch"],
        [],
    ]
    assert outcome.backend_invocations == sum(stages.values())


def test_coverage_lists_covered_facets_and_those_not_found(tmp_path: Path) -> None:
    task = make_task(["c001", "c002"], claim_keys=("retentionPeriod", "ownerName"))

    result = bundle(tmp_path, task).result

    assert payload(result)["c"] == [
        ["logs", "period", "retention"],
        [["name", "facet_not_found"], ["owner", "facet_not_found"]],
    ]


def test_omissions_are_counted_by_reason_and_total(tmp_path: Path) -> None:
    result = bundle(tmp_path).result
    total, counts = payload(result)["o"]

    assert total == sum(count for _, count in counts) > 0
    assert all(count > 0 for _, count in counts)
    order = ["duplicate", "overlap", "global_budget", "redundant_coverage"]
    assert [reason for reason, _ in counts] == [r for r in order if r in dict(counts)]


def test_every_non_blank_line_of_a_hit_is_either_selected_or_omitted(tmp_path: Path) -> None:
    result = bundle(tmp_path).result
    total, _ = payload(result)["o"]
    hits = [SNAPSHOT.by_uri("gno://c001/policy.md"), SNAPSHOT.by_uri("gno://c001/archive.md")]
    non_blank = sum(1 for file in hits if file for line in file.lines if line.strip())

    assert len(result.evidence) + total == non_blank


def test_selection_prefers_lines_that_cover_the_most_facets(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert selected_lines(result) == [("gno://c001/archive.md", 3), ("gno://c001/policy.md", 3)]


def test_within_the_budget_nothing_is_cut(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert payload(result)["t"] is False
    assert "global_budget" not in dict(payload(result)["o"][1])


def test_a_tight_budget_omits_lines_as_global_budget_and_stays_within_it(tmp_path: Path) -> None:
    roomy = bundle(tmp_path / "roomy").result
    budget = visible_bytes(roomy) - 1
    task = make_task(["c001", "c002"], max_bytes=budget)

    result = bundle(tmp_path / "tight", task).result

    assert visible_bytes(result) <= budget
    assert payload(result)["t"] is True
    assert dict(payload(result)["o"][1])["global_budget"] >= 1
    assert len(result.evidence) < len(roomy.evidence)


def test_a_budget_too_small_for_any_bundle_fails_the_call(tmp_path: Path) -> None:
    task = make_task(["c001", "c002"], max_bytes=200)

    with pytest.raises(AdapterCallError) as raised:
        bundle(tmp_path, task)

    assert (raised.value.code, raised.value.failure_class) == (
        "capsule_budget_exceeded",
        "product_error",
    )


def test_a_one_call_task_keeps_only_the_lines_with_the_most_facets(tmp_path: Path) -> None:
    task = make_task(["c001", "c002"], max_calls=1)
    snapshot = snapshot_from(
        {
            "c001/a.md": "# A\n\nRetention period logs: 30 days.\nRetention only.\n",
            "c001/b.md": "# B\n\nRetention period logs: 45 days.\n",
            **filler(3),
        }
    )

    result = bundle(tmp_path, task, snapshot).result

    assert selected_lines(result) == [("gno://c001/a.md", 3), ("gno://c001/b.md", 3)]


def test_a_named_collection_limits_the_bundle_to_it(tmp_path: Path) -> None:
    result = bundle(tmp_path, query="service level agreement", collection="c002").result

    assert {e.uri for e in result.evidence} == {"gno://c002/glossary.md"}


def test_a_search_that_finds_nothing_is_an_empty_bundle(tmp_path: Path) -> None:
    task = make_task(["c002"], claim_keys=("zzTop",))

    result = bundle(tmp_path, task, query="nonexistentterm").result

    assert result.evidence == ()
    assert payload(result)["e"] == [] and payload(result)["o"] == [0, []]


def test_the_agent_sees_the_bundle_once_its_evidence_list_is_empty(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    projected = project_result(result)

    assert projected.evidence == ()
    assert visible_bytes(result) == len(
        canonical_bytes(
            {
                "content": result.content,
                "errorCode": None,
                "evidence": [],
                "resultRole": "evidence_bundle",
                "status": "ok",
            }
        )
    )


def test_two_fresh_preparations_give_byte_identical_bundles(tmp_path: Path) -> None:
    first = bundle(tmp_path / "first").result
    second = bundle(tmp_path / "second").result

    assert canonical_bytes(first.to_json()) == canonical_bytes(second.to_json())
