"""The adapter contract, one suite for every adapter (see tests.support.adapters).

What every adapter must do, whatever its backend: prepare once under its own root with an index
fingerprint bound to the corpus, expose exactly the frozen tools, answer only within the current
task's scope, return normalized results whose evidence is exact snapshot lines, fail with the
contract's class and code, and close cleanly.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.base import Adapter, AdapterSession, PreparedIndex
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.contract.canonical import canonical_bytes, fingerprint, sha256_hex
from agentic.contract.receipt import Capabilities, ToolResult
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.fixture.spans import extract_span
from agentic.tools import tool_definitions
from tests.support.adapters import AdapterFactory, AdapterWorld, factory_params
from tests.support.adapters import standard_world as make_world
from tests.support.sessions import TIMEOUT_S, call, open_session
from tests.support.snapshots import (
    OTHER_TASK_ID,
    POLICY,
    corpus_file,
    make_task,
    snapshot_of,
    standard_files,
)

TASK = make_task(["c001", "c002"])
OTHER_TASK = make_task(["c0ff"], task_id=OTHER_TASK_ID)
POLICY_URI = "gno://c001/policy.md"
DRAFT_URI = "gno://c001/draft.md"
FOREIGN_URI = "gno://c0ff/foreign.md"
POLICY_LINES = POLICY.rstrip("\n").split("\n")

pytestmark = pytest.mark.parametrize("factory", factory_params())


@pytest.fixture
def world() -> AdapterWorld:
    return make_world()


def require_tool(factory: AdapterFactory, world: AdapterWorld, tool: str) -> None:
    """Skip a test of ``tool`` for an adapter that declares the tool unsupported."""
    state = getattr(factory.build(world).capabilities.tools, tool)
    if state != "supported":
        pytest.skip(f"{factory.name} declares {tool} {state}")


@pytest.fixture
def with_multi_get(factory: AdapterFactory, world: AdapterWorld) -> None:
    require_tool(factory, world, "multi_get")


@pytest.fixture(scope="session")
def prepared_indexes() -> dict[str, PreparedIndex]:
    """Each adapter's preparation of the standard world, shared by the tests of one worker that
    only call its session's tools: a preparation spawns a process for most adapters (a second,
    per test, was half of this suite's time). Tests of preparation itself prepare their own."""
    return {}


