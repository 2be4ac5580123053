"""Configured servers' replies as contract results: the document mapped from the server's id,
the text aligned to the snapshot, scope kept by filtering, reads cut to what was asked."""

from __future__ import annotations

from typing import Any

import pytest

from agentic.adapters.base import CallOutcome
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp.backend_config import BackendConfig, IdMapping, ResultReading
from agentic.adapters.mcp.mapped import MappedReplies
from agentic.adapters.mcp.profile import CallScope, ParseInput, RawResult
from agentic.adapters.mcp.server_ids import ServerIds, document_ids
from tests.support.backends import parse_config
from tests.support.snapshots import make_task, snapshot_from

PAGE = "# Retention\n\nKeep records for 30 days.\nThen delete them.\n"
SNAPSHOT = snapshot_from({
    "c0a1/area/page.md": PAGE,
    "c0a1/area/twice.md": "same line here, twice\nsame line here, twice\n",
    "c0b2/page.md": "Keep records for 30 days.\n",
})  # fmt: skip
GREP = {"shape": "lines", "pattern": r"^(?P<uri>[^:\n]+):(?P<line>\d+): ?(?P<text>.*)$"}


def config(search: dict[str, Any] | None = None, **keys: Any) -> BackendConfig:
    return parse_config({
        "id": "grep", "transport": "stdio", "command": ["server"],
        "ids": {"form": "path"},
        "tools": {
            "search": {"name": "grep", "arguments": {"query": "pattern"}, "results": GREP}
            | (search or {}),
            "get": {"name": "read", "arguments": {"uri": "path"},
                    "results": {"shape": "document"}},
        },
    } | keys)  # fmt: skip


def parse_config_reading(document: dict[str, Any]) -> ResultReading:
    return ResultReading.model_validate(document)


def parse(
    backend: BackendConfig, tool: str, arguments: dict[str, Any], *replies: str
) -> CallOutcome:
    mapped = MappedReplies(
        config=backend,
        ids=ServerIds(document_ids(backend.id_mapping, SNAPSHOT), lambda root: ""),
        emulated_multi_get=True,
    )
    raws = tuple(RawResult(is_error=False, structured=None, text=text) for text in replies)
    scope = CallScope(task=make_task(["c0a1"]), snapshot=SNAPSHOT)
    call = ParseInput(tool, arguments, {}, scope, raws[0], raws if len(raws) > 1 else ())
    return mapped.parse(call)


def lines_of(outcome: CallOutcome) -> list[tuple[str, int]]:
    return [(item.uri, item.startLine) for item in outcome.result.evidence]


def test_a_grep_hit_at_its_line_is_evidence() -> None:
    outcome = parse(config(), "search", {"query": "Keep"}, "c0a1/area/page.md:3: Keep records")
    assert lines_of(outcome) == [("gno://c0a1/area/page.md", 3)]


def test_the_agent_sees_snapshot_uris_and_aligned_lines() -> None:
    outcome = parse(config(), "search", {"query": "x"}, "c0a1/area/page.md:9: Then delete them.")
    assert outcome.result.content == (
        '{"results":[{"endLine":4,"startLine":4,"text":"Then delete them.",'
        '"uri":"gno://c0a1/area/page.md"}]}'
    )


def test_a_preview_that_fits_two_lines_is_ambiguous_and_no_evidence() -> None:
    outcome = parse(config(), "search", {"query": "x"}, "c0a1/area/twice.md:7: same line here")
    assert lines_of(outcome) == []
    assert "alignment: 0 aligned, 1 ambiguous, 0 unmatched" in outcome.diagnostics


def test_a_result_outside_the_tasks_collections_is_dropped_and_counted() -> None:
    outcome = parse(config(), "search", {"query": "Keep"}, "c0b2/page.md:1: Keep records")
    assert outcome.result.content == '{"results":[]}'
    assert "dropped 1 result(s) outside the call's collections" in outcome.diagnostics


def test_a_server_given_the_scope_that_ignores_it_violates_it() -> None:
    scoped = config({"arguments": {"query": "pattern", "collection": "dir"}})
    with pytest.raises(AdapterCallError) as raised:
        parse(scoped, "search", {"query": "Keep"}, "c0b2/page.md:1: Keep records")
    assert raised.value.code == "task_scope_violation"


def test_an_id_the_corpus_lacks_is_an_unknown_document() -> None:
    with pytest.raises(AdapterCallError) as raised:
        parse(config(), "search", {"query": "x"}, "c0a1/nope.md:1: Keep records")
    assert raised.value.code == "unknown_index_document"


