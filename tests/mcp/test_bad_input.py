"""Misbehaving MCP servers (fake processes) end in the contract's failure class and code, and
leave no process behind."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.mcp.adapter import McpAdapter, McpSession
from agentic.contract.receipt import FailureClass
from agentic.fixture.loader import Fixture
from agentic.runner.bounded import BoundedExecutor
from agentic.runner.trial import TrialBounds, run_trial
from agentic.tools import TOOL_NAMES
from tests.support.mcp import (
    DOC_B,
    FOREIGN_DOC,
    FOREIGN_LINES,
    HANG_TIMEOUT_S,
    TASK_B,
    TIMEOUT_S,
    canned_responses,
    fake_profile,
    search_hit,
)
from tests.support.processes import group_gone, process_alive
from tests.support.scripted import OneCallThenAbstain

# These tests read the pids a server writes to files: they check the cleanup of the harness
# itself, without the sandbox (tests/adapters/test_sandbox.py covers it under bubblewrap).
pytestmark = [pytest.mark.real_process, pytest.mark.usefixtures("unsandboxed")]

SessionFactory = Callable[..., Any]


@pytest.fixture
def fake_session(tiny_fixture: Fixture, tmp_path: Path) -> Iterator[SessionFactory]:
    """Opens sessions on the fake server (reset to task B); on teardown closes them and asserts
    that no process of any of them is left."""
    sessions: list[McpSession] = []

    @contextmanager
    def open_session(
        mode: str, *, responses: dict[str, Any] | None = None, extra: Sequence[str] = ()
    ) -> Iterator[McpSession]:
        profile = fake_profile(tmp_path / mode, mode, responses=responses, extra=extra)
        adapter = McpAdapter(profile, tiny_fixture.snapshot)
        prepared = adapter.prepare(
            tiny_fixture.snapshot, tmp_path / f"{mode}-root", timeout_s=TIMEOUT_S
        )
        session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
        sessions.append(session)
        session.reset(tiny_fixture.task(TASK_B), readiness_probe=False, timeout_s=TIMEOUT_S)
        yield session

    yield open_session
    for session in sessions:
        session.close()
        assert session.pid is not None and group_gone(session.pid)


def _failure_of(session: McpSession, tool: str, arguments: dict[str, Any]) -> tuple[str, str]:
    with pytest.raises(AdapterCallError) as raised:
        session.call(tool, arguments, timeout_s=HANG_TIMEOUT_S)
    return raised.value.code, raised.value.failure_class


def _search(session: McpSession) -> tuple[str, str]:
    return _failure_of(session, "search", {"query": "launch"})


def test_a_hanging_server_times_out_and_is_killed(fake_session: SessionFactory) -> None:
    with fake_session("hang") as session:
        assert _search(session) == ("tool_timeout", "product_error")
        assert session.pid is not None and group_gone(session.pid)


def test_a_timeout_also_kills_the_servers_own_children(
    fake_session: SessionFactory, tmp_path: Path
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    with fake_session("hang_with_child", extra=("--pid-file", str(pid_file))) as session:
        assert _search(session) == ("tool_timeout", "product_error")
        grandchild = int(pid_file.read_text(encoding="utf-8"))
        assert session.pid is not None and group_gone(session.pid)
        assert not process_alive(grandchild)


def test_a_server_crashing_mid_call_fails_the_call(fake_session: SessionFactory) -> None:
    with fake_session("crash") as session:
        assert _search(session) == ("tool_call_failed", "product_error")


def test_garbage_on_stdout_fails_the_call_and_kills_the_server(
    fake_session: SessionFactory,
) -> None:
    with fake_session("garbage") as session:
        assert _search(session) == ("tool_call_failed", "product_error")
        assert session.pid is not None and group_gone(session.pid)


def test_a_result_that_is_not_a_tool_result_is_invalid(fake_session: SessionFactory) -> None:
    with fake_session("bad_envelope") as session:
        assert _search(session) == ("invalid_tool_result", "harness_error")


def test_structured_content_of_the_wrong_shape_is_invalid(fake_session: SessionFactory) -> None:
    responses = {"kb_search": {"structured": {"query": "$query", "results": "not a list"}}}
    with fake_session("ok", responses=responses) as session:
        assert _search(session) == ("invalid_tool_result", "harness_error")


def test_an_oversized_result_is_the_products_error_and_the_server_killed(
    fake_session: SessionFactory,
) -> None:
    # The fake profile caps messages at 64 KiB; the server answers with 200 kB of text.
    with fake_session("oversized", extra=("--oversize", "200000")) as session:
        assert _search(session) == ("tool_result_too_large", "product_error")
        assert session.pid is not None and group_gone(session.pid)


def test_a_document_from_another_collection_is_a_scope_violation(
    fake_session: SessionFactory,
) -> None:
    responses = canned_responses(search_hit(FOREIGN_DOC, FOREIGN_LINES))
    with fake_session("ok", responses=responses) as session:
        assert _search(session) == ("task_scope_violation", "product_error")


def test_a_foreign_result_never_reaches_the_agent(
    fake_session: SessionFactory, tiny_fixture: Fixture
) -> None:
    task = tiny_fixture.task(TASK_B)
    agent = OneCallThenAbstain(task)
    responses = canned_responses(search_hit(FOREIGN_DOC, FOREIGN_LINES))
    with fake_session("ok", responses=responses) as session:
        outcome = run_trial(
            agent, session, task, TrialBounds(TIMEOUT_S, frozenset(TOOL_NAMES), BoundedExecutor())
        )
    assert outcome.failure is not None
    assert (outcome.failure.failure_class, outcome.failure.code) == (
        "product_error",
        "task_scope_violation",
    )
    [call] = outcome.calls
    assert not call.deliveredToAgent and call.result.content == "" and not call.result.evidence
    assert agent.seen == [()]  # the agent was asked once, before the call, and never again


def test_a_foreign_request_is_refused_before_reaching_the_server(
    fake_session: SessionFactory, tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    with fake_session("ok", responses=canned_responses(), extra=("--log", str(log))) as session:
        assert _failure_of(session, "get", {"uri": FOREIGN_DOC}) == (
            "task_scope_violation",
            "product_error",
        )
    assert not log.exists()


def test_a_noisy_stderr_is_drained_while_the_call_succeeds(fake_session: SessionFactory) -> None:
    responses = canned_responses()
    with fake_session("noisy", responses=responses, extra=("--noise", "1000000")) as session:
        outcome = session.call("get", {"uri": DOC_B, "fromLine": 5}, timeout_s=TIMEOUT_S)
        tail = session.stderr_text()
    assert [e.text for e in outcome.result.evidence] == ["Launch date: 2026-09-14"]
    assert len(tail) < 100_000  # only a bounded tail of the megabyte is kept


def test_a_tool_schema_without_a_mapped_field_fails_preparation(
    tiny_fixture: Fixture, tmp_path: Path
) -> None:
    pid_file = tmp_path / "server.pid"
    extra = ("--self-pid-file", str(pid_file))
    profile = fake_profile(tmp_path / "fake", "schema_missing", extra=extra)
    adapter = McpAdapter(profile, tiny_fixture.snapshot)
    with pytest.raises(AdapterError) as raised:
        adapter.prepare(tiny_fixture.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)
    expected: tuple[str, FailureClass] = ("tool_schema_mismatch", "harness_error")
    assert (raised.value.code, raised.value.failure_class) == expected
    assert "collections" in str(raised.value)
    assert group_gone(int(pid_file.read_text(encoding="utf-8")))


def test_a_server_that_cannot_start_fails_preparation(
    tiny_fixture: Fixture, tmp_path: Path
) -> None:
    profile = fake_profile(tmp_path / "fake", "ok")
    missing = tmp_path / "no-such-server"
    broken = dataclasses.replace(profile, command=lambda root: (str(missing),))
    adapter = McpAdapter(broken, tiny_fixture.snapshot)
    with pytest.raises(AdapterError) as raised:
        adapter.prepare(tiny_fixture.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)
    assert (raised.value.code, raised.value.failure_class) == (
        "adapter_preparation_failed",
        "harness_error",
    )
