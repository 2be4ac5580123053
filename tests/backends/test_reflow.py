"""Reflowed snippets (``reflowed = true``): text whose whitespace was collapsed and whose ends
were cut mid-line is placed within its document where it occurs once, ambiguous where it occurs
more than once, and the lines it shows are evidence only when enough of each is shown. A config
without the key aligns exactly as before."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.adapters.mcp.reflow import SpanMatch, align_reflowed, reflow_key
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from tests.backends.test_mapped import PAGE, config, lines_of, parse
from tests.support.backends import SERVERS, TIMEOUT_S, attached

DOC = (
    "# Retention policy",
    "",
    "Keep every record for thirty days.",
    "Then   delete them   from the archive.",
    "Backups follow the same rule.",
)


def test_a_snippet_over_three_lines_cut_at_both_ends_shows_the_lines_it_covers() -> None:
    snippet = "…ention policy Keep every record for thirty days. Then delete them from the ar…"
    assert align_reflowed(DOC, snippet) == SpanMatch("aligned", (1, 3, 4))


def test_a_cut_end_showing_few_characters_of_its_line_is_not_evidence() -> None:
    snippet = "…licy Keep every record for thirty days. Then…"
    assert align_reflowed(DOC, snippet) == SpanMatch("aligned", (3,))


def test_a_snippet_cut_mid_word_inside_one_line_is_placed() -> None:
    assert align_reflowed(DOC, "...ery record for thirt...") == SpanMatch("aligned", (3,))


def test_a_snippet_that_occurs_twice_is_ambiguous() -> None:
    twice = (*DOC, *DOC)
    assert align_reflowed(twice, "Keep every record for thirty") == SpanMatch("ambiguous")


def test_the_claimed_line_picks_among_occurrences() -> None:
    twice = (*DOC, *DOC)
    found = align_reflowed(twice, "Keep every record for thirty", claimed=8)
    assert found == SpanMatch("aligned", (8,))


def test_a_snippet_the_document_lacks_is_unmatched() -> None:
    assert align_reflowed(DOC, "Keep every record for forty days.") == SpanMatch("unmatched")


def test_a_key_shorter_than_the_minimum_is_unmatched() -> None:
    assert align_reflowed(DOC, "…the same r…") == SpanMatch("unmatched")


def test_the_key_drops_one_ellipsis_at_each_end_and_collapses_whitespace() -> None:
    assert reflow_key("  …a \t b\n c...  ") == "a b c"


WORDS = [f"word{n:04d}" for n in range(60)]


@given(
    breaks=st.lists(st.booleans(), min_size=len(WORDS) - 1, max_size=len(WORDS) - 1),
    cut=st.tuples(st.integers(0, 600), st.integers(12, 200)),
)
def test_any_window_of_distinct_words_is_placed_on_the_lines_it_shows(
    breaks: list[bool], cut: tuple[int, int]
) -> None:
    # Lines of distinct words: every 12-character window holds a whole word number, so once.
    lines, current = [], [WORDS[0]]
    for word, broken in zip(WORDS[1:], breaks, strict=True):
        if broken:
            lines.append(" ".join(current))
            current = []
        current.append(word)
    lines.append(" ".join(current))
    flat = " ".join(lines)
    start = min(cut[0], len(flat) - 12)
    end = min(start + cut[1], len(flat))
    window = flat[start:end]
    if window != window.strip():
        return  # a snippet's key is trimmed: its cut ends are where its text starts and ends
    found = align_reflowed(lines, f"…{window}…")
    offset, expected = 0, []
    for number, line in enumerate(lines, 1):
        covered = min(end, offset + len(line)) - max(start, offset)
        if covered == len(line) or covered >= 12:
            expected.append(number)
        offset += len(line) + 1
    # A window that shows no line enough to cite it is unmatched, though placed.
    assert found == (SpanMatch("aligned", tuple(expected)) if expected else SpanMatch("unmatched"))


# Through a configured server's replies.


def record(snippet: str) -> str:
    return json.dumps({"hits": [{"path": "c0a1/area/page.md", "snippet": snippet}]})


RECORD = record("…tention Keep records for 30 days. Then…")


def snippets(reflowed: bool | None, path: str = "hits") -> dict[str, Any]:
    results = {
        "shape": "records",
        "path": path,
        "fields": {"uri": "path", "text": "snippet"},
        "reflowed": reflowed,
    }
    return {"results": {key: value for key, value in results.items() if value is not None}}


def test_without_the_key_a_reflowed_snippet_stays_unmatched() -> None:
    outcome = parse(config(snippets(None)), "search", {"query": "x"}, RECORD)
    assert lines_of(outcome) == []
    assert "alignment: 0 aligned, 0 ambiguous, 1 unmatched" in outcome.diagnostics


def test_with_the_key_a_reflowed_snippet_is_evidence_of_the_lines_it_shows() -> None:
    assert PAGE.splitlines()[2] == "Keep records for 30 days."
    outcome = parse(config(snippets(True)), "search", {"query": "x"}, RECORD)
    assert lines_of(outcome) == [("gno://c0a1/area/page.md", 3)]
    assert "alignment: 1 aligned, 0 ambiguous, 0 unmatched" in outcome.diagnostics


WRAPPED = record("Keep records for\n30 days. Then delete")


def test_a_snippet_wrapped_at_other_places_than_the_document_is_placed_whole() -> None:
    outcome = parse(config(snippets(True)), "search", {"query": "x"}, WRAPPED)
    assert lines_of(outcome) == [("gno://c0a1/area/page.md", 3)]  # "Then delete": too little


def test_without_the_key_a_rewrapped_snippet_counts_each_returned_line_unmatched() -> None:
    outcome = parse(config(snippets(None)), "search", {"query": "x"}, WRAPPED)
    assert "alignment: 0 aligned, 0 ambiguous, 2 unmatched" in outcome.diagnostics


@pytest.mark.real_process
def test_reflowed_snippets_from_a_real_server_are_evidence(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    document: JsonObject = {
        "id": "search-only",
        "transport": "stdio",
        "command": [sys.executable, str(SERVERS / "search_only_server.py"), "{corpus}", "snippets"],
        "ids": {"form": "path"},
        "reads": "snapshot",
        "tools": {
            "search": {"name": "search", "arguments": {"query": "query"}}
            | snippets(True, path="result.hits")
        },
    }
    with attached(document, tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "INC-4827"}, timeout_s=TIMEOUT_S)
    # "…ment review Incident: INC-4827 Status: res…": 11 characters of lines 1 and 4 each.
    assert lines_of(outcome) == [("gno://c0a1/d001.md", 3), ("gno://c0a1/d002.md", 3)]
