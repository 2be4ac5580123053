"""The kit's HTML writer: every text and attribute value is escaped unless it is already markup
(``Html``), so what a backend or an agent wrote reaches a page as text, never as markup."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentic.contract.report import BenchmarkReport
from agentic.report.compare_page import ComparePage, FlipRow, render_compare_html
from agentic.report.html import render_html
from agentic.report.markup import Html, element, escape, join, lines
from agentic.resources import repo_root
from tests.support.page_probe import modules_after_writing_a_page

HOSTILE = "</pre><script>alert(1)</script>"
ESCAPED = "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"


def test_text_is_escaped() -> None:
    assert element("p", "a < b & c > d") == "<p>a &lt; b &amp; c &gt; d</p>"


def test_both_quotes_are_escaped_in_text() -> None:
    assert escape('"it\'s"') == "&#34;it&#39;s&#34;"


def test_an_attribute_value_is_escaped() -> None:
    written = element("a", "x", attrs={"title": "\"><script>'&"})
    assert written == '<a title="&#34;&gt;&lt;script&gt;&#39;&amp;">x</a>'


def test_an_attribute_whose_value_is_none_is_left_out() -> None:
    assert element("td", "x", attrs={"class": None, "id": "c"}) == '<td id="c">x</td>'


def test_an_empty_attribute_value_is_kept() -> None:
    assert element("td", "x", attrs={"class": ""}) == '<td class="">x</td>'


def test_attributes_keep_their_order() -> None:
    assert element("span", attrs={"id": "v", "class": "c"}) == '<span id="v" class="c"></span>'


def test_html_passes_through_as_it_is() -> None:
    assert element("figure", Html("<svg></svg>")) == "<figure><svg></svg></figure>"


def test_escaping_html_leaves_it_as_it_is() -> None:
    markup = element("b", "&")
    assert escape(markup) == "<b>&amp;</b>"


def test_a_written_element_is_html() -> None:
    assert isinstance(element("p", "x"), Html)


def test_a_number_is_written_as_its_text() -> None:
    assert element("td", 12) == "<td>12</td>"


def test_join_escapes_each_part_that_is_not_html() -> None:
    assert join([element("dt", "a"), "<b>"]) == "<dt>a</dt>&lt;b&gt;"


def test_lines_puts_each_part_on_a_line_of_its_own() -> None:
    assert lines([element("li", "a"), "<"]) == "<li>a</li>\n&lt;\n"


def test_a_void_element_has_no_closing_tag() -> None:
    assert element("input", attrs={"type": "search"}) == '<input type="search">'


def test_a_void_element_takes_no_children() -> None:
    with pytest.raises(ValueError, match="takes no children"):
        element("br", "x")


# --- hostile text in the pages ----------------------------------------------------------------


def _small_report() -> dict[str, Any]:
    root = repo_root()
    assert root is not None
    path = root / "baselines" / "optional" / "openai-smollm2" / "report.json"
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def _envelope(value: str) -> dict[str, Any]:
    citation = {
        "endLine": 5,
        "sourceHash": "a" * 64,
        "sourceHashProvenance": "harness_observed",
        "spanHash": "b" * 64,
        "spanHashProvenance": "harness_observed",
        "startLine": 5,
        "uri": "gno://c0e1/a.md",
    }
    claim = {"citations": [citation], "claimKey": "k", "value": {"type": "string", "value": value}}
    return {
        "abstained": False,
        "claims": [claim],
        "gaps": [],
        "schemaVersion": "1.0",
        "stopReason": "complete",
    }


def test_a_hostile_claim_value_appears_escaped_in_the_report_page() -> None:
    document = _small_report()
    document["receipts"][0]["canonical"]["finalEnvelope"] = _envelope(HOSTILE)
    page = render_html(BenchmarkReport.model_validate(document)).decode("utf-8")
    assert "<script>alert" not in page
    assert ESCAPED in page


def test_a_hostile_tool_result_excerpt_appears_escaped_in_the_report_page() -> None:
    document = _small_report()
    document["receipts"][0]["canonical"]["calls"][0]["result"]["content"] = HOSTILE
    page = render_html(BenchmarkReport.model_validate(document)).decode("utf-8")
    assert "<script>alert" not in page
    assert f'<pre class="excerpt">{ESCAPED}</pre>' in page


def test_a_hostile_reason_appears_escaped_in_the_compare_page() -> None:
    flip = FlipRow("t1", "lexical", "cold", "t-1", "fail", "pass", HOSTILE, "pass")
    page = ComparePage("Compare", "BASE", "NEW", "OK", "pass", "0", (), (), (flip,))
    written = render_compare_html(page).decode("utf-8")
    assert "<script>" not in written
    assert f"<td>{ESCAPED}</td>" in written


def test_writing_a_page_imports_no_template_engine() -> None:
    modules = modules_after_writing_a_page()
    assert [m for m in modules if m.split(".")[0] in ("jinja2", "markupsafe")] == []
