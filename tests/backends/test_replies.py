"""Server replies read as claimed hits by a config's ``results`` setting; anything that does not
fit is ``invalid_tool_result`` naming what was missing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp.backend_config import FieldMap, ResultReading
from agentic.adapters.mcp.profile import RawResult
from agentic.adapters.mcp.replies import Hit, read_reply

GREP = ResultReading(shape="lines", pattern=r"^(?P<uri>[^:\n]+):(?P<line>\d+): ?(?P<text>.*)$")
RECORDS = ResultReading(
    shape="records",
    path="result.results",
    fields=FieldMap(uri="file_path", line="start_line", text="content"),
)


def text_reply(text: str) -> RawResult:
    return RawResult(is_error=False, structured=None, text=text)


def structured_reply(value: Any) -> RawResult:
    return RawResult(is_error=False, structured=value, text="")


def test_grep_lines_become_hits_with_their_numbers() -> None:
    reading = read_reply("search", text_reply("Found 2:\na/p.md:5: alpha\nb/q.md:12: beta"), GREP)
    assert reading.hits == (Hit("a/p.md", 5, None, "alpha"), Hit("b/q.md", 12, None, "beta"))
    assert reading.skipped_lines == 1


def test_text_wrapped_as_a_fastmcp_result_is_read() -> None:
    reading = read_reply("search", structured_reply({"result": "a/p.md:1: x"}), GREP)
    assert reading.hits == (Hit("a/p.md", 1, None, "x"),)


def test_a_reply_matching_the_empty_pattern_has_no_hits() -> None:
    empty = GREP.model_copy(update={"empty": "^No matches found"})
    assert read_reply("search", text_reply("No matches found for 'x'"), empty).hits == ()


def test_a_reply_matching_the_error_pattern_is_the_products_failure() -> None:
    failing = ResultReading(shape="document", error=r"^Error: ")
    with pytest.raises(AdapterCallError) as raised:
        read_reply("get", text_reply("Error: Document not found: a.md"), failing)
    assert (raised.value.code, raised.value.failure_class) == ("tool_call_failed", "product_error")
    assert "Document not found" in str(raised.value)


def test_records_are_found_under_their_path() -> None:
    reply = {"result": {"results": [{"file_path": "a/p.md", "start_line": 3, "content": "x"}]}}
    assert read_reply("search", structured_reply(reply), RECORDS).hits == (
        Hit("a/p.md", 3, None, "x"),
    )


def test_a_path_step_through_json_text_is_followed() -> None:
    inner = json.dumps({"results": [{"file_path": "a/p.md"}]})
    hits = read_reply("search", structured_reply({"result": inner}), RECORDS).hits
    assert hits == (Hit("a/p.md", None, None, None),)


def test_records_from_json_text_without_structured_content() -> None:
    text = json.dumps({"result": {"results": [{"file_path": "a/p.md", "start_line": "7"}]}})
    assert read_reply("search", text_reply(text), RECORDS).hits == (Hit("a/p.md", 7, None, None),)


def test_one_record_instead_of_a_list_is_one_hit() -> None:
    window = ResultReading(
        shape="records", fields=FieldMap(uri="path", line="start_line", end="end_line", text="c")
    )
    reply = {"path": "a/p.md", "start_line": 2, "end_line": 3, "c": "x\ny"}
    assert read_reply("get", structured_reply(reply), window).hits == (Hit("a/p.md", 2, 3, "x\ny"),)


def test_a_missing_path_names_the_step_that_failed() -> None:
    with pytest.raises(AdapterCallError) as raised:
        read_reply("search", structured_reply({"result": {}}), RECORDS)
    assert raised.value.code == "invalid_tool_result"
    assert "reply.result has no 'results'" in str(raised.value)


def test_a_record_without_its_uri_field_is_invalid() -> None:
    with pytest.raises(AdapterCallError) as raised:
        read_reply("search", structured_reply({"result": {"results": [{"x": 1}]}}), RECORDS)
    assert "has no 'file_path'" in str(raised.value)


def test_a_whole_document_reply_is_one_hit_of_the_document_asked_for() -> None:
    reading = read_reply("get", text_reply("# T\nbody"), ResultReading(shape="document"))
    assert reading.hits == (Hit(None, None, None, "# T\nbody"),)


def test_numbered_lines_name_no_document() -> None:
    numbered = ResultReading(shape="lines", pattern=r"(?P<line>\d+): (?P<text>.*)")
    hits = read_reply("get", text_reply("1: ---\n2: title: x"), numbered).hits
    assert hits == (Hit(None, 1, None, "---"), Hit(None, 2, None, "title: x"))
