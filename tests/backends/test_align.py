"""Aligning a server's returned text with the snapshot document: a line or a block is placed
only where the snapshot holds that very text (or, for a cut preview, a line starting with it),
and a place that cannot be told apart from another is ambiguous, never guessed."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.adapters.mcp.align import (
    BlockAlignment,
    LineMatch,
    align_block,
    align_line,
    preview_key,
)
from agentic.contract.jsrules import JS_WHITESPACE, is_blank, js_trim

LONG = "the quick brown fox jumps over the lazy dog"
OTHER = "a completely different sentence of text"


def aligned(number: int, *, exact: bool) -> LineMatch:
    return LineMatch("aligned", number, exact)


AMBIGUOUS = LineMatch("ambiguous", None, False)
UNMATCHED = LineMatch("unmatched", None, False)


# One line: exact text.


def test_a_blank_line_is_never_evidence() -> None:
    assert align_line(["", "  "], "  ", claimed=2) == UNMATCHED


def test_a_line_at_its_claimed_number_is_aligned_there_exactly() -> None:
    assert align_line(["x", LONG], LONG, claimed=2) == aligned(2, exact=True)


def test_a_verified_claim_picks_among_repeated_lines() -> None:
    assert align_line(["}", "x", "}"], "}", claimed=3) == aligned(3, exact=True)


def test_a_line_found_once_is_aligned_there_whatever_was_claimed() -> None:
    assert align_line(["x", "y", "z"], "z", claimed=1) == aligned(3, exact=True)


def test_a_repeated_line_is_ambiguous_when_the_claim_points_elsewhere() -> None:
    assert align_line(["}", "x", "}"], "}", claimed=2) == AMBIGUOUS


def test_a_repeated_line_without_a_claim_is_ambiguous() -> None:
    assert align_line(["}", "}"], "}") == AMBIGUOUS


@pytest.mark.parametrize("claimed", [0, -1, 3])
def test_a_claim_outside_the_document_is_ignored(claimed: int) -> None:
    assert align_line(["x", "y"], "y", claimed=claimed) == aligned(2, exact=True)


def test_a_short_line_found_nowhere_is_unmatched() -> None:
    assert align_line(["x", "y"], "z") == UNMATCHED


# One line: previews.


def test_a_cut_preview_is_aligned_to_the_line_it_starts() -> None:
    assert align_line(["x", LONG], LONG[:20]) == aligned(2, exact=False)


@pytest.mark.parametrize("ellipsis", ["...", "\u2026"])
def test_a_preview_ending_in_an_ellipsis_is_matched_without_it(ellipsis: str) -> None:
    assert align_line([LONG], LONG[:20] + ellipsis) == aligned(1, exact=False)


def test_a_trimmed_preview_matches_an_indented_line() -> None:
    assert align_line(["    " + LONG], LONG) == aligned(1, exact=False)


def test_a_whole_line_without_its_trailing_whitespace_is_a_preview() -> None:
    assert align_line([LONG + "  "], LONG) == aligned(1, exact=False)


def test_a_preview_with_collapsed_whitespace_matches() -> None:
    assert align_line(["the  quick\tbrown   fox"], "the quick brown fox") == aligned(1, exact=False)


def test_a_preview_shorter_than_the_minimum_is_unmatched() -> None:
    assert align_line([LONG], LONG[:11]) == UNMATCHED


def test_the_minimum_preview_length_is_a_parameter() -> None:
    assert align_line([LONG], LONG[:3], min_preview=3) == aligned(1, exact=False)


def test_whitespace_inside_a_preview_does_not_make_it_long_enough() -> None:
    assert align_line(["a" + " " * 20 + "bc"], "a" + " " * 20 + "b", min_preview=4) == UNMATCHED


def test_an_ellipsis_alone_is_unmatched_even_without_a_minimum() -> None:
    assert align_line(["", LONG], "...", min_preview=0) == UNMATCHED


def test_a_preview_matching_two_lines_is_ambiguous() -> None:
    assert align_line([LONG + " one", LONG + " two"], LONG) == AMBIGUOUS


def test_a_preview_matching_two_lines_is_aligned_at_the_claimed_one() -> None:
    assert align_line([LONG + " one", LONG + " two"], LONG, claimed=2) == aligned(2, exact=False)


def test_a_claim_a_preview_does_not_match_does_not_pick_among_candidates() -> None:
    assert align_line([LONG + " one", OTHER, LONG + " two"], LONG, claimed=2) == AMBIGUOUS


def test_a_preview_found_nowhere_is_unmatched() -> None:
    assert align_line([LONG], OTHER) == UNMATCHED


def test_a_preview_must_match_from_the_start_of_the_line() -> None:
    assert align_line([LONG], LONG[4:]) == UNMATCHED


def test_nothing_fuzzier_than_collapsed_whitespace_matches() -> None:
    assert align_line([LONG], LONG.upper()) == UNMATCHED


def test_a_preview_key_is_trimmed_with_single_spaces() -> None:
    assert preview_key("  a \t\u00a0b  ") == "a b"


def test_a_preview_key_loses_one_trailing_ellipsis_only() -> None:
    assert preview_key("a\u2026...") == "a\u2026"


def test_a_preview_key_is_trimmed_again_after_its_ellipsis() -> None:
    assert preview_key("a \t\u2026") == "a"


# A block.


def test_an_empty_block_maps_nothing() -> None:
    assert align_block(["x"], [], prefer=1) == BlockAlignment((), 0, 0)


def test_a_block_at_its_preferred_line_maps_there_blank_lines_included() -> None:
    document = ["}", "", "}", "", "}"]
    assert align_block(document, ["}", ""], prefer=3) == BlockAlignment((3, 4), 0, 0)


def test_a_block_found_once_maps_there_whatever_was_preferred() -> None:
    assert align_block(["a", "b", "c"], ["b", "c"], prefer=1) == BlockAlignment((2, 3), 0, 0)


def test_a_block_found_twice_and_not_at_the_preferred_line_is_ambiguous() -> None:
    document = ["a", "b", "x", "a", "b"]
    assert align_block(document, ["a", "b"], prefer=2) == BlockAlignment((None, None), 2, 0)


def test_a_block_found_twice_without_a_preferred_line_is_ambiguous() -> None:
    assert align_block(["a", "", "a", ""], ["a", ""]) == BlockAlignment((None, None), 1, 0)


def test_a_document_with_server_added_lines_maps_every_document_line() -> None:
    document = ["# Title", "", "body"]
    returned = ["title: Title", "", *document, "-- served by x"]
    assert align_block(document, returned) == BlockAlignment((None, None, 1, 2, 3, None), 0, 2)


def test_a_server_added_line_equal_to_a_document_line_does_not_displace_it() -> None:
    document = ["---", "title: a", "---", "body"]
    returned = ["---", "source: x", "---", *document]
    alignment = align_block(document, returned)
    assert alignment == BlockAlignment((None, None, None, 1, 2, 3, 4), 0, 3)


def test_a_changed_line_is_unmatched_and_its_neighbours_still_map() -> None:
    alignment = align_block(["a", "b", "c", "d"], ["b", "C", "d"])
    assert alignment == BlockAlignment((2, None, 4), 0, 1)


def test_a_repeated_line_matched_alone_is_ambiguous() -> None:
    alignment = align_block(["}", "a", "}", "b"], ["}", "x", "b"])
    assert alignment == BlockAlignment((None, None, 4), 1, 1)


def test_a_repeated_line_matched_alone_is_aligned_where_prefer_puts_it() -> None:
    alignment = align_block(["}", "a", "}", "b"], ["}", "x"], prefer=3)
    assert alignment == BlockAlignment((3, None), 0, 1)


def test_prefer_does_not_move_a_run_out_of_order() -> None:
    # Line 3 is "}", where prefer puts it; but "a" (line 2) comes after it in the block.
    alignment = align_block(["}", "a", "}"], ["}", "x", "a"], prefer=3)
    assert alignment == BlockAlignment((None, None, 2), 1, 1)


def test_a_run_of_blank_lines_matched_alone_maps_nowhere_and_is_not_counted() -> None:
    alignment = align_block(["a", "", "", "b"], ["x", "", "", "y"])
    assert alignment == BlockAlignment((None, None, None, None), 0, 2)


def test_a_line_found_once_but_out_of_order_stays_unmatched() -> None:
    alignment = align_block(["a", "b", "c"], ["c", "x", "a", "b"])
    assert alignment == BlockAlignment((None, None, 1, 2), 0, 2)


def test_a_block_from_another_document_is_unmatched() -> None:
    assert align_block(["a", "b"], ["x", "", "y"]) == BlockAlignment((None, None, None), 0, 2)


def test_a_block_against_an_empty_document_is_unmatched() -> None:
    assert align_block([], ["x", ""], prefer=1) == BlockAlignment((None, None), 0, 1)


def long_document() -> list[str]:
    # Blank and brace lines repeat hundreds of times: the worst case for difflib.
    return [("", "}", f"statement {n}")[n % 3] for n in range(5000)]


HEADER = [f"header {n}" for n in range(20)]


def test_a_long_document_with_header_lines_maps_every_document_line() -> None:
    document = long_document()
    alignment = align_block(document, HEADER + document)
    assert alignment == BlockAlignment((None,) * 20 + tuple(range(1, 5001)), 0, 20)


def test_a_long_document_with_header_lines_and_a_changed_line_maps_every_other_line() -> None:
    document = long_document()
    returned = HEADER + document
    returned[20 + 2501] = "statement 2501, edited"
    expected = [None] * 20 + list(range(1, 5001))
    expected[20 + 2501] = None
    assert align_block(document, returned) == BlockAlignment(tuple(expected), 0, 21)


# Properties.

# A small alphabet, so that lines repeat and previews collide.
document_lines = st.text(alphabet="ab .\t\u2026", max_size=8)
documents = st.lists(document_lines, max_size=12)
claims = st.none() | st.integers(min_value=-1, max_value=14)
# Lines a server adds: never a line of a document drawn above (each has a letter they lack).
server_lines = st.sampled_from(["", "---", "title: x", "# Header", "source: server"])


def collapsed(text: str) -> str:
    return re.sub(f"[{re.escape(JS_WHITESPACE)}]+", " ", text)


@st.composite
def returned_texts(draw: st.DrawFn, document: list[str]) -> str:
    """A document line as a server might show it (whole, trimmed, cut, with an ellipsis), or
    any line at all."""
    if not document or draw(st.booleans()):
        return draw(document_lines)
    line = draw(st.sampled_from(document))
    cut = line[: draw(st.integers(min_value=0, max_value=len(line)))]
    shown = draw(st.sampled_from([line, js_trim(line), cut, js_trim(cut), collapsed(cut)]))
    return shown + draw(st.sampled_from(["", "...", "\u2026"]))


@given(st.data(), documents, claims, st.integers(min_value=0, max_value=4))
def test_every_aligned_line_is_the_snapshot_line_or_a_preview_of_it(
    data: st.DataObject, document: list[str], claimed: int | None, min_preview: int
) -> None:
    text = data.draw(returned_texts(document))
    match = align_line(document, text, claimed, min_preview=min_preview)
    assert (match.verdict == "aligned") == (match.number is not None)
    if match.number is None:
        return
    line = document[match.number - 1]
    if match.exact:
        assert line == text
    else:
        key = preview_key(text)
        assert len(key) >= max(min_preview, 1)
        assert collapsed(js_trim(line)).startswith(key)


@given(documents, st.data())
def test_a_line_at_its_claimed_number_is_aligned_there(
    document: list[str], data: st.DataObject
) -> None:
    if not document:
        return
    number = data.draw(st.integers(min_value=1, max_value=len(document)))
    match = align_line(document, document[number - 1], claimed=number)
    assert match == (UNMATCHED if is_blank(document[number - 1]) else aligned(number, exact=True))


@given(documents, st.none() | st.just(1))
def test_a_document_aligned_with_itself_maps_every_line_to_itself(
    document: list[str], prefer: int | None
) -> None:
    alignment = align_block(document, document, prefer)
    assert alignment == BlockAlignment(tuple(range(1, len(document) + 1)), 0, 0)


@given(documents.filter(lambda lines: not all(map(is_blank, lines))), st.lists(server_lines))
def test_prepending_header_lines_never_changes_the_mapping_of_the_documents_lines(
    document: list[str], header: list[str]
) -> None:
    alignment = align_block(document, header + document)
    assert alignment.numbers[len(header) :] == tuple(range(1, len(document) + 1))


@given(documents, st.lists(document_lines | server_lines, max_size=12), claims)
def test_every_mapped_line_is_the_snapshot_line_and_the_order_is_kept(
    document: list[str], returned: list[str], prefer: int | None
) -> None:
    numbers = align_block(document, returned, prefer).numbers
    placed = [(line, number) for line, number in zip(returned, numbers, strict=True) if number]
    assert all(document[number - 1] == line for line, number in placed)
    assert [number for _, number in placed] == sorted({number for _, number in placed})


@given(documents, st.lists(document_lines | server_lines, max_size=12), claims)
def test_every_non_blank_returned_line_is_mapped_ambiguous_or_unmatched(
    document: list[str], returned: list[str], prefer: int | None
) -> None:
    alignment = align_block(document, returned, prefer)
    numbers = zip(returned, alignment.numbers, strict=True)
    solid = [number for line, number in numbers if not is_blank(line)]
    mapped = sum(1 for number in solid if number is not None)
    assert mapped + alignment.ambiguous + alignment.unmatched == len(solid)


@given(documents, st.data())
def test_a_window_of_the_document_maps_to_its_place_when_preferred(
    document: list[str], data: st.DataObject
) -> None:
    start = data.draw(st.integers(min_value=1, max_value=len(document) + 1))
    stop = data.draw(st.integers(min_value=start, max_value=len(document) + 1))
    alignment = align_block(document, document[start - 1 : stop - 1], prefer=start)
    assert alignment == BlockAlignment(tuple(range(start, stop)), 0, 0)


@given(documents, document_lines, claims)
def test_a_one_line_block_is_placed_where_its_line_is_exactly(
    document: list[str], text: str, claimed: int | None
) -> None:
    match = align_line(document, text, claimed)
    if match.exact:
        assert align_block(document, [text], claimed).numbers == (match.number,)
