"""Tie-breaks of Capsule evidence selection (``adapters/capsule_select.py``): where candidates
are otherwise equal, the documented priority decides, in this order: more facets, lower
retrieval rank, shorter span, then coordinate order (URI by UTF-16 code units, then lines).

Each test sets up two candidates that tie on every earlier key and differ on one, arranged so
that every *later* key would pick the other one: the test fails if that key is skipped. The
order in which ``select`` tries candidates is read from its ``fits`` callback.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentic.adapters.capsule_select import Candidate, select
from agentic.adapters.reads import READ_HASH_REASON
from agentic.contract.receipt import ToolEvidence
from agentic.fixture.snapshot import CorpusFile
from tests.support.snapshots import corpus_file

TEXT = "# Doc\n\nline three\nline four\nline five\nline six\n"
DOC_A = corpus_file("c001", "a.md", TEXT)
DOC_B = corpus_file("c001", "b.md", TEXT)
# U+10000 is D800 DC00 in UTF-16, so it sorts before U+FF21 by code units (by code point it
# would sort after).
DOC_ASTRAL = corpus_file("c001", "\U00010000.md", TEXT)
DOC_FULLWIDTH = corpus_file("c001", "\uff21.md", TEXT)


def candidate(
    file: CorpusFile, line: int, facets: Sequence[str], *, rank: int = 0, end: int | None = None
) -> Candidate:
    last = end or line
    coordinate = file.span_evidence(line, last)
    assert coordinate is not None
    evidence = ToolEvidence(
        **coordinate.model_dump(),
        text="\n".join(file.lines[line - 1 : last]),
        backendSourceHash=None,
        backendSpanHash=None,
        backendHashUnavailableReason=READ_HASH_REASON,
    )
    return Candidate(evidence=evidence, retrieval_rank=rank, facets=tuple(facets))


def taken_order(candidates: Sequence[Candidate]) -> list[tuple[str, int, int]]:
    """(URI, start, end) of each candidate ``select`` tries, in the order it tries them."""
    tried: list[tuple[str, int, int]] = []

    def record(chosen: Sequence[Candidate]) -> bool:
        last = chosen[-1]
        tried.append((last.uri, last.evidence.startLine, last.evidence.endLine))
        return True

    select(candidates, one_call=False, fits=record)
    return tried


def collapse_survivor(candidates: Sequence[Candidate]) -> tuple[str, int, int]:
    """The one candidate left of mutually overlapping ones."""
    selection = select(candidates, one_call=False, fits=lambda _: True)
    assert len(selection.selected) == 1
    kept = selection.selected[0]
    return (kept.uri, kept.evidence.startLine, kept.evidence.endLine)


A, B = "gno://c001/a.md", "gno://c001/b.md"


# --- greedy rounds: equal uncovered facets, then priority --------------------------------------


def test_more_uncovered_facets_beat_every_priority_key() -> None:
    narrow = candidate(DOC_A, 3, ["x"], rank=0)
    wide = candidate(DOC_B, 4, ["y", "z"], rank=9, end=5)

    assert taken_order([narrow, wide])[0] == (B, 4, 5)


def test_with_equal_uncovered_facets_more_facets_in_all_win() -> None:
    # Round 1 takes the three-facet line, covering a; then both rivals add one new facet.
    first = candidate(DOC_B, 6, ["a", "b", "c"])
    more = candidate(DOC_B, 3, ["a", "d"], rank=9, end=4)
    fewer = candidate(DOC_A, 3, ["e"], rank=0)

    assert taken_order([fewer, more, first]) == [(B, 6, 6), (B, 3, 4), (A, 3, 3)]


def test_with_equal_facets_the_lower_retrieval_rank_wins() -> None:
    worse = candidate(DOC_A, 3, ["x"], rank=2)
    better = candidate(DOC_B, 3, ["y"], rank=1, end=4)

    assert taken_order([worse, better]) == [(B, 3, 4), (A, 3, 3)]


def test_with_equal_rank_the_shorter_span_wins() -> None:
    longer = candidate(DOC_A, 3, ["x"], end=4)
    shorter = candidate(DOC_B, 3, ["y"])

    assert taken_order([longer, shorter]) == [(B, 3, 3), (A, 3, 4)]


def test_with_equal_spans_the_earlier_uri_wins() -> None:
    later = candidate(DOC_B, 3, ["x"])
    earlier = candidate(DOC_A, 5, ["y"])

    assert taken_order([later, earlier]) == [(A, 5, 5), (B, 3, 3)]


def test_within_one_uri_the_earlier_line_wins() -> None:
    later = candidate(DOC_A, 5, ["x"])
    earlier = candidate(DOC_A, 3, ["y"])

    assert taken_order([later, earlier]) == [(A, 3, 3), (A, 5, 5)]


def test_uris_compare_by_utf16_code_units() -> None:
    fullwidth = candidate(DOC_FULLWIDTH, 3, ["x"])
    astral = candidate(DOC_ASTRAL, 3, ["y"])

    assert [uri for uri, _, _ in taken_order([fullwidth, astral])] == [
        "gno://c001/\U00010000.md",
        "gno://c001/\uff21.md",
    ]


def test_a_later_round_breaks_ties_by_priority_not_by_the_previous_rounds_order() -> None:
    # Round 2 ranks x_line (2 new facets) above y_line (1: p1 is covered); once q_line covers
    # q1 both add one facet, and y_line's better rank must decide.
    p_line = candidate(DOC_A, 3, ["p1", "p2", "p3", "p4"])
    q_line = candidate(DOC_A, 4, ["q1", "q2", "q3"])
    x_line = candidate(DOC_B, 3, ["q1", "x"], rank=5)
    y_line = candidate(DOC_B, 4, ["p1", "y"], rank=0)

    assert taken_order([p_line, q_line, x_line, y_line]) == [
        (A, 3, 3),
        (A, 4, 4),
        (B, 4, 4),
        (B, 3, 3),
    ]


# --- collapse: which of overlapping candidates survives ----------------------------------------


def test_of_overlapping_candidates_with_equal_facets_the_lower_rank_survives() -> None:
    worse = candidate(DOC_A, 4, ["x"], rank=2)
    better = candidate(DOC_A, 3, ["y"], rank=1, end=4)

    assert collapse_survivor([worse, better]) == (A, 3, 4)


def test_of_overlapping_candidates_with_equal_rank_the_shorter_survives() -> None:
    longer = candidate(DOC_A, 3, ["x"], end=4)
    shorter = candidate(DOC_A, 4, ["y"])

    assert collapse_survivor([longer, shorter]) == (A, 4, 4)


def test_of_overlapping_candidates_of_equal_length_the_earlier_survives() -> None:
    later = candidate(DOC_A, 4, ["x"], end=5)
    earlier = candidate(DOC_A, 3, ["y"], end=4)

    assert collapse_survivor([later, earlier]) == (A, 3, 4)


def test_the_input_order_of_tied_candidates_does_not_matter() -> None:
    one = candidate(DOC_A, 3, ["x"])
    other = candidate(DOC_B, 3, ["y"])

    assert taken_order([one, other]) == taken_order([other, one])