@pytest.fixture
def session(
    factory: AdapterFactory,
    world: AdapterWorld,
    prepared_indexes: dict[str, PreparedIndex],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[AdapterSession]:
    adapter = factory.build(world)
    prepared = prepared_indexes.get(factory.name)
    if prepared is None:
        root = tmp_path_factory.mktemp(f"prepared-{factory.name}") / "root"
        prepared = adapter.prepare(world.snapshot, root, timeout_s=TIMEOUT_S)
        prepared_indexes[factory.name] = prepared
    # attach re-derives the index fingerprint: a test that changed the shared root fails here.
    opened = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    try:
        opened.reset(TASK, readiness_probe=False, timeout_s=TIMEOUT_S)
        yield opened
    finally:
        opened.close()


def failure(session: AdapterSession, tool: str, **arguments: Any) -> AdapterCallError:
    with pytest.raises(AdapterCallError) as raised:
        call(session, tool, **arguments)
    return raised.value


def assert_exact_evidence(
    result: ToolResult, snapshot: CorpusSnapshot, collections: set[str]
) -> None:
    """Every evidence item is an exact, harness-observed span of a visible snapshot file."""
    for item in result.evidence:
        file = snapshot.by_uri(item.uri)
        assert file is not None, item.uri
        assert file.collection in collections, item.uri
        assert item.sourceHash == file.source_hash
        assert item.text == extract_span(file.lines, item.startLine, item.endLine)
        assert item.spanHash == sha256_hex(item.text)
        assert (item.sourceHashProvenance, item.spanHashProvenance) == (
            "harness_observed",
            "harness_observed",
        )


def nonblank_joined(lines: list[str]) -> str:
    """A read's content under contract v1.0: the non-blank served lines joined by LF."""
    return "\n".join(line for line in lines if line.strip())


def single_lines(uri: str, numbers: list[int]) -> list[tuple[str, int, int]]:
    return [(uri, n, n) for n in numbers]


def coordinates(result: ToolResult) -> list[tuple[str, int, int]]:
    return [(e.uri, e.startLine, e.endLine) for e in result.evidence]


def files_under(root: Path) -> set[Path]:
    return {path for path in root.rglob("*")}


# --- preparation --------------------------------------------------------------------------------


def test_preparation_binds_the_index_to_the_corpus_and_the_config(
    factory: AdapterFactory, world: AdapterWorld, tmp_path: Path
) -> None:
    adapter = factory.build(world)

    prepared = adapter.prepare(world.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)

    assert prepared.adapter_id == adapter.adapter_id == factory.name
    assert prepared.corpus_fingerprint == world.snapshot.fingerprint
    assert prepared.config_fingerprint == fingerprint(adapter.config)
    assert len(prepared.index_fingerprint) == 64


def test_two_preparations_of_one_corpus_give_the_same_index_fingerprint(
    factory: AdapterFactory, world: AdapterWorld, tmp_path: Path
) -> None:
    first = factory.build(world).prepare(world.snapshot, tmp_path / "a", timeout_s=TIMEOUT_S)
    second = factory.build(world).prepare(world.snapshot, tmp_path / "b", timeout_s=TIMEOUT_S)

    assert first.index_fingerprint == second.index_fingerprint


def test_a_changed_corpus_gives_another_index_fingerprint(
    factory: AdapterFactory, world: AdapterWorld, tmp_path: Path
) -> None:
    files = [
        f if f.uri != POLICY_URI else corpus_file("c001", "policy.md", POLICY + "\n")
        for f in standard_files()
    ]
    changed = AdapterWorld(snapshot=snapshot_of(files), oracles={})
    assert changed.snapshot.fingerprint != world.snapshot.fingerprint

    original = factory.build(world).prepare(world.snapshot, tmp_path / "a", timeout_s=TIMEOUT_S)
    other = factory.build(changed).prepare(changed.snapshot, tmp_path / "b", timeout_s=TIMEOUT_S)

    assert other.corpus_fingerprint == changed.snapshot.fingerprint
    assert other.index_fingerprint != original.index_fingerprint


def test_preparing_another_snapshot_than_the_adapters_own_fails_closed(
    factory: AdapterFactory, world: AdapterWorld, tmp_path: Path
) -> None:
    other = snapshot_of(standard_files()[:2])

    with pytest.raises(AdapterError) as raised:
        factory.build(world).prepare(other, tmp_path / "root", timeout_s=TIMEOUT_S)

    assert (raised.value.code, raised.value.failure_class) == (
        "corpus_fingerprint_mismatch",
        "harness_error",
    )


def test_preparation_writes_only_under_its_root(
    factory: AdapterFactory,
    world: AdapterWorld,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    elsewhere = {name: tmp_path / name for name in ("home", "cache", "tmp", "cwd")}
    for path in elsewhere.values():
        path.mkdir()
    monkeypatch.setenv("HOME", str(elsewhere["home"]))
    monkeypatch.setenv("XDG_CACHE_HOME", str(elsewhere["cache"]))
    monkeypatch.setenv("TMPDIR", str(elsewhere["tmp"]))
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere["tmp"]))
    monkeypatch.chdir(elsewhere["cwd"])
    root = tmp_path / "root"

    with open_session(factory.build(world), world.snapshot, root, TASK) as session:
        call(session, "search", query="retention period")
        call(session, "get", uri=POLICY_URI)

    assert files_under(root)
    assert files_under(tmp_path) - files_under(root) - {root} == set(elsewhere.values())
    assert all(not any(path.iterdir()) for path in elsewhere.values())


def test_capabilities_and_config_are_declared(factory: AdapterFactory, world: AdapterWorld) -> None:
    adapter: Adapter = factory.build(world)

    assert isinstance(adapter.capabilities, Capabilities)
    assert canonical_bytes(adapter.config)  # plain JSON, so it has a fingerprint
    assert adapter.capabilities.tools.search == "supported"


def test_a_tool_the_adapter_declares_unsupported_is_disallowed(
    factory: AdapterFactory, world: AdapterWorld, session: AdapterSession
) -> None:
    tools = factory.build(world).capabilities.tools.model_dump()
    unsupported = [tool for tool, state in tools.items() if state != "supported"]
    if not unsupported:
        pytest.skip(f"{factory.name} supports every tool")
    for tool in unsupported:
        arguments = {"uris": [POLICY_URI]} if tool == "multi_get" else {"uri": POLICY_URI}
        error = failure(session, tool, **arguments)
        assert (error.code, error.failure_class) == ("disallowed_tool", "agent_error")


