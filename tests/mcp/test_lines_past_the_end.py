"""A hit or read claiming lines past the document's end is an invalid tool result, under every
profile (canned product payloads; the real servers are not needed to say so).

``gno://c0b2/d001.md`` has seven lines and ends with a newline: the contract counts 7 lines;
GNO and qmd count the empty one after the final newline too (8), and may claim it, never more.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentic.adapters.base import CallOutcome
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp import gno, reference
from agentic.adapters.mcp.profile import CallScope, McpProfile, ParseInput, RawResult
from agentic.adapters.qmd.results import Resource, get_outcome, multi_get_outcome, search_outcome
from agentic.fixture.loader import Fixture
from tests.support.mcp import DOC_B, DOC_B_LINES, TASK_B
from tests.support.qmd import hit, qmd_file, snippet

LAST = len(DOC_B_LINES)  # 7
LAUNCH = DOC_B_LINES[4]  # line 5


@pytest.fixture
def scope(tiny_fixture: Fixture) -> CallScope:
    return CallScope(task=tiny_fixture.task(TASK_B), snapshot=tiny_fixture.snapshot)


def _parse(
    profile: McpProfile, scope: CallScope, tool: str, arguments: dict[str, Any], structured: Any
) -> CallOutcome:
    binding = profile.binding(tool)
    assert binding is not None
    product = binding.map_arguments(arguments, scope)
    raw = RawResult(is_error=False, structured=structured, text="")
    return profile.parse(ParseInput(tool, arguments, product, scope, raw))


def _refused(call: Any) -> tuple[str, str, str]:
    with pytest.raises(AdapterCallError) as caught:
        call()
    return caught.value.code, caught.value.failure_class, str(caught.value)


# --- mcp-reference ------------------------------------------------------------------------------


def _reference_search(start: int, end: int, text: str) -> dict[str, Any]:
    hit = {"uri": DOC_B, "score": 1.0, "startLine": start, "endLine": end, "text": text}
    return {"query": "launch", "searched": ["c0b2"], "results": [hit]}


def _reference(scope: CallScope, tool: str, arguments: dict[str, Any], structured: Any) -> Any:
    return lambda: _parse(reference.PROFILE, scope, tool, arguments, structured)


def test_a_reference_search_hit_ending_on_the_last_line_is_delivered(scope: CallScope) -> None:
    structured = _reference_search(LAST, LAST, DOC_B_LINES[-1])
    outcome = _reference(scope, "search", {"query": "launch"}, structured)()
    assert outcome.result.status == "ok"


def test_a_reference_search_hit_past_the_end_is_an_invalid_tool_result(scope: CallScope) -> None:
    structured = _reference_search(LAST, LAST + 1, "Approved by the steering group.\nextra")
    code, failure_class, message = _refused(
        _reference(scope, "search", {"query": "launch"}, structured)
    )
    assert (code, failure_class) == ("invalid_tool_result", "harness_error")
    assert f"{DOC_B}, which has {LAST}" in message


def test_a_reference_get_past_the_end_is_an_invalid_tool_result(scope: CallScope) -> None:
    structured = {"uri": DOC_B, "startLine": LAST, "endLine": LAST + 1, "text": "a\nb"}
    arguments = {"uri": DOC_B, "fromLine": LAST, "lineCount": 2}
    code, _, _ = _refused(_reference(scope, "get", arguments, structured))
    assert code == "invalid_tool_result"


def test_a_reference_get_from_past_the_end_serving_nothing_is_delivered(scope: CallScope) -> None:
    structured = {"uri": DOC_B, "startLine": LAST + 3, "endLine": LAST + 2, "text": ""}
    outcome = _reference(scope, "get", {"uri": DOC_B, "fromLine": LAST + 3}, structured)()
    assert (outcome.result.status, outcome.result.evidence) == ("ok", ())


def test_a_reference_multi_get_document_past_the_end_is_an_invalid_tool_result(
    scope: CallScope,
) -> None:
    text = "\n".join([*DOC_B_LINES, "phantom"])
    document = {"uri": DOC_B, "startLine": 1, "endLine": LAST + 1, "truncated": False, "text": text}
    structured = {"requested": 1, "returned": 1, "documents": [document]}
    code, _, _ = _refused(_reference(scope, "multi_get", {"uris": [DOC_B]}, structured))
    assert code == "invalid_tool_result"


# --- gno-mcp ------------------------------------------------------------------------------------


def _gno_source(scope: CallScope) -> dict[str, Any]:
    file = scope.snapshot.by_uri(DOC_B)
    assert file is not None
    identity = {"relPath": file.rel_path, "mime": "text/markdown", "ext": ".md"}
    return {**identity, "sourceHash": file.source_hash}


def _gno_search(scope: CallScope, start: int, end: int) -> dict[str, Any]:
    result = {
        "uri": DOC_B,
        "docid": "#abc",
        "title": "Atlas launch plan",
        "score": 0.8,
        "snippet": LAUNCH,
        "snippetRange": {"startLine": start, "endLine": end},
        "source": _gno_source(scope),
    }
    meta = {"query": "launch", "mode": "bm25", "expanded": False, "reranked": False}
    meta.update({"vectorsUsed": False, "totalResults": 1})
    return {"results": [result], "meta": meta}


def test_a_gno_search_hit_on_the_line_after_the_final_newline_is_delivered(
    scope: CallScope,
) -> None:
    structured = _gno_search(scope, LAST + 1, LAST + 1)
    outcome = _parse(gno.PROFILE, scope, "search", {"query": "launch"}, structured)
    assert outcome.result.status == "ok"


def test_a_gno_search_hit_past_the_end_is_an_invalid_tool_result(scope: CallScope) -> None:
    structured = _gno_search(scope, 5, LAST + 2)
    code, _, _ = _refused(
        lambda: _parse(gno.PROFILE, scope, "search", {"query": "launch"}, structured)
    )
    assert code == "invalid_tool_result"


def test_a_gno_get_range_past_the_end_is_an_invalid_tool_result(scope: CallScope) -> None:
    structured = {
        "uri": DOC_B,
        "docid": "#abc",
        "content": LAUNCH,
        "totalLines": LAST + 1,
        "returnedLines": {"start": 5, "end": LAST + 2},
        "source": _gno_source(scope),
    }
    code, _, _ = _refused(
        lambda: _parse(gno.PROFILE, scope, "get", {"uri": DOC_B, "fromLine": 5}, structured)
    )
    assert code == "invalid_tool_result"


# --- qmd ----------------------------------------------------------------------------------------

QMD_DOC_B = qmd_file("c0b2", "d001.md")


def _qmd_search(scope: CallScope, text: str) -> CallOutcome:
    return search_outcome(
        {"results": [hit(QMD_DOC_B, text, line=5)]},
        scope=scope,
        collections=scope.collections,
        mode="qmd-lex",
        query="launch",
    )


def test_a_qmd_snippet_counting_the_line_after_the_final_newline_is_delivered(
    scope: CallScope,
) -> None:
    outcome = _qmd_search(scope, snippet(LAST, [DOC_B_LINES[-1], ""]))
    assert outcome.result.status == "ok"


def test_a_qmd_snippet_header_past_the_end_is_an_invalid_tool_result(scope: CallScope) -> None:
    code, failure_class, _ = _refused(
        lambda: _qmd_search(scope, snippet(LAST, [DOC_B_LINES[-1]], count=4))
    )
    assert (code, failure_class) == ("invalid_tool_result", "harness_error")


def test_a_qmd_get_serving_lines_past_the_end_is_an_invalid_tool_result(scope: CallScope) -> None:
    resource = Resource(f"qmd://{QMD_DOC_B}", "Approved by the steering group.\nx\ny")
    code, _, _ = _refused(
        lambda: get_outcome([resource], scope=scope, uri=DOC_B, start=LAST, count=None)
    )
    assert code == "invalid_tool_result"


def test_a_qmd_multi_get_document_longer_than_the_source_is_an_invalid_tool_result(
    scope: CallScope,
) -> None:
    resource = Resource(f"qmd://{QMD_DOC_B}", "\n".join([*DOC_B_LINES, "", "phantom"]))
    code, _, _ = _refused(
        lambda: multi_get_outcome([resource], scope=scope, uris=[DOC_B], max_bytes=None)
    )
    assert code == "invalid_tool_result"
