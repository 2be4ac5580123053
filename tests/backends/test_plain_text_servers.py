"""A server shaped like the document servers people ship, scored by a config alone: plain-text
grep lines and whole documents, errors as ordinary text, an index that is not ready at first,
start-up chatter on stdout, a required extra argument, no scope argument, and its own writes
into the folder it serves."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.catalog.load import load_catalog
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from tests.support.backends import SERVERS, TIMEOUT_S, attached, write_config
from tests.support.tiny_fixture import TASK_A, corpus_path, document_bytes

pytestmark = pytest.mark.real_process

SERVER = SERVERS / "plain_text_server.py"
INCIDENT = "gno://c0a1/d001.md"


def config(*, rewrite: bool = False, **changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "id": "plain-text",
        "transport": "stdio",
        "command": [sys.executable, str(SERVER), "{corpus}", *(["--rewrite"] if rewrite else [])],
        "stdout_text": "skip",
        "corpus": "copy" if rewrite else None,
        "ids": {"form": "path"},
        "ready": {"not_ready": "not ready", "interval_s": 0.05},
        "tools": {
            "search": {
                "name": "grep",
                "arguments": {"query": "pattern"},
                "fixed": {"project": "main"},
                "transforms": {"query": "regex_escape"},
                "results": {
                    "shape": "lines",
                    "pattern": r"^(?P<uri>[^:\n]+\.md):(?P<line>\d+): (?P<text>.*)$",
                    "empty": "^No matches found",
                    "error": "^Error: ",
                },
            },
            "get": {
                "name": "read",
                "arguments": {"uri": "path"},
                "results": {"shape": "document", "error": "^Error: "},
            },
        },
    }
    document.update(changes)
    return document


def evidence_lines(outcome: Any) -> list[tuple[str, int, str]]:
    return [(e.uri, e.startLine, e.text) for e in outcome.result.evidence]


def test_a_search_after_the_readiness_wait_finds_the_line(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(config(), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "INC-4827"}, timeout_s=TIMEOUT_S)
    assert evidence_lines(outcome) == [(INCIDENT, 3, "Incident: INC-4827")]


def test_a_query_with_regex_characters_is_searched_literally(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(config(), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "after rollback."}, timeout_s=TIMEOUT_S)
    assert [line for _, line, _ in evidence_lines(outcome)] == [4]


def test_an_error_answered_as_text_fails_the_call_as_the_products(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    unfixed = config()
    del unfixed["tools"]["search"]["fixed"]
    with (
        attached(unfixed, tiny_fixture, tmp_path) as session,
        pytest.raises(AdapterCallError) as raised,
    ):
        session.call("search", {"query": "INC"}, timeout_s=TIMEOUT_S)
    assert (raised.value.code, raised.value.failure_class) == ("tool_call_failed", "product_error")
    assert "unknown project" in str(raised.value)


def test_results_outside_the_tasks_collections_are_dropped_and_counted(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(config(), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "# "}, timeout_s=TIMEOUT_S)
    assert {uri for uri, _, _ in evidence_lines(outcome)} == {INCIDENT, "gno://c0a1/d002.md"}
    assert any(note.startswith("dropped 4 result(s)") for note in outcome.diagnostics)


def test_a_search_naming_a_collection_outside_the_task_is_refused_though_the_server_has_no_scope(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with (
        attached(config(), tiny_fixture, tmp_path) as session,
        pytest.raises(AdapterCallError) as raised,
    ):
        session.call("search", {"query": "# ", "collection": "c0b2"}, timeout_s=TIMEOUT_S)
    assert (raised.value.code, raised.value.failure_class) == (
        "task_scope_violation",
        "product_error",
    )


def test_no_matches_is_an_empty_result(tmp_path: Path, tiny_fixture: Fixture) -> None:
    with attached(config(), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "zeppelin"}, timeout_s=TIMEOUT_S)
    assert outcome.result.content == '{"results":[]}'


def test_a_whole_document_read_is_sliced_to_the_asked_range(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    arguments: JsonObject = {"uri": INCIDENT, "fromLine": 3, "lineCount": 2}
    with attached(config(), tiny_fixture, tmp_path) as session:
        outcome = session.call("get", arguments, timeout_s=TIMEOUT_S)
    assert outcome.result.content == "Incident: INC-4827\nStatus: resolved after rollback."


def test_a_server_writing_its_copy_still_yields_snapshot_lines(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(config(rewrite=True), tiny_fixture, tmp_path) as session:
        found = session.call("search", {"query": "INC-4827"}, timeout_s=TIMEOUT_S)
        read = session.call("get", {"uri": INCIDENT}, timeout_s=TIMEOUT_S)
    # The server said line 6 (its own front matter moved the line); the snapshot's line is 3.
    assert '"startLine":3' in found.result.content
    assert evidence_lines(found) == [(INCIDENT, 3, "Incident: INC-4827")]
    assert [line for _, line, _ in evidence_lines(read)] == [1, 3, 4]
    assert "indexed: true" not in read.result.content


def test_the_copy_the_server_wrote_is_not_the_snapshot(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(config(rewrite=True), tiny_fixture, tmp_path):
        written = (tmp_path / "root" / "corpus" / "c0a1" / "d001.md").read_text(encoding="utf-8")
    assert written.startswith("---\nindexed: true\n---\n")
    fixture_copy = tiny_fixture.root / corpus_path(TASK_A, "c0a1", "d001.md")
    assert fixture_copy.read_bytes() == document_bytes((TASK_A, "c0a1", "d001.md"))


def test_a_server_cannot_write_the_read_only_snapshot(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with (
        pytest.raises(AdapterError) as raised,
        attached(config(rewrite=True, corpus=None), tiny_fixture, tmp_path),
    ):
        pass
    assert raised.value.code == "adapter_preparation_failed"
    assert "Permission denied" in str(raised.value) or "Read-only" in str(raised.value)


def test_start_up_chatter_on_stdout_ends_a_strict_connection(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with (
        pytest.raises(AdapterError) as raised,
        attached(config(stdout_text=None), tiny_fixture, tmp_path),
    ):
        pass
    assert "non-JSON-RPC line on stdout" in str(raised.value)


def test_a_prepare_step_gets_its_own_budget_beyond_the_runs_timeout(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    slow_prepare = [sys.executable, "-c", "import time; time.sleep(2)"]
    document = config(prepare=slow_prepare, prepare_timeout_s=30)
    path = write_config(tmp_path / "config", document)
    adapter = load_catalog((path,), plugins=False).build_adapter(
        "plain-text", tiny_fixture.snapshot, {}
    )
    prepared = adapter.prepare(tiny_fixture.snapshot, tmp_path / "root", timeout_s=1.0)
    assert prepared.adapter_id == "plain-text"


def test_without_its_own_budget_a_prepare_step_has_the_runs_timeout(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    slow_prepare = [sys.executable, "-c", "import time; time.sleep(5)"]
    path = write_config(tmp_path / "config", config(prepare=slow_prepare))
    adapter = load_catalog((path,), plugins=False).build_adapter(
        "plain-text", tiny_fixture.snapshot, {}
    )
    with pytest.raises(AdapterError) as raised:
        adapter.prepare(tiny_fixture.snapshot, tmp_path / "root", timeout_s=1.0)
    assert "exceeded 1 s" in str(raised.value)