# --- attach -------------------------------------------------------------------------------------


def test_attach_refuses_an_index_of_another_corpus(
    factory: AdapterFactory, world: AdapterWorld, tmp_path: Path
) -> None:
    adapter = factory.build(world)
    prepared = adapter.prepare(world.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)
    foreign = dataclasses.replace(prepared, corpus_fingerprint="0" * 64)

    with pytest.raises(AdapterError) as raised:
        adapter.attach(foreign, timeout_s=TIMEOUT_S)

    assert (raised.value.code, raised.value.failure_class) == (
        "corpus_fingerprint_mismatch",
        "harness_error",
    )


def test_attach_refuses_an_index_prepared_by_another_adapter(
    factory: AdapterFactory, world: AdapterWorld, tmp_path: Path
) -> None:
    adapter = factory.build(world)
    prepared = adapter.prepare(world.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)

    with pytest.raises(AdapterError) as raised:
        adapter.attach(dataclasses.replace(prepared, adapter_id="impostor"), timeout_s=TIMEOUT_S)

    assert raised.value.code == "adapter_identity_mismatch"


def test_a_session_lists_exactly_the_frozen_tools(session: AdapterSession) -> None:
    assert session.list_tools() == tool_definitions()


def test_a_call_before_any_reset_is_refused(
    factory: AdapterFactory, world: AdapterWorld, tmp_path: Path
) -> None:
    adapter = factory.build(world)
    prepared = adapter.prepare(world.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)
    session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    try:
        error = failure(session, "get", uri=POLICY_URI)
    finally:
        session.close()

    assert (error.code, error.failure_class) == ("adapter_not_reset", "product_error")


# --- reset and task scope -------------------------------------------------------------------------


def test_reset_moves_the_visibility_scope_to_the_new_task(session: AdapterSession) -> None:
    assert failure(session, "get", uri=FOREIGN_URI).code == "task_scope_violation"

    session.reset(OTHER_TASK, readiness_probe=False, timeout_s=TIMEOUT_S)

    assert call(session, "get", uri=FOREIGN_URI).result.status == "ok"
    assert failure(session, "get", uri=POLICY_URI).code == "task_scope_violation"


def test_a_readiness_probe_reset_leaves_the_session_usable(session: AdapterSession) -> None:
    session.reset(TASK, readiness_probe=True, timeout_s=TIMEOUT_S)

    assert call(session, "get", uri=POLICY_URI).result.status == "ok"


def test_search_in_a_foreign_collection_is_a_scope_violation(session: AdapterSession) -> None:
    error = failure(session, "search", query="retention", collection="c0ff")

    assert (error.code, error.failure_class) == ("task_scope_violation", "product_error")


@pytest.mark.parametrize(
    "uri",
    [FOREIGN_URI, "gno://c0ff/missing.md", "c001/policy.md", "gno://c001", "file:///etc/passwd"],
)
def test_get_outside_the_task_collections_is_a_scope_violation(
    session: AdapterSession, uri: str
) -> None:
    error = failure(session, "get", uri=uri)

    assert (error.code, error.failure_class) == ("task_scope_violation", "product_error")


@pytest.mark.usefixtures("with_multi_get")
def test_multi_get_with_one_foreign_uri_is_a_scope_violation(session: AdapterSession) -> None:
    error = failure(session, "multi_get", uris=[POLICY_URI, FOREIGN_URI])

    assert (error.code, error.failure_class) == ("task_scope_violation", "product_error")


def test_search_never_returns_evidence_outside_the_task(
    session: AdapterSession, world: AdapterWorld
) -> None:
    # The foreign document holds the query terms too; scope must still hide it.
    outcome = call(session, "search", query="retention period")

    assert outcome.result.evidence
    assert_exact_evidence(outcome.result, world.snapshot, {"c001", "c002"})


# --- normalized results -------------------------------------------------------------------------


