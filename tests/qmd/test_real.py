"""The real qmd (npm ``@tobilu/qmd`` 2.8.3 on Node 22) behind the ``qmd-lex`` profile, on the tiny
fixture. Skipped only when the pinned install is absent; CI runs ``nox -s qmd-setup`` first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic.adapters.base import PreparedIndex
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp.adapter import McpAdapter, McpSession
from agentic.adapters.mcp.client import ConnectionLimits, McpClientError, McpConnection
from agentic.adapters.mcp.process import ChildSpec
from agentic.adapters.qmd import native
from agentic.adapters.qmd.lockfile import load_qmd_lock
from agentic.adapters.qmd.profiles import qmd_lex_profile
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonArray, JsonObject
from agentic.fixture.loader import Fixture
from tests.support.processes import group_gone
from tests.support.qmd import TASK_A, TASK_B, TIMEOUT_S, requires_qmd

pytestmark = [pytest.mark.qmd, pytest.mark.real_process, requires_qmd]

DOC_A = "gno://c0a1/d001.md"
HANG_TIMEOUT_S = 3.0


@pytest.fixture(scope="module")
def adapter(tiny_fixture: Fixture) -> McpAdapter:
    return McpAdapter(qmd_lex_profile(), tiny_fixture.snapshot)


@pytest.fixture(scope="module")
def prepared(
    adapter: McpAdapter, tiny_fixture: Fixture, tmp_path_factory: pytest.TempPathFactory
) -> PreparedIndex:
    return adapter.prepare(
        tiny_fixture.snapshot, tmp_path_factory.mktemp("qmd-lex"), timeout_s=TIMEOUT_S
    )


@pytest.fixture
def session_a(
    adapter: McpAdapter, prepared: PreparedIndex, tiny_fixture: Fixture
) -> Iterator[McpSession]:
    session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    session.reset(tiny_fixture.task(TASK_A), readiness_probe=False, timeout_s=TIMEOUT_S)
    yield session
    session.close()


def test_preparation_is_repeatable_and_bound_to_the_installed_qmd(
    adapter: McpAdapter, prepared: PreparedIndex, tiny_fixture: Fixture, tmp_path: Path
) -> None:
    again = adapter.prepare(tiny_fixture.snapshot, tmp_path / "again", timeout_s=TIMEOUT_S)
    assert again.index_fingerprint == prepared.index_fingerprint
    assert prepared.details["qmdVersion"] == "2.8.3"
    assert prepared.details["serverVersion"] == "2.8.3"


def test_a_lexical_search_returns_the_snapshot_line_as_evidence(session_a: McpSession) -> None:
    outcome = session_a.call(
        "search", {"query": "incident of the north gateway"}, timeout_s=TIMEOUT_S
    )
    lines = {(e.uri, e.startLine, e.text) for e in outcome.result.evidence}
    assert (DOC_A, 3, "Incident: INC-4827") in lines
    assert outcome.result.resultRole == "candidates"


def test_a_search_in_another_tasks_collection_is_refused(session_a: McpSession) -> None:
    with pytest.raises(AdapterCallError) as caught:
        session_a.call("search", {"query": "launch", "collection": "c0b2"}, timeout_s=TIMEOUT_S)
    assert caught.value.code == "task_scope_violation"


def test_a_get_serves_exact_lines_without_line_numbers(session_a: McpSession) -> None:
    arguments: JsonObject = {"uri": DOC_A, "fromLine": 3, "lineCount": 1}
    outcome = session_a.call("get", arguments, timeout_s=TIMEOUT_S)
    assert outcome.result.content == "Incident: INC-4827"
    assert [(e.startLine, e.text) for e in outcome.result.evidence] == [(3, "Incident: INC-4827")]


def test_multi_get_serves_documents_in_request_order(session_a: McpSession) -> None:
    uris: JsonArray = ["gno://c0a1/d002.md", DOC_A]
    outcome = session_a.call("multi_get", {"uris": uris}, timeout_s=TIMEOUT_S)
    first_seen = list(dict.fromkeys(e.uri for e in outcome.result.evidence))
    assert first_seen == uris
    assert outcome.result.content.startswith("# South gateway deployment review\n")


def test_a_get_of_an_absent_document_is_document_not_found(session_a: McpSession) -> None:
    with pytest.raises(AdapterCallError) as caught:
        session_a.call("get", {"uri": "gno://c0a1/absent.md"}, timeout_s=TIMEOUT_S)
    assert caught.value.code == "document_not_found"


def test_each_attach_is_a_fresh_process_that_leaves_the_prepared_index_untouched(
    adapter: McpAdapter, prepared: PreparedIndex, tiny_fixture: Fixture
) -> None:
    pids = []
    for task_id in (TASK_A, TASK_B):
        session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
        try:
            session.reset(tiny_fixture.task(task_id), readiness_probe=True, timeout_s=TIMEOUT_S)
            session.call("search", {"query": "plan"}, timeout_s=TIMEOUT_S)
            pids.append(session.pid)
        finally:
            session.close()
    assert pids[0] != pids[1]
    assert all(pid is not None and group_gone(pid) for pid in pids)
    recorded = (prepared.root / native.INDEX_HASH_FILE).read_text(encoding="ascii").strip()
    assert native.file_sha256(prepared.root / native.INDEX_FILE) == recorded


def test_an_altered_prepared_index_is_never_served(
    adapter: McpAdapter, tiny_fixture: Fixture, tmp_path: Path
) -> None:
    tampered = adapter.prepare(tiny_fixture.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)
    with (tampered.root / native.INDEX_FILE).open("ab") as handle:
        handle.write(b"\0")
    with pytest.raises(ContractError) as caught:
        adapter.attach(tampered, timeout_s=TIMEOUT_S)
    assert caught.value.code == "qmd_index_clone_mismatch"


def test_a_hung_model_backed_call_times_out_and_its_process_tree_is_killed(
    prepared: PreparedIndex, tmp_path: Path
) -> None:
    """Offline, a plain-text query makes qmd retry a model download instead of failing: the
    call's own deadline must end it, and nothing qmd started may survive."""
    settings = native.RunSettings.load(prepared.root)
    hub_models: dict[str, str] = {pin.role: pin.uri for pin in load_qmd_lock().models}
    index = native.clone_index(prepared.root, tmp_path)
    native.write_config(tmp_path / "config", prepared.root, ("c0a1",), hub_models)
    env = native.qmd_environment(settings, tmp_path, index, tmp_path / "config")
    spec = ChildSpec(settings.argv("mcp"), env, tmp_path)
    connection = McpConnection.open(
        spec, ConnectionLimits(max_message_bytes=1 << 22), timeout_s=TIMEOUT_S
    )
    pid = connection.pid
    try:
        with pytest.raises(McpClientError) as caught:
            connection.call_tool("query", {"query": "which incident"}, timeout_s=HANG_TIMEOUT_S)
    finally:
        connection.close()
    assert caught.value.kind == "timeout"
    assert pid is not None and group_gone(pid)
