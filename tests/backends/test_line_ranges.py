"""Line ranges in one string and servers that count lines their own way, read on a snapshot:
``line_offset = "front_matter"`` for a server that stripped the front matter before counting,
an integer for one that counts from elsewhere; the config refuses what cannot be read."""

from __future__ import annotations

from typing import Any

import pytest

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp.backend_config import BackendConfig
from agentic.adapters.mcp.mapped import MappedReplies
from agentic.adapters.mcp.profile import CallScope, ParseInput, RawResult
from agentic.adapters.mcp.replies import line_range
from agentic.adapters.mcp.server_ids import ServerIds, document_ids
from tests.support.backends import config_rejection, parse_config
from tests.support.snapshots import make_task, snapshot_from

PAGE = "---\ntitle: Retention\n---\n# Retention\n\nKeep records for 30 days.\nThen delete them.\n"
SNAPSHOT = snapshot_from({"c0a1/page.md": PAGE})
RECORDS = {"shape": "records", "path": "hits", "fields": {"uri": "file", "lines": "range"}}


def config(results: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "ranged",
        "transport": "stdio",
        "command": ["server"],
        "ids": {"form": "path"},
        "tools": {"search": {"name": "find", "arguments": {"query": "q"}, "results": results}},
    }


def claimed(backend: BackendConfig, reply: str) -> list[int]:
    """The snapshot lines a search reply is evidence of."""
    mapped = MappedReplies(
        config=backend,
        ids=ServerIds(document_ids(backend.id_mapping, SNAPSHOT), lambda root: ""),
        emulated_multi_get=False,
    )
    raw = RawResult(is_error=False, structured=None, text=reply)
    scope = CallScope(task=make_task(["c0a1"]), snapshot=SNAPSHOT)
    outcome = mapped.parse(ParseInput("search", {"query": "x"}, {}, scope, raw, ()))
    return [item.startLine for item in outcome.result.evidence]


def hit(lines: str) -> str:
    return f'{{"hits": [{{"file": "c0a1/page.md", "range": "{lines}"}}]}}'


@pytest.mark.parametrize("text", ["4-6", "L4-L6", "4:6", "4 – 6", "l4-l6"])
def test_each_range_form_reads_as_first_and_last_line(text: str) -> None:
    assert line_range(text, "range") == (4, 6)


def test_a_single_line_is_a_range_of_one() -> None:
    assert line_range("L7", "range") == (7, 7)


@pytest.mark.parametrize("text", ["6-4", "0-2", "four", "4-6-8"])
def test_a_range_that_is_not_one_is_an_invalid_result(text: str) -> None:
    with pytest.raises(AdapterCallError) as raised:
        line_range(text, "range")
    assert raised.value.code == "invalid_tool_result"


def test_a_range_counted_as_the_snapshot_counts_claims_those_lines() -> None:
    assert claimed(parse_config(config(RECORDS)), hit("6-7")) == [6, 7]


def test_a_range_counted_after_stripped_front_matter_is_moved_past_it() -> None:
    backend = parse_config(config(RECORDS | {"line_offset": "front_matter"}))
    assert claimed(backend, hit("3-4")) == [6, 7]


def test_a_fixed_offset_moves_every_range() -> None:
    backend = parse_config(config(RECORDS | {"line_offset": 2}))
    assert claimed(backend, hit("4-5")) == [6, 7]


def test_a_lines_group_reads_a_range_from_text() -> None:
    # No text matched: the hit claims the range's non-blank lines.
    pattern = r"^(?P<uri>\S+) (?P<lines>L\d+-L\d+)(?:: (?P<text>.*))?$"
    backend = parse_config(config({"shape": "lines", "pattern": pattern}))
    assert claimed(backend, "c0a1/page.md L6-L7") == [6, 7]


def test_a_range_and_a_first_line_field_together_are_refused() -> None:
    fields = {"uri": "file", "lines": "range", "line": "start"}
    message = config_rejection(config(RECORDS | {"fields": fields}))
    assert "map it or line/end, not both" in message


def test_an_offset_on_a_shape_without_line_numbers_is_refused() -> None:
    message = config_rejection(config({"shape": "hits", "line_offset": 3}))
    assert "'line_offset' is for shapes 'records' and 'lines'" in message
