"""Bounded work on a hostile search query: the grammar caps a query's bytes and words
(``fts_query.MAX_QUERY_BYTES`` / ``MAX_QUERY_WORDS``), an index statement stops at its deadline,
and an in-process call that answers after its deadline is a timeout."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agentic.adapters import fts_query, indexed
from agentic.adapters.base import CallOutcome, ok_outcome
from agentic.adapters.capsule_plan import plan_query
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.fts_query import MAX_QUERY_BYTES, MAX_QUERY_WORDS, compile_query
from agentic.adapters.lexical_index import LexicalIndex, build_index
from agentic.contract.strict_json import JsonObject
from tests.support.sessions import call, capsule_session, lexical_session, open_session
from tests.support.snapshots import collections_of, filler, make_task, snapshot_from

SNAPSHOT = snapshot_from({"c001/a.md": "# Plan\n\nThe plan covers the rollout.\n", **filler(4)})


def words(count: int, word: str = "w{}") -> str:
    return " ".join(word.format(i) for i in range(count))


def refusal(query: str) -> str:
    with pytest.raises(AdapterCallError) as raised:
        compile_query(query)
    assert raised.value.code == "invalid_search_query"
    return str(raised.value)


def test_a_query_of_exactly_the_word_cap_compiles() -> None:
    assert compile_query(words(MAX_QUERY_WORDS)).count(" AND ") == MAX_QUERY_WORDS - 1


def test_a_query_of_one_word_over_the_cap_is_an_invalid_search_query() -> None:
    assert f"more than {MAX_QUERY_WORDS} words" in refusal(words(MAX_QUERY_WORDS + 1))


def test_the_words_of_a_phrase_count_toward_the_word_cap() -> None:
    refusal('"' + words(MAX_QUERY_WORDS + 1) + '"')


def test_the_parts_of_a_compound_count_toward_the_word_cap() -> None:
    refusal("-".join(f"w{i}" for i in range(MAX_QUERY_WORDS + 1)))


def test_negated_words_count_toward_the_word_cap() -> None:
    refusal("plan " + words(MAX_QUERY_WORDS, "-w{}"))


def test_a_query_of_exactly_the_byte_cap_compiles() -> None:
    assert compile_query("a" * MAX_QUERY_BYTES) == '"' + "a" * MAX_QUERY_BYTES + '"*'


def test_a_query_over_the_byte_cap_is_an_invalid_search_query() -> None:
    assert f"longer than {MAX_QUERY_BYTES} UTF-8 bytes" in refusal("a" * (MAX_QUERY_BYTES + 1))


def test_the_byte_cap_counts_utf8_bytes_not_characters() -> None:
    refusal("é" * (MAX_QUERY_BYTES // 2 + 1))


def test_a_lexical_search_of_80k_words_is_refused_at_once(tmp_path: Path) -> None:
    with lexical_session(SNAPSHOT, tmp_path / "root") as session:
        started = time.monotonic()
        with pytest.raises(AdapterCallError) as raised:
            call(session, "search", query=words(80_000, "plan"))
        elapsed = time.monotonic() - started
    assert raised.value.code == "invalid_search_query"
    assert elapsed < 1.0


def test_a_capsule_search_of_80k_words_is_refused(tmp_path: Path) -> None:
    with (
        capsule_session(SNAPSHOT, tmp_path / "root") as session,
        pytest.raises(AdapterCallError) as raised,
    ):
        call(session, "search", query=words(80_000))
    assert raised.value.code == "invalid_search_query"


def test_the_capsule_caps_the_query_as_sent_before_normalizing_it() -> None:
    # Whitespace collapses under normalization; the cap still holds the agent's own bytes.
    with pytest.raises(AdapterCallError) as raised:
        plan_query("plan" + " " * MAX_QUERY_BYTES + "rollout", ())
    assert raised.value.code == "invalid_search_query"


def test_a_long_fts_statement_stops_at_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the caps, 30k repeats of one word take many seconds; between rows the progress
    # handler sees the deadline.
    monkeypatch.setattr(fts_query, "MAX_QUERY_WORDS", 10**6)
    monkeypatch.setattr(fts_query, "MAX_QUERY_BYTES", 10**7)
    snapshot = snapshot_from({f"c001/d{i}.md": f"# D{i}\n\nthe plan {i}\n" for i in range(10)})
    build_index(snapshot, tmp_path / "index.sqlite")
    index = LexicalIndex.open(tmp_path / "index.sqlite")
    try:
        started = time.monotonic()
        with pytest.raises(AdapterCallError) as raised:
            index.search(words(30_000, "plan"), "c001", 20, deadline=started + 0.3)
        elapsed = time.monotonic() - started
        # The connection is still usable afterwards: the interrupt did not linger.
        assert [hit.uri for hit in index.search("plan", "c001", 1)] == ["gno://c001/d0.md"]
    finally:
        index.close()
    assert raised.value.code == "tool_timeout"
    assert elapsed < 5.0


def _late_search(
    context: indexed.SearchContext, arguments: JsonObject, deadline: float
) -> CallOutcome:
    time.sleep(0.2)  # a pure-Python stage that never checks the deadline itself
    return ok_outcome("candidates", "{}", [], 1)


def test_an_in_process_answer_after_the_deadline_is_a_tool_timeout(tmp_path: Path) -> None:
    adapter = indexed.IndexedAdapter("late", {"adapter": "late"}, _late_search, SNAPSHOT)
    task = make_task(collections_of(SNAPSHOT))
    with (
        open_session(adapter, SNAPSHOT, tmp_path / "root", task) as session,
        pytest.raises(AdapterCallError) as raised,
    ):
        session.call("search", {"query": "plan"}, timeout_s=0.05)
    assert (raised.value.code, raised.value.failure_class) == ("tool_timeout", "product_error")
