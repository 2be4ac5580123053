"""Normalizing qmd results: snippet headers, evidence only where returned lines equal the
snapshot, scope checks on every result, and the contract's read semantics."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentic.adapters.base import CallOutcome
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.qmd.results import (
    Resource,
    get_outcome,
    multi_get_outcome,
    parse_snippet,
    search_outcome,
)
from agentic.fixture.loader import Fixture
from tests.support.qmd import TASK_A, TASK_B, hit, qmd_file, scope, snippet

DOC_A = "gno://c0a1/d001.md"
DOC_B = "gno://c0b2/d001.md"


def _codes(caught: pytest.ExceptionInfo[AdapterCallError]) -> tuple[str, str]:
    return caught.value.code, caught.value.failure_class


def _search(fixture: Fixture, task_id: str, *hits: dict[str, Any]) -> CallOutcome:
    collections = fixture.task(task_id).corpus.collections
    return search_outcome(
        {"results": list(hits)},
        scope=scope(fixture, task_id),
        collections=collections,
        mode="qmd-lex",
        query="q",
    )


def test_the_snippet_header_gives_the_first_line_not_the_number_prefixes() -> None:
    parsed = parse_snippet(snippet(2, ["", "Incident: INC-4827"]), "s")
    assert (parsed.start, parsed.count, parsed.lines) == (2, 2, ("", "Incident: INC-4827"))


def test_a_crlf_snippet_line_loses_only_its_carriage_return() -> None:
    assert parse_snippet(snippet(3, ["Owner: x\r"]), "s").lines == ("Owner: x",)


@pytest.mark.parametrize(
    "text",
    [
        "1: no header here",
        "@@ -2,1 @@ (1 before, 0 after)\nunnumbered",
        snippet(2, ["a", "b"], count=1),
        snippet(0, ["a"]),
    ],
)
def test_a_malformed_snippet_is_an_invalid_tool_result(text: str) -> None:
    with pytest.raises(AdapterCallError) as caught:
        parse_snippet(text, "s")
    assert _codes(caught) == ("invalid_tool_result", "harness_error")


def test_search_evidence_is_the_snippet_lines_equal_to_the_snapshot(tiny_fixture: Fixture) -> None:
    text = snippet(2, ["", "Incident: INC-4827", "Status: resolved after rollback.", ""])
    outcome = _search(tiny_fixture, TASK_A, hit(qmd_file("c0a1", "d001.md"), text, line=3))
    assert [(e.uri, e.startLine, e.text) for e in outcome.result.evidence] == [
        (DOC_A, 3, "Incident: INC-4827"),
        (DOC_A, 4, "Status: resolved after rollback."),
    ]


def test_a_snippet_line_that_differs_from_the_snapshot_is_no_evidence(
    tiny_fixture: Fixture,
) -> None:
    cut = "Status: resolved af..."  # qmd cuts snippets at 300 characters
    outcome = _search(
        tiny_fixture,
        TASK_A,
        hit(qmd_file("c0a1", "d001.md"), snippet(3, ["Incident: INC-4827", cut])),
    )
    assert [e.startLine for e in outcome.result.evidence] == [3]
    assert outcome.diagnostics


def test_search_content_names_fixture_uris_and_snippet_ranges(tiny_fixture: Fixture) -> None:
    outcome = _search(
        tiny_fixture,
        TASK_A,
        hit(qmd_file("c0a1", "d001.md"), snippet(2, ["", "x"]), score=0.5, line=3),
    )
    assert json.loads(outcome.result.content) == {
        "mode": "qmd-lex",
        "query": "q",
        "results": [{"uri": DOC_A, "score": 0.5, "line": 3, "startLine": 2, "endLine": 3}],
    }
    assert outcome.result.resultRole == "candidates"
    assert outcome.backend_invocations == 0


def test_a_result_naming_a_file_outside_the_tasks_collections_is_refused(
    tiny_fixture: Fixture,
) -> None:
    foreign = hit(qmd_file("c0b2", "d001.md"), snippet(5, ["Launch date: 2026-09-14"]))
    with pytest.raises(AdapterCallError) as caught:
        _search(tiny_fixture, TASK_A, foreign)
    assert _codes(caught) == ("task_scope_violation", "product_error")


def test_a_result_in_an_unknown_qmd_collection_is_refused(tiny_fixture: Fixture) -> None:
    with pytest.raises(AdapterCallError) as caught:
        _search(tiny_fixture, TASK_A, hit("zq0000000000/d001.md", snippet(1, ["# x"])))
    assert _codes(caught) == ("task_scope_violation", "product_error")


def test_a_result_naming_a_document_the_corpus_lacks_is_refused(tiny_fixture: Fixture) -> None:
    with pytest.raises(AdapterCallError) as caught:
        _search(tiny_fixture, TASK_A, hit(qmd_file("c0a1", "d999.md"), snippet(1, ["# x"])))
    assert _codes(caught) == ("unknown_index_document", "product_error")


def test_a_get_serves_lines_from_its_start_with_evidence_for_equal_ones(
    tiny_fixture: Fixture,
) -> None:
    resource = Resource(f"qmd://{qmd_file('c0b2', 'd001.md')}", "Launch date: 2026-09-14\nOwner: x")
    outcome = get_outcome(
        [resource], scope=scope(tiny_fixture, TASK_B), uri=DOC_B, start=5, count=2
    )
    # "Owner: x" differs from the document: a diagnostic, never evidence, so never content.
    assert outcome.result.content == "Launch date: 2026-09-14"
    assert [e.startLine for e in outcome.result.evidence] == [5]


def test_a_get_answered_with_another_document_is_an_invalid_tool_result(
    tiny_fixture: Fixture,
) -> None:
    resource = Resource(f"qmd://{qmd_file('c0b2', 'notes/d002.md')}", "# Atlas launch plan")
    with pytest.raises(AdapterCallError) as caught:
        get_outcome([resource], scope=scope(tiny_fixture, TASK_B), uri=DOC_B, start=1, count=None)
    assert _codes(caught) == ("invalid_tool_result", "harness_error")


def test_a_read_of_a_crlf_document_follows_the_span_rule(tiny_fixture: Fixture) -> None:
    text = "# Atlas launch plan\r\n\r\n## Decision\r\n"
    resource = Resource(f"qmd://{qmd_file('c0b2', 'd001.md')}", text)
    outcome = get_outcome(
        [resource], scope=scope(tiny_fixture, TASK_B), uri=DOC_B, start=1, count=3
    )
    assert outcome.result.content == "# Atlas launch plan\n## Decision"
    assert [e.startLine for e in outcome.result.evidence] == [1, 3]


def test_multi_get_cuts_before_the_line_that_would_pass_max_bytes(tiny_fixture: Fixture) -> None:
    docs = [DOC_B, "gno://c0b2/notes/d002.md"]
    resources = [
        Resource(f"qmd://{qmd_file('c0b2', 'd001.md')}", "# Atlas launch plan\n\n## Decision\n"),
        Resource(f"qmd://{qmd_file('c0b2', 'notes/d002.md')}", "# Atlas launch plan (draft)\n"),
    ]
    budget = len("# Atlas launch plan") + len("## Decision")
    outcome = multi_get_outcome(
        resources, scope=scope(tiny_fixture, TASK_B), uris=docs, max_bytes=budget
    )
    assert outcome.result.content == "# Atlas launch plan\n## Decision"
    assert [(e.uri, e.startLine) for e in outcome.result.evidence] == [(DOC_B, 1), (DOC_B, 3)]


def test_multi_get_must_answer_in_request_order(tiny_fixture: Fixture) -> None:
    docs = ["gno://c0b2/notes/d002.md", DOC_B]
    resources = [
        Resource(f"qmd://{qmd_file('c0b2', 'd001.md')}", "# Atlas launch plan\n"),
        Resource(f"qmd://{qmd_file('c0b2', 'notes/d002.md')}", "# Atlas launch plan (draft)\n"),
    ]
    with pytest.raises(AdapterCallError) as caught:
        multi_get_outcome(resources, scope=scope(tiny_fixture, TASK_B), uris=docs, max_bytes=None)
    assert _codes(caught) == ("invalid_tool_result", "harness_error")