def test_search_results_are_cut_to_the_limit() -> None:
    reply = "c0a1/area/page.md:3: Keep records for 30 days.\nc0a1/area/page.md:4: Then delete"
    outcome = parse(config(), "search", {"query": "x", "limit": 1}, reply)
    assert len(lines_of(outcome)) == 1


def test_a_whole_document_with_added_front_matter_aligns_to_the_snapshot() -> None:
    served = "---\ntitle: Retention\npermalink: area/page\n---\n" + PAGE
    outcome = parse(config(), "get", {"uri": "gno://c0a1/area/page.md"}, served)
    assert [line for _, line in lines_of(outcome)] == [1, 3, 4]
    assert outcome.result.content == "# Retention\nKeep records for 30 days.\nThen delete them."


def test_a_ranged_get_of_a_whole_document_is_sliced_by_the_kit() -> None:
    arguments = {"uri": "gno://c0a1/area/page.md", "fromLine": 3, "lineCount": 1}
    outcome = parse(config(), "get", arguments, PAGE)
    assert outcome.result.content == "Keep records for 30 days."


def test_a_get_answered_with_another_document_is_invalid() -> None:
    backend = config()
    backend = backend.model_copy(
        update={"tools": backend.tools.model_copy(update={"get": backend.tools.search})}
    )
    with pytest.raises(AdapterCallError) as raised:
        parse(backend, "get", {"uri": "gno://c0a1/area/page.md"}, "c0a1/area/twice.md:1: x")
    assert raised.value.code == "invalid_tool_result"


def test_an_emulated_multi_get_reads_each_document_and_cuts_at_max_bytes() -> None:
    arguments = {"uris": ["gno://c0a1/area/page.md", "gno://c0a1/area/twice.md"], "maxBytes": 40}
    outcome = parse(config(), "multi_get", arguments, PAGE, "same line here, twice\n" * 2)
    assert outcome.result.content == "# Retention\nKeep records for 30 days."
    assert "multi_get emulated: 2 get calls" in outcome.diagnostics


def test_lines_that_match_nothing_are_counted_unmatched() -> None:
    outcome = parse(config(), "search", {"query": "x"}, "c0a1/area/page.md:2: Not in the page")
    assert "alignment: 0 aligned, 0 ambiguous, 1 unmatched" in outcome.diagnostics


def test_a_hit_with_numbers_and_no_text_claims_its_range() -> None:
    records = {
        "shape": "records",
        "fields": {"uri": "path", "line": "from", "end": "to"},
    }
    outcome = parse(
        config({"results": records}), "search", {"query": "x"},
        '[{"path": "c0a1/area/page.md", "from": 1, "to": 3}]',
    )  # fmt: skip
    assert [line for _, line in lines_of(outcome)] == [1, 3]


def test_id_mapping_defaults_to_uris() -> None:
    assert config(ids={"form": "uri"}).id_mapping == IdMapping()


def test_a_snippet_whose_last_line_was_cut_aligns_that_line_to_the_next() -> None:
    records = {"shape": "records", "fields": {"uri": "path", "text": "snippet"}}
    snippet = "# Retention\\n\\nKeep records for 30"
    reply = f'[{{"path": "c0a1/area/page.md", "snippet": "{snippet}"}}]'
    outcome = parse(config({"results": records}), "search", {"query": "x"}, reply)
    assert [line for _, line in lines_of(outcome)] == [1, 3]
    assert "alignment: 2 aligned, 0 ambiguous, 0 unmatched" in outcome.diagnostics


def test_only_the_hits_within_the_limit_are_aligned_and_counted() -> None:
    reply = "c0a1/area/page.md:3: Keep records for 30 days.\nc0a1/area/page.md:4: Then delete"
    outcome = parse(config(), "search", {"query": "x", "limit": 1}, reply)
    assert "alignment: 1 aligned, 0 ambiguous, 0 unmatched" in outcome.diagnostics


def test_a_document_read_from_a_json_path() -> None:
    reading = {"shape": "document", "path": "result.content"}
    backend = config()
    get = backend.tools.get
    assert get is not None
    backend = backend.model_copy(
        update={
            "tools": backend.tools.model_copy(
                update={"get": get.model_copy(update={"results": parse_config_reading(reading)})}
            )
        }
    )
    content = "# Retention\\n\\nKeep records for 30 days.\\nThen delete them.\\n"
    reply = f'{{"result": {{"content": "{content}"}}}}'
    outcome = parse(backend, "get", {"uri": "gno://c0a1/area/page.md"}, reply)
    assert [line for _, line in lines_of(outcome)] == [1, 3, 4]
