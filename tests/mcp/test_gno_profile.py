"""The gno-mcp profile: fail-closed preparation, argument mapping and result normalization.

No GNO is installed here, so results are canned product payloads in GNO's documented shapes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.mcp import gno
from agentic.adapters.mcp.adapter import McpAdapter, product_tools_fingerprint
from agentic.adapters.mcp.profile import CallScope, ParseInput, RawResult
from agentic.fixture.loader import Fixture
from tests.support.mcp import DOC_B, DOC_B_LINES, FOREIGN_DOC, TASK_B
from tests.support.snapshots import make_task, standard_snapshot

LAUNCH = DOC_B_LINES[4]


@pytest.fixture
def scope(tiny_fixture: Fixture) -> CallScope:
    return CallScope(task=tiny_fixture.task(TASK_B), snapshot=tiny_fixture.snapshot)


def _source(tiny_fixture: Fixture, uri: str) -> dict[str, Any]:
    file = tiny_fixture.snapshot.by_uri(uri)
    assert file is not None
    return {
        "relPath": file.rel_path,
        "mime": "text/markdown",
        "ext": ".md",
        "sourceHash": file.source_hash,
    }


def _search_payload(
    tiny_fixture: Fixture, uri: str, snippet: str, start: int, end: int
) -> dict[str, Any]:
    return {
        "results": [
            {
                "uri": f"{uri}?index=agentic",
                "docid": "#abc",
                "title": "Atlas launch plan",
                "score": 0.8,
                "snippet": snippet,
                "snippetRange": {"startLine": start, "endLine": end},
                "source": _source(tiny_fixture, uri),
            }
        ],
        "meta": {
            "query": "launch date",
            "mode": "hybrid",
            "expanded": False,
            "reranked": True,
            "vectorsUsed": True,
            "totalResults": 1,
        },
    }


def _parse(
    scope: CallScope, tool: str, arguments: dict[str, Any], structured: Any, *, error: bool = False
) -> Any:
    binding = gno.PROFILE.binding(tool)
    assert binding is not None
    product = binding.map_arguments(arguments, scope)
    raw = RawResult(is_error=error, structured=structured, text="")
    return gno.parse(ParseInput(tool, arguments, product, scope, raw))


def test_prepare_fails_closed_when_gno_is_absent(
    tiny_fixture: Fixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.delenv(gno.EXECUTABLE_ENV, raising=False)
    adapter = McpAdapter(gno.PROFILE, tiny_fixture.snapshot)
    with pytest.raises(AdapterError) as raised:
        adapter.prepare(tiny_fixture.snapshot, tmp_path / "root", timeout_s=5.0)
    assert (raised.value.code, raised.value.failure_class) == (
        "gno_executable_not_found",
        "harness_error",
    )


def test_reads_ask_for_exact_bytes_without_line_numbers(scope: CallScope) -> None:
    get = gno.map_get({"uri": DOC_B, "fromLine": 5}, scope)
    multi = gno.map_multi_get({"uris": [DOC_B], "maxBytes": 10}, scope)
    assert get == {"ref": DOC_B, "fromLine": 5, "lineNumbers": False}
    assert multi == {"refs": [DOC_B], "maxBytes": 10, "lineNumbers": False}


def test_a_single_collection_search_is_scoped_and_filters_move_to_the_top(
    scope: CallScope,
) -> None:
    mapped = gno.map_search({"query": "launch", "filters": {"author": "Priya"}}, scope)
    assert mapped == {"query": "launch", "author": "Priya", "collection": "c0b2"}


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({"query": "launch", "filters": {"owner": "x"}}, "gno_filter_unsupported"),
        ({"query": "launch", "collection": "c0a1"}, "task_scope_violation"),
    ],
)
def test_unmappable_searches_are_refused_before_any_traffic(
    scope: CallScope, arguments: dict[str, Any], code: str
) -> None:
    with pytest.raises(AdapterCallError) as raised:
        gno.map_search(arguments, scope)
    assert raised.value.code == code


def test_a_multi_collection_task_must_name_its_collection() -> None:
    scope = CallScope(task=make_task(["c001", "c002"]), snapshot=standard_snapshot())
    with pytest.raises(AdapterCallError) as raised:
        gno.map_search({"query": "retention"}, scope)
    assert raised.value.code == "gno_collection_scope_required"


def test_an_exact_snippet_yields_line_atomic_evidence_of_the_query_lines(
    tiny_fixture: Fixture, scope: CallScope
) -> None:
    snippet = "\n".join(DOC_B_LINES[4:7])
    outcome = _parse(
        scope,
        "search",
        {"query": "launch date"},
        _search_payload(tiny_fixture, DOC_B, snippet, 5, 7),
    )
    assert [(e.startLine, e.text) for e in outcome.result.evidence] == [(5, LAUNCH)]
    assert outcome.result.evidence[0].backendHashUnavailableReason == gno.HASH_REASON
    assert outcome.backend_invocations == 3  # lexical + vectors + rerank


def test_a_snippet_that_differs_from_the_snapshot_yields_no_evidence(
    tiny_fixture: Fixture, scope: CallScope
) -> None:
    payload = _search_payload(tiny_fixture, DOC_B, "Launch date: 2026-09-15", 5, 5)
    outcome = _parse(scope, "search", {"query": "launch"}, payload)
    assert outcome.result.evidence == ()
    assert outcome.result.status == "ok"


def test_a_result_from_another_collection_is_a_scope_violation(
    tiny_fixture: Fixture, scope: CallScope
) -> None:
    payload = _search_payload(tiny_fixture, FOREIGN_DOC, "Incident: INC-4827", 3, 3)
    with pytest.raises(AdapterCallError) as raised:
        _parse(scope, "search", {"query": "launch"}, payload)
    assert (raised.value.code, raised.value.failure_class) == (
        "task_scope_violation",
        "product_error",
    )


def test_malformed_query_metadata_is_an_invalid_result(
    tiny_fixture: Fixture, scope: CallScope
) -> None:
    payload = _search_payload(tiny_fixture, DOC_B, LAUNCH, 5, 5)
    payload["meta"]["vectorsUsed"] = "yes"
    with pytest.raises(AdapterCallError) as raised:
        _parse(scope, "search", {"query": "launch"}, payload)
    assert (raised.value.code, raised.value.failure_class) == (
        "invalid_tool_result",
        "harness_error",
    )


def test_a_product_error_is_delivered_with_its_stable_code(scope: CallScope) -> None:
    outcome = _parse(
        scope, "get", {"uri": DOC_B}, {"error": "NOT_FOUND", "message": "/tmp/x gone"}, error=True
    )
    assert outcome.result.status == "error"
    assert outcome.result.errorCode == "gno_not_found"
    assert outcome.result.content == '{"errorCode":"gno_not_found"}'


def test_an_exact_line_range_read_yields_evidence(tiny_fixture: Fixture, scope: CallScope) -> None:
    structured = {
        "uri": DOC_B,
        "docid": "#abc",
        "content": LAUNCH,
        "totalLines": len(DOC_B_LINES) + 1,  # GNO counts the line after the final newline
        "returnedLines": {"start": 5, "end": 5},
        "source": _source(tiny_fixture, DOC_B),
    }
    outcome = _parse(scope, "get", {"uri": DOC_B, "fromLine": 5, "lineCount": 1}, structured)
    assert [(e.startLine, e.text) for e in outcome.result.evidence] == [(5, LAUNCH)]


def test_a_whole_document_multi_get_yields_every_line(
    tiny_fixture: Fixture, scope: CallScope
) -> None:
    content = "\n".join(DOC_B_LINES) + "\n"
    source = {k: v for k, v in _source(tiny_fixture, DOC_B).items() if k != "sourceHash"}
    structured = {
        "documents": [
            {
                "uri": DOC_B,
                "docid": "#abc",
                "content": content,
                "totalLines": len(DOC_B_LINES) + 1,
                "truncated": False,
                "source": source,
            }
        ],
        "skipped": [],
        "meta": {"requested": 1, "returned": 1, "skipped": 0},
    }
    outcome = _parse(scope, "multi_get", {"uris": [DOC_B]}, structured)
    assert [e.text for e in outcome.result.evidence] == DOC_B_LINES


def test_a_gno_tool_without_a_mapped_field_is_a_schema_mismatch() -> None:
    def tool(name: str, *fields: str) -> types.Tool:
        schema = {"type": "object", "properties": {f: {} for f in fields}}
        return types.Tool(name=name, input_schema=schema)

    search = next(b for b in gno.PROFILE.bindings if b.normalized == "search")
    tools = [
        tool("gno_query", *search.required_fields),
        tool("gno_get", "ref", "fromLine", "lineCount"),  # no lineNumbers
        tool("gno_multi_get", "refs", "maxBytes", "lineNumbers"),
    ]
    with pytest.raises(AdapterError) as raised:
        product_tools_fingerprint(gno.PROFILE, tools)
    assert raised.value.code == "tool_schema_mismatch"
    assert "lineNumbers" in str(raised.value)
