"""A backend that misbehaves fails as the contract classifies it, with no process left behind.

Setup faults (a command that is not there, a server without a bound tool or argument, a URL
nobody answers) end the lane: one line on stderr, exit 2, nothing written. Call faults end the
pair with the contract's class and code: a foreign document is the product's scope violation;
a result the kit cannot normalize (a ``file://`` URI, lines past a document's end) is
``invalid_tool_result``; an oversized reply is the product's ``tool_result_too_large``; an HTTP
error status, a crash or garbage is the product's failed call; no answer in time is
``tool_timeout``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.catalog.load import load_catalog
from agentic.fixture.loader import Fixture
from tests.support.backends import (
    TIMEOUT_S,
    agentic,
    attached,
    http_config,
    search_failure,
    stdio_config,
    write_config,
)
from tests.support.processes import group_gone, processes_mentioning
from tests.support.tiny_fixture import TASK_A

pytestmark = pytest.mark.real_process


def lane(tmp_path: Path, document: dict[str, Any], fixture_dir: Path) -> tuple[int, str, Path]:
    path = write_config(tmp_path / "config", document)
    out = tmp_path / "out"
    done = agentic(
        "run", "--fixture", str(fixture_dir), "--backend", str(path),
        "--adapter", document["id"], "--task", TASK_A, "--promote", "none",
        "--timeout-ms", "8000", "--out", str(out), "--quiet", temp=tmp_path / "tmp",
    )  # fmt: skip
    return done.returncode, done.stderr, out


# -- setup faults: the lane ends, exit 2, one line, nothing written -----------------------------


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (stdio_config(command=["/nonexistent/server"]), "cannot start /nonexistent/server"),
        (stdio_config(prepare=["/nonexistent/indexer"]), "cannot run /nonexistent/indexer"),
        (stdio_config(prepare=["/bin/sh", "-c", "exit 7"]), "prepare exited 7"),
        (stdio_config("no-read"), "the product lists no tool 'read'"),
        (stdio_config("no-scope"), "find lacks mapped field(s) scope"),
        (http_config("ok", command=None, url="http://127.0.0.1:9/mcp"), "is not reachable"),
        (http_config("status-403-init"), "adapter_preparation_failed"),
    ],
    ids=["command", "prepare-missing", "prepare-fails", "tool", "argument", "url", "http-403"],
)
def test_a_setup_fault_ends_the_lane_with_one_line_and_exit_2(
    tmp_path: Path, tiny_fixture: Fixture, document: dict[str, Any], expected: str
) -> None:
    code, stderr, out = lane(tmp_path, document, tiny_fixture.root)

    assert code == 2
    assert stderr.count("\n") == 1
    assert stderr.startswith("agentic: adapter_preparation_failed: ")
    assert expected in stderr
    assert not out.exists()
    assert processes_mentioning(str(tmp_path)) == []


def test_a_wrong_url_path_of_a_real_server_ends_the_lane(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    from tests.support.backends import HTTP_EXAMPLE

    document = {
        "id": "notes-wrong-path",
        "transport": "http",
        "command": ["python3", str(HTTP_EXAMPLE.parent / "notes_http.py"), "--root", "{corpus}",
                    "--port", "{port}"],
        "url": "http://127.0.0.1:{port}/not-mcp",
        "tools": {"search": {"name": "lookup", "arguments": {"query": "text"}}},
        "results": {"shape": "resources"},
    }  # fmt: skip
    code, stderr, out = lane(tmp_path, document, tiny_fixture.root)

    assert (code, stderr.count("\n"), out.exists()) == (2, 1, False)
    assert "adapter_preparation_failed: notes-wrong-path" in stderr
    assert processes_mentioning(str(tmp_path)) == []


# -- call faults over stdio ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "code", "failure_class"),
    [
        ("foreign", "task_scope_violation", "product_error"),
        ("file-uri", "invalid_tool_result", "harness_error"),
        ("past-end", "invalid_tool_result", "harness_error"),
        ("slow", "tool_timeout", "product_error"),
        ("crash", "tool_call_failed", "product_error"),
    ],
)
def test_a_stdio_call_fault_has_the_contracts_class_and_code(
    tmp_path: Path, tiny_fixture: Fixture, mode: str, code: str, failure_class: str
) -> None:
    error = search_failure(stdio_config(mode), tiny_fixture, tmp_path)
    assert (error.code, error.failure_class) == (code, failure_class)


def test_an_unreadable_reply_names_the_setting_that_failed_and_quotes_the_reply(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    error = search_failure(stdio_config("file-uri"), tiny_fixture, tmp_path)
    assert error.code == "invalid_tool_result"
    assert "(results.shape = 'hits'); reply: " in str(error)
    assert "file://" in str(error).split("reply: ", 1)[1]


def test_lines_that_differ_from_the_snapshot_are_counted_never_evidence(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(stdio_config("mismatch"), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "incident"}, timeout_s=TIMEOUT_S)

    assert outcome.result.evidence == ()
    assert outcome.diagnostics == (
        "1 returned line(s) of gno://c0a1/d001.md differ from the snapshot; no evidence for them",
    )


def test_a_correct_hit_becomes_snapshot_evidence(tmp_path: Path, tiny_fixture: Fixture) -> None:
    with attached(stdio_config("ok"), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "incident"}, timeout_s=TIMEOUT_S)

    (item,) = outcome.result.evidence
    assert (item.uri, item.startLine, item.text) == ("gno://c0a1/d001.md", 3, "Incident: INC-4827")
    assert item.sourceHashProvenance == "harness_observed"


def test_a_uri_outside_the_task_is_refused_before_any_traffic(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(stdio_config("crash"), tiny_fixture, tmp_path) as session:
        with pytest.raises(AdapterCallError) as raised:
            session.call("get", {"uri": "gno://c0c3/d001.md"}, timeout_s=TIMEOUT_S)
        # The crash mode would have ended the server on any call that reached it.
        assert session.call("get", {"uri": "gno://c0a1/d001.md"}, timeout_s=TIMEOUT_S)
    assert raised.value.code == "task_scope_violation"


# -- call faults over HTTP -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "code", "failure_class"),
    [
        ("status-500", "tool_call_failed", "product_error"),
        ("not-json", "tool_call_failed", "product_error"),
        ("oversized", "tool_result_too_large", "product_error"),
        ("slow", "tool_timeout", "product_error"),
    ],
)
def test_an_http_call_fault_has_the_contracts_class_and_code(
    tmp_path: Path, tiny_fixture: Fixture, mode: str, code: str, failure_class: str
) -> None:
    error = search_failure(http_config(mode), tiny_fixture, tmp_path)
    assert (error.code, error.failure_class) == (code, failure_class)


def test_an_http_error_status_is_named_in_the_failure(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    error = search_failure(http_config("status-500"), tiny_fixture, tmp_path)
    assert "HTTP 500" in str(error)


def test_an_http_server_the_kit_started_is_gone_after_close(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(http_config("ok"), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "incident"}, timeout_s=TIMEOUT_S)
        pid = session.pid
    assert pid is not None and group_gone(pid)
    assert [e.startLine for e in outcome.result.evidence] == [3]


def test_an_unreachable_user_server_fails_the_attach_at_once(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    document = http_config("ok", command=None, url="http://127.0.0.1:9/mcp")
    path = write_config(tmp_path / "config", document)
    adapter = load_catalog((path,), plugins=False).build_adapter(
        "faulty", tiny_fixture.snapshot, {}
    )
    with pytest.raises(AdapterError) as raised:
        adapter.prepare(tiny_fixture.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)
    assert raised.value.code == "adapter_preparation_failed"


def test_a_server_without_a_multi_document_read_answers_multi_get_by_one_get_per_uri(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(stdio_config("ok"), tiny_fixture, tmp_path) as session:
        outcome = session.call("multi_get", {"uris": ["gno://c0a1/d001.md"]}, timeout_s=TIMEOUT_S)
    assert outcome.result.status == "ok"
    assert [e.uri for e in outcome.result.evidence] == ["gno://c0a1/d001.md"]
    assert "multi_get emulated: 1 get calls" in outcome.diagnostics


def test_an_emulated_multi_get_is_declared_supported(tmp_path: Path, tiny_fixture: Fixture) -> None:
    path = write_config(tmp_path / "config", stdio_config("ok"))
    adapter = load_catalog((path,), plugins=False).build_adapter(
        "misbehaving", tiny_fixture.snapshot, {}
    )
    assert adapter.capabilities.tools.multi_get == "supported"
