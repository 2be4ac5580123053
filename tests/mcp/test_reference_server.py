"""The mcp-reference adapter (a real ``agentic serve`` process) answers exactly as the in-process
lexical adapter does: same evidence, content, accounting and error codes."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.base import AdapterSession, CallOutcome, PreparedIndex
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.lexical import LexicalAdapter
from agentic.adapters.lexical_index import INDEX_FILE
from agentic.adapters.mcp import reference
from agentic.adapters.mcp.adapter import McpAdapter, McpSession
from agentic.contract.json_access import objects_at
from agentic.fixture.loader import Fixture
from agentic.server import app
from tests.support.mcp import TIMEOUT_S
from tests.support.processes import group_gone

pytestmark = pytest.mark.real_process

TASK_A, TASK_B = "t0000a01", "t0000b02"

DOC, DRAFT = "gno://c0b2/d001.md", "gno://c0b2/notes/d002.md"
# (task, tool, arguments)
CASES: list[tuple[str, str, dict[str, Any]]] = [
    (TASK_A, "search", {"query": "gateway deployment"}),
    (TASK_A, "search", {"query": "gateway", "collection": "c0a1", "limit": 1}),
    (TASK_B, "search", {"query": "launch", "minScore": 0.5}),
    (TASK_B, "search", {"query": "nothing-like-this"}),
    (TASK_B, "get", {"uri": DOC}),
    (TASK_B, "get", {"uri": DOC, "fromLine": 5, "lineCount": 2}),
    (TASK_B, "get", {"uri": DOC, "fromLine": 40}),
    (TASK_B, "multi_get", {"uris": [DRAFT, DOC]}),
    (TASK_B, "multi_get", {"uris": [DOC, DRAFT], "maxBytes": 70}),
]
# (tool, arguments, code), all on task B
FAILURES: list[tuple[str, dict[str, Any], str]] = [
    ("search", {"query": '"unbalanced'}, "invalid_search_query"),
    ("get", {"uri": "gno://c0b2/missing.md"}, "document_not_found"),
    ("get", {"uri": "gno://c0a1/d001.md"}, "task_scope_violation"),
    ("search", {"query": "launch", "collection": "c0a1"}, "task_scope_violation"),
]


@pytest.fixture(scope="module")
def lexical_session(
    tiny_fixture: Fixture, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AdapterSession]:
    adapter = LexicalAdapter(tiny_fixture.snapshot)
    prepared = adapter.prepare(
        tiny_fixture.snapshot, tmp_path_factory.mktemp("lex"), timeout_s=TIMEOUT_S
    )
    session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    yield session
    session.close()


@pytest.fixture(scope="module")
def mcp_session(
    reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> Iterator[McpSession]:
    session = reference_adapter.attach(reference_prepared, timeout_s=TIMEOUT_S)
    yield session
    session.close()
    assert session.pid is not None and group_gone(session.pid)


def _call(
    session: AdapterSession, tiny_fixture: Fixture, task_id: str, tool: str, args: dict[str, Any]
) -> CallOutcome:
    session.reset(tiny_fixture.task(task_id), readiness_probe=False, timeout_s=TIMEOUT_S)
    return session.call(tool, args, timeout_s=TIMEOUT_S)


def _observed(outcome: CallOutcome) -> dict[str, Any]:
    """Everything but the backend-hash reason, which names the backend."""
    result = outcome.result.to_json()
    for item in objects_at(result, "evidence"):
        del item["backendHashUnavailableReason"]
    return {"result": result, "backendInvocations": outcome.backend_invocations}


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case[1]}-{case[2]}")
def test_results_equal_the_in_process_lexical_adapter(
    tiny_fixture: Fixture,
    lexical_session: AdapterSession,
    mcp_session: McpSession,
    case: tuple[str, str, dict[str, Any]],
) -> None:
    task_id, tool, args = case
    expected = _call(lexical_session, tiny_fixture, task_id, tool, args)
    actual = _call(mcp_session, tiny_fixture, task_id, tool, args)
    assert _observed(actual) == _observed(expected)


def test_search_evidence_is_harness_observed_with_a_backend_hash_reason(
    tiny_fixture: Fixture, mcp_session: McpSession
) -> None:
    outcome = _call(mcp_session, tiny_fixture, TASK_A, "search", {"query": "INC-4827"})
    assert outcome.result.evidence
    for item in outcome.result.evidence:
        assert item.sourceHashProvenance == item.spanHashProvenance == "harness_observed"
        assert item.backendSourceHash is None and item.backendSpanHash is None
        assert item.backendHashUnavailableReason == reference.SEARCH_REASON


@pytest.mark.parametrize("case", FAILURES, ids=lambda case: case[2])
def test_failures_carry_the_lexical_adapters_codes(
    tiny_fixture: Fixture,
    lexical_session: AdapterSession,
    mcp_session: McpSession,
    case: tuple[str, dict[str, Any], str],
) -> None:
    tool, args, code = case
    for session in (lexical_session, mcp_session):
        with pytest.raises(AdapterCallError) as raised:
            _call(session, tiny_fixture, TASK_B, tool, args)
        assert (raised.value.code, raised.value.failure_class) == (code, "product_error")


def test_index_fingerprint_equals_the_lexical_index(
    tiny_fixture: Fixture, reference_prepared: PreparedIndex, tmp_path: Path
) -> None:
    lexical = LexicalAdapter(tiny_fixture.snapshot).prepare(
        tiny_fixture.snapshot, tmp_path, timeout_s=TIMEOUT_S
    )
    assert reference_prepared.index_fingerprint == lexical.index_fingerprint
    assert reference_prepared.corpus_fingerprint == tiny_fixture.snapshot.fingerprint


def test_attach_refuses_an_index_rebuilt_after_preparation(
    reference_adapter: McpAdapter, reference_prepared: PreparedIndex, tmp_path: Path
) -> None:
    root = tmp_path / "copy"
    shutil.copytree(reference_prepared.root, root)
    with sqlite3.connect(root / INDEX_FILE) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'indexFingerprint'", ("0" * 64,))
    moved = PreparedIndex(**{**reference_prepared.__dict__, "root": root})
    with pytest.raises(AdapterError) as raised:
        reference_adapter.attach(moved, timeout_s=TIMEOUT_S)
    assert (raised.value.code, raised.value.failure_class) == (
        "index_fingerprint_changed",
        "harness_error",
    )


def test_profile_expects_the_name_the_server_reports() -> None:
    assert reference.SERVER_NAME == app.SERVER_NAME