def test_search_returns_a_normalized_ok_result(
    factory: AdapterFactory, world: AdapterWorld, session: AdapterSession
) -> None:
    outcome = call(session, "search", query="retention period")
    result = outcome.result

    assert ToolResult.model_validate(result.to_json()) == result
    assert (result.status, result.errorCode) == ("ok", None)
    assert result.resultRole in ("candidates", "source", "evidence_bundle")
    # Backend work is counted where the adapter declares it can count it, and never invented.
    if factory.build(world).capabilities.backendInvocationAccounting:
        assert outcome.backend_invocations >= 1
    else:
        assert outcome.backend_invocations == 0


def test_get_reads_the_whole_document_with_one_evidence_item_per_non_blank_line(
    session: AdapterSession, world: AdapterWorld
) -> None:
    result = call(session, "get", uri=POLICY_URI).result

    assert (result.status, result.resultRole, result.errorCode) == ("ok", "source", None)
    assert result.content == nonblank_joined(POLICY_LINES)
    assert coordinates(result) == single_lines(POLICY_URI, [1, 3, 4, 6, 7])
    assert_exact_evidence(result, world.snapshot, {"c001"})


def test_get_serves_an_exact_inclusive_line_range(
    session: AdapterSession, world: AdapterWorld
) -> None:
    result = call(session, "get", uri=POLICY_URI, fromLine=3, lineCount=2).result

    assert result.content == "\n".join(POLICY_LINES[2:4])
    assert coordinates(result) == single_lines(POLICY_URI, [3, 4])
    assert_exact_evidence(result, world.snapshot, {"c001"})


def test_get_clamps_a_range_that_runs_past_the_end(session: AdapterSession) -> None:
    result = call(session, "get", uri=POLICY_URI, fromLine=6, lineCount=50).result

    assert result.content == nonblank_joined(POLICY_LINES[5:])
    assert coordinates(result) == single_lines(POLICY_URI, [6, 7])


def test_get_from_a_line_past_the_end_serves_nothing_or_is_a_product_error(
    session: AdapterSession,
) -> None:
    # The built-ins serve nothing; a product may instead refuse the range. Either way nothing
    # reaches the agent as evidence.
    try:
        result = call(session, "get", uri=POLICY_URI, fromLine=99).result
    except AdapterCallError as error:
        assert error.failure_class == "product_error"
        return
    assert (result.status, result.content, result.evidence) == ("ok", "", ())


def test_get_of_a_blank_line_serves_it_without_evidence(session: AdapterSession) -> None:
    result = call(session, "get", uri=POLICY_URI, fromLine=2, lineCount=1).result

    assert (result.content, result.evidence) == ("", ())


def test_get_content_is_the_non_blank_lines_of_the_range_joined_by_lf(
    session: AdapterSession,
) -> None:
    # Contract v1.0: a blank line inside the range is neither evidence nor content.
    result = call(session, "get", uri=POLICY_URI, fromLine=1, lineCount=4).result

    expected = f"{POLICY_LINES[0]}\n{POLICY_LINES[2]}\n{POLICY_LINES[3]}"
    assert result.content.encode("utf-8") == expected.encode("utf-8")
    assert result.content == "\n".join(item.text for item in result.evidence)


def test_get_of_an_unknown_document_in_a_task_collection_is_a_product_error(
    session: AdapterSession,
) -> None:
    assert failure(session, "get", uri="gno://c001/missing.md").failure_class == "product_error"


@pytest.mark.usefixtures("with_multi_get")
def test_multi_get_reads_each_uri_whole_in_request_order(
    session: AdapterSession, world: AdapterWorld
) -> None:
    result = call(session, "multi_get", uris=[DRAFT_URI, POLICY_URI]).result

    draft = world.snapshot.by_uri(DRAFT_URI)
    assert draft is not None
    draft_lines = draft.lines
    assert result.resultRole == "source"
    assert result.content == nonblank_joined([*draft_lines, *POLICY_LINES])
    assert coordinates(result) == [
        *single_lines(DRAFT_URI, [1, 3]),
        *single_lines(POLICY_URI, [1, 3, 4, 6, 7]),
    ]
    assert_exact_evidence(result, world.snapshot, {"c001"})


