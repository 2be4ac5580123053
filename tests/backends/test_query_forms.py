"""Query forms (``query_forms.py``): the words a split query asks for, the round-robin merge of
their rankings, and the escaping of the agent's text for a declared query syntax (each checked
against what that syntax reads: SQLite's own FTS5, a model of Lucene's classic lexer)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentic.adapters.mcp.configured import configured_profile, mapping_statements
from agentic.adapters.mcp.profile import CallScope
from agentic.adapters.mcp.query_forms import (
    MAX_WORDS,
    escaped,
    query_words,
    round_robin,
    split_query,
)
from agentic.contract.json_access import object_at
from agentic.contract.strict_json import JsonObject
from tests.support.backends import config_rejection, parse_config, stdio_config
from tests.support.snapshots import make_task, snapshot_from

CONFIG_DIR = Path("/nonexistent")  # building a profile starts nothing
GREP = {"shape": "lines", "pattern": r"^(?P<uri>[^:\n]+):(?P<line>\d+): (?P<text>.*)$"}
TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\0"), max_size=40)
_LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')


def with_search(**changes: Any) -> dict[str, Any]:
    document = stdio_config()
    object_at(document, "tools")["search"] = {
        "name": "find", "arguments": {"query": "q", "collection": "scope"}, "results": GREP,
    } | changes  # fmt: skip
    return document


# -- the words of a split query ------------------------------------------------------------------


def test_words_are_the_querys_pieces_with_punctuation_trimmed_from_their_ends() -> None:
    assert query_words('"north gateway", INC-4827?') == ("north", "gateway", "INC-4827")


def test_a_repeated_word_is_asked_once() -> None:
    assert query_words("status status open") == ("status", "open")


def test_at_most_max_words_are_asked() -> None:
    assert len(query_words(" ".join(f"w{n}" for n in range(20)))) == MAX_WORDS


def test_a_query_with_no_word_is_sent_whole() -> None:
    assert split_query("words", "?? !") == ("?? !",)


def test_an_unsplit_query_is_sent_whole() -> None:
    assert split_query(None, "north gateway") == ("north gateway",)


# -- the merge rule ------------------------------------------------------------------------------


def test_rankings_are_merged_rank_by_rank_in_word_order() -> None:
    merged = round_robin([["a1", "a2", "a3"], ["b1"], ["c1", "c2"]], key=lambda item: item)
    assert merged == ["a1", "b1", "c1", "a2", "c2", "a3"]


def test_a_hit_an_earlier_rank_had_is_dropped() -> None:
    merged = round_robin([["x:1", "x:2"], ["x:1", "y:5"]], key=lambda item: item)
    assert merged == ["x:1", "x:2", "y:5"]


def test_the_merge_keeps_the_first_of_equal_keys() -> None:
    merged = round_robin([[("d", 1, "first")], [("d", 1, "second")]], key=lambda item: item[:2])
    assert merged == [("d", 1, "first")]


@given(st.lists(st.lists(st.integers(0, 9), max_size=6), max_size=4))
def test_the_merge_holds_each_key_once_and_every_key_of_the_rankings(
    rankings: list[list[int]],
) -> None:
    merged = round_robin(rankings, key=lambda item: item)
    assert len(merged) == len(set(merged))
    assert set(merged) == {item for ranking in rankings for item in ranking}


# -- escaping ------------------------------------------------------------------------------------


def _fts5_matches(row: str, query: str) -> bool:
    database = sqlite3.connect(":memory:")
    try:
        database.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        database.execute("INSERT INTO t VALUES (?)", (row,))
        return bool(database.execute("SELECT 1 FROM t WHERE t MATCH ?", (query,)).fetchall())
    finally:
        database.close()


def test_fts5_operators_in_the_agents_text_are_searched_as_text() -> None:
    assert escaped("fts5", 'Status: NOT "open" INC-4827*') == (
        '"Status:" "NOT" """open""" "INC-4827*"'
    )


@given(TEXT)
def test_an_fts5_escaped_query_parses_and_finds_the_text_it_was_made_of(text: str) -> None:
    found = _fts5_matches(text, escaped("fts5", text))  # a syntax error raises here
    assert found or not re.search(r"[^\W_]", text)


def _lucene_terms(query: str) -> list[str] | None:
    """The terms Lucene's classic lexer reads (a ``\\`` makes the next character text); None
    when an operator or a special character is left bare."""
    terms = []
    for token in query.split(" ") if query else []:
        if token in ("AND", "OR", "NOT"):
            return None
        term, escaping = "", False
        for char in token:
            if escaping:
                term, escaping = term + char, False
            elif char == "\\":
                escaping = True
            elif char in _LUCENE_SPECIAL:
                return None
            else:
                term += char
        if escaping:
            return None
        terms.append(term)
    return terms


def test_lucene_field_prefixes_negation_and_fuzziness_are_escaped() -> None:
    assert escaped("lucene", "title:gateway -draft~2") == r"title\:gateway \-draft\~2"


def test_a_lucene_boolean_word_becomes_a_term() -> None:
    assert escaped("lucene", "open AND closed") == r"open \AND closed"


@given(TEXT)
def test_a_lucene_escaped_query_reads_back_as_the_agents_words(text: str) -> None:
    assert _lucene_terms(escaped("lucene", text)) == text.split()


def test_plain_syntax_sends_the_words_alone() -> None:
    assert escaped("plain", 'title:"gateway" -draft~2') == "title gateway draft 2"


@given(TEXT)
def test_a_plain_query_holds_only_words_and_single_spaces(text: str) -> None:
    assert re.fullmatch(r"([^\W_]+( [^\W_]+)*)?", escaped("plain", text))


# -- the config keys -----------------------------------------------------------------------------


def test_query_syntax_applies_to_the_search_sent() -> None:
    config = parse_config(with_search(query_syntax="lucene"))
    snapshot = snapshot_from({"c0a1/a.md": "x\n"})
    binding = configured_profile(config, CONFIG_DIR, snapshot).binding("search")
    assert binding is not None
    scope = CallScope(task=make_task(["c0a1"]), snapshot=snapshot)
    assert binding.map_arguments({"query": "a:b"}, scope)["q"] == r"a\:b"


def test_a_split_query_is_one_ranking_per_word_each_asked_per_collection() -> None:
    config = parse_config(with_search(query_split="words"))
    snapshot = snapshot_from({"c0a1/a.md": "x\n", "c0b2/b.md": "y\n"})
    binding = configured_profile(config, CONFIG_DIR, snapshot).binding("search")
    assert binding is not None and binding.fan_out is not None
    schemas: dict[str, JsonObject] = {"find": {"properties": {"scope": {"type": "string"}}}}
    scope = CallScope(task=make_task(["c0a1", "c0b2"]), snapshot=snapshot, product_schemas=schemas)
    plan = binding.fan_out.split({"query": "north gateway"}, scope)
    assert plan == (
        ({"q": "north", "scope": "c0a1"}, {"q": "north", "scope": "c0b2"}),
        ({"q": "gateway", "scope": "c0a1"}, {"q": "gateway", "scope": "c0b2"}),
    )


def test_query_syntax_and_a_query_transform_are_refused_together() -> None:
    document = with_search(query_syntax="fts5", transforms={"query": "regex_escape"})
    assert "query_syntax and transforms.query both escape" in config_rejection(document)


def test_query_forms_belong_to_the_search() -> None:
    document = with_search()
    document["tools"]["get"] |= {"query_syntax": "fts5"}
    assert "query_syntax is for tools.search only" in config_rejection(document)


def test_a_split_query_needs_replies_the_kit_can_merge() -> None:
    message = config_rejection(with_search(query_split="words", results={"shape": "hits"}))
    assert "merge replies of shape 'records' or 'lines', not 'hits'" in message


def test_an_unknown_query_syntax_is_refused() -> None:
    assert "query_syntax" in config_rejection(with_search(query_syntax="regex"))


def test_a_config_without_query_forms_dumps_as_before() -> None:
    dump = parse_config(with_search()).model_dump(mode="json")
    assert set(dump["tools"]["search"]) == {"name", "arguments", "results"}


def test_the_report_states_how_the_query_reached_the_server() -> None:
    statement = mapping_statements(parse_config(with_search(query_split="words")))["query"]
    assert statement.startswith("asked once per word of the agent's query")


def test_a_split_query_of_one_word_is_sent_trimmed() -> None:
    config = parse_config(with_search(query_split="words"))
    snapshot = snapshot_from({"c0a1/a.md": "x\n"})
    binding = configured_profile(config, CONFIG_DIR, snapshot).binding("search")
    assert binding is not None and binding.fan_out is not None
    scope = CallScope(task=make_task(["c0a1"]), snapshot=snapshot)
    assert binding.fan_out.split({"query": "INC-4827?"}, scope) == (
        ({"q": "INC-4827", "scope": "c0a1"},),
    )