@pytest.mark.usefixtures("with_multi_get")
def test_multi_get_max_bytes_keeps_the_longest_evidence_prefix_that_fits(
    session: AdapterSession,
) -> None:
    sizes = [len(line.encode()) for line in POLICY_LINES]
    cap = sizes[0] + sizes[2] + sizes[3] - 1  # lines 1 and 3 fit, line 4 does not

    result = call(session, "multi_get", uris=[POLICY_URI, DRAFT_URI], maxBytes=cap).result

    assert coordinates(result) == single_lines(POLICY_URI, [1, 3])
    assert sum(len(e.text.encode()) for e in result.evidence) <= cap
    assert result.content == f"{POLICY_LINES[0]}\n{POLICY_LINES[2]}"


def test_repeated_calls_return_byte_identical_results(
    factory: AdapterFactory, world: AdapterWorld, tmp_path: Path
) -> None:
    supported = factory.build(world).capabilities.tools.model_dump()

    def results(root: Path) -> list[bytes]:
        with open_session(factory.build(world), world.snapshot, root, TASK) as session:
            return [
                canonical_bytes(call(session, tool, **arguments).result.to_json())
                for tool, arguments in (
                    ("search", {"query": "retention period"}),
                    ("get", {"uri": POLICY_URI, "fromLine": 3}),
                    ("multi_get", {"uris": [POLICY_URI, DRAFT_URI], "maxBytes": 60}),
                )
                if supported[tool] == "supported"
            ]

    assert results(tmp_path / "a") == results(tmp_path / "b")


# --- bad calls ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get", {}),
        ("get", {"uri": 1}),
        ("get", {"uri": POLICY_URI, "fromLine": 0}),
        ("get", {"uri": POLICY_URI, "fromLine": True}),
        ("get", {"uri": POLICY_URI, "lineCount": 1.5}),
        ("get", {"uri": POLICY_URI, "lines": "3-4"}),
        ("multi_get", {"uris": []}),
        ("multi_get", {"uris": POLICY_URI}),
        ("multi_get", {"uris": [POLICY_URI], "maxBytes": 0}),
        ("search", {}),
        ("search", {"query": ["retention"]}),
        ("search", {"query": "retention", "limit": 0}),
        ("search", {"query": "retention", "fast": "yes"}),
        ("search", {"query": "retention", "answer": "30 days"}),
    ],
)
def test_arguments_outside_the_tool_schema_are_an_invalid_agent_action(
    session: AdapterSession, tool: str, arguments: dict[str, Any]
) -> None:
    error = failure(session, tool, **arguments)

    assert (error.code, error.failure_class) == ("invalid_agent_action", "agent_error")


def test_an_unknown_tool_is_disallowed(session: AdapterSession) -> None:
    error = failure(session, "delete", uri=POLICY_URI)

    assert (error.code, error.failure_class) == ("disallowed_tool", "agent_error")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search", {"query": "retention"}),
        ("get", {"uri": POLICY_URI}),
        ("multi_get", {"uris": [POLICY_URI]}),
    ],
)
def test_a_call_whose_deadline_has_passed_times_out(
    factory: AdapterFactory,
    world: AdapterWorld,
    session: AdapterSession,
    tool: str,
    arguments: dict[str, Any],
) -> None:
    require_tool(factory, world, tool)
    with pytest.raises(AdapterCallError) as raised:
        session.call(tool, arguments, timeout_s=0.0)

    assert (raised.value.code, raised.value.failure_class) == ("tool_timeout", "product_error")


# --- close --------------------------------------------------------------------------------------


def test_close_is_idempotent_and_a_closed_session_answers_no_call(
    factory: AdapterFactory, world: AdapterWorld, tmp_path: Path
) -> None:
    with open_session(factory.build(world), world.snapshot, tmp_path / "root", TASK) as session:
        session.close()
        session.close()

        with pytest.raises(AdapterCallError):
            call(session, "get", uri=POLICY_URI)


def test_a_closed_session_leaves_its_index_files_closed(
    factory: AdapterFactory, world: AdapterWorld, tmp_path: Path
) -> None:
    root = tmp_path / "root"
    with open_session(factory.build(world), world.snapshot, root, TASK) as session:
        call(session, "search", query="retention")

    # Nothing of this process still holds a file under the root open.
    fd_dir = Path("/proc/self/fd")
    if not fd_dir.is_dir():
        pytest.skip("no /proc on this platform")
    held = {os.path.realpath(fd_dir / fd) for fd in os.listdir(fd_dir)}
    assert not any(path.startswith(str(root.resolve())) for path in held)
