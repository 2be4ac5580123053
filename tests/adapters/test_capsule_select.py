"""Capsule planning and ``marginal-facet-coverage-v1`` selection (contract v1, 5.2 steps 1 and 5),
as pure functions on small hand-made candidates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.adapters.capsule_plan import claim_terms, plan_query
from agentic.adapters.capsule_select import (
    Candidate,
    Group,
    Omission,
    Selection,
    select,
    select_groups,
)
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.reads import READ_HASH_REASON
from agentic.contract.receipt import ToolEvidence
from agentic.fixture.snapshot import CorpusFile
from tests.support.snapshots import corpus_file

DOC_A = corpus_file("c001", "a.md", "# A\n\nline two\nline three\nline four\nline five\n")
DOC_B = corpus_file("c001", "b.md", "# B\n\nline two\nline three\n")


def evidence(file: CorpusFile, start: int, end: int | None = None) -> ToolEvidence:
    coordinate = file.span_evidence(start, end or start)
    assert coordinate is not None
    return ToolEvidence(
        **coordinate.model_dump(),
        text="\n".join(file.lines[start - 1 : end or start]),
        backendSourceHash=None,
        backendSpanHash=None,
        backendHashUnavailableReason=READ_HASH_REASON,
    )


def candidate(
    file: CorpusFile, line: int, facets: Sequence[str], rank: int = 0, end: int | None = None
) -> Candidate:
    return Candidate(evidence=evidence(file, line, end), retrieval_rank=rank, facets=tuple(facets))


def always(_: Sequence[Candidate]) -> bool:
    return True


def lines(selected: Sequence[Candidate]) -> list[tuple[str, int, int]]:
    return [(c.uri, c.evidence.startLine, c.evidence.endLine) for c in selected]


def omitted(omissions: Sequence[Omission]) -> list[tuple[str, int, str]]:
    return [(o.candidate.uri, o.candidate.evidence.startLine, o.reason) for o in omissions]


# --- planning -----------------------------------------------------------------------------------


def test_the_planned_query_is_nfkc_with_whitespace_collapsed() -> None:
    assert plan_query("  Ｒetention \t  period ", ()).query == "Retention period"


def test_facets_are_unique_query_and_claim_terms_sorted() -> None:
    plan = plan_query("retention window", ("retentionPeriod", "windowSize"))

    assert plan.facets == ("period", "retention", "size", "window")


def test_claim_keys_split_at_camel_case_boundaries() -> None:
    assert claim_terms("isoDate2026Value") == ["iso", "date2026", "value"]
    assert claim_terms("apiV2Key") == ["api", "v2", "key"]


def test_terms_keep_hyphens_and_underscores_and_drop_other_punctuation() -> None:
    assert plan_query("wi-fi, snake_case! (x)", ()).facets == ("snake_case", "wi-fi")


def test_facets_shorter_than_two_utf16_units_are_dropped() -> None:
    # One astral character is two UTF-16 code units, so it is long enough.
    assert plan_query("a b 𠀀 cd", ()).facets == ("cd", "𠀀")


def test_facets_sort_by_utf16_code_units() -> None:
    # U+20000 is D840 DC00 in UTF-16 and sorts before U+FA0E; by code point it would not.
    assert plan_query("\ufa0e\ufa0e \U00020000", ()).facets == ("\U00020000", "\ufa0e\ufa0e")


def test_variants_are_the_query_the_quoted_query_then_each_quoted_facet() -> None:
    plan = plan_query("Retention period", ("retentionPeriod",))

    assert plan.variants == ("Retention period", '"Retention period"', '"period"', '"retention"')


def test_quoting_a_variant_doubles_inner_quotes() -> None:
    assert plan_query('say "hi" now', ()).variants[1] == '"say ""hi"" now"'


def test_variants_are_unique() -> None:
    assert plan_query("retention", ("retention",)).variants == ("retention", '"retention"')


def test_a_facet_the_query_grammar_cannot_search_is_not_a_variant() -> None:
    plan = plan_query("--- budget", ())

    assert plan.facets == ("---", "budget")
    assert '"---"' not in plan.variants


def test_an_agent_query_the_grammar_rejects_is_an_invalid_search_query() -> None:
    with pytest.raises(AdapterCallError) as raised:
        plan_query('unbalanced "quote', ())

    assert raised.value.code == "invalid_search_query"


# --- selection ----------------------------------------------------------------------------------


def test_a_candidate_without_facets_is_omitted_as_redundant_coverage() -> None:
    selection = select(
        [candidate(DOC_A, 3, ["x"]), candidate(DOC_A, 4, [])], one_call=False, fits=always
    )

    assert lines(selection.selected) == [("gno://c001/a.md", 3, 3)]
    assert omitted(selection.omissions) == [("gno://c001/a.md", 4, "redundant_coverage")]


def test_the_candidate_covering_most_uncovered_facets_is_taken_first() -> None:
    taken: list[list[tuple[str, int, int]]] = []

    def record(chosen: Sequence[Candidate]) -> bool:
        taken.append(lines(chosen))
        return True

    select(
        [candidate(DOC_A, 3, ["x"]), candidate(DOC_A, 4, ["x", "y"]), candidate(DOC_A, 5, ["z"])],
        one_call=False,
        fits=record,
    )

    assert [attempt[-1][1] for attempt in taken] == [4, 5]


def test_a_line_whose_facets_its_document_already_covers_is_redundant() -> None:
    selection = select(
        [candidate(DOC_A, 3, ["x", "y"]), candidate(DOC_A, 4, ["x"])], one_call=False, fits=always
    )

    assert lines(selection.selected) == [("gno://c001/a.md", 3, 3)]
    assert omitted(selection.omissions) == [("gno://c001/a.md", 4, "redundant_coverage")]


def test_coverage_is_per_document_so_a_second_source_is_still_chosen() -> None:
    selection = select(
        [candidate(DOC_A, 3, ["x"]), candidate(DOC_B, 3, ["x"], rank=1000)],
        one_call=False,
        fits=always,
    )

    assert lines(selection.selected) == [("gno://c001/a.md", 3, 3), ("gno://c001/b.md", 3, 3)]
    assert selection.omissions == ()


def test_an_exact_duplicate_of_a_better_ranked_candidate_is_omitted_as_duplicate() -> None:
    selection = select(
        [candidate(DOC_A, 3, ["x"]), candidate(DOC_A, 3, ["x"], rank=1000)],
        one_call=False,
        fits=always,
    )

    assert lines(selection.selected) == [("gno://c001/a.md", 3, 3)]
    assert omitted(selection.omissions) == [("gno://c001/a.md", 3, "duplicate")]


def test_an_overlapping_range_of_the_same_document_is_omitted_as_overlap() -> None:
    selection = select(
        [candidate(DOC_A, 3, ["x", "y"], end=4), candidate(DOC_A, 4, ["z"])],
        one_call=False,
        fits=always,
    )

    assert lines(selection.selected) == [("gno://c001/a.md", 3, 4)]
    assert omitted(selection.omissions) == [("gno://c001/a.md", 4, "overlap")]


def test_of_two_overlapping_candidates_the_one_with_more_facets_survives() -> None:
    # Both cover line 4; the one with more facets survives the collapse.
    selection = select(
        [candidate(DOC_A, 4, ["x"], rank=0), candidate(DOC_A, 3, ["x", "y"], rank=1000, end=4)],
        one_call=False,
        fits=always,
    )

    assert lines(selection.selected) == [("gno://c001/a.md", 3, 4)]
    assert omitted(selection.omissions) == [("gno://c001/a.md", 4, "overlap")]


def test_a_candidate_that_does_not_fit_the_budget_is_omitted_and_selection_goes_on() -> None:
    def small(chosen: Sequence[Candidate]) -> bool:
        return all(c.evidence.startLine != 4 for c in chosen)

    selection = select(
        [candidate(DOC_A, 3, ["x"]), candidate(DOC_A, 4, ["y", "z"]), candidate(DOC_A, 5, ["y"])],
        one_call=False,
        fits=small,
    )

    assert lines(selection.selected) == [("gno://c001/a.md", 3, 3), ("gno://c001/a.md", 5, 5)]
    assert omitted(selection.omissions) == [("gno://c001/a.md", 4, "global_budget")]


def test_a_one_call_task_keeps_only_the_candidates_with_the_most_facets() -> None:
    selection = select(
        [
            candidate(DOC_A, 3, ["x", "y"]),
            candidate(DOC_A, 4, ["z"]),
            candidate(DOC_B, 3, ["x", "z"]),
        ],
        one_call=True,
        fits=always,
    )

    assert lines(selection.selected) == [("gno://c001/a.md", 3, 3), ("gno://c001/b.md", 3, 3)]
    assert omitted(selection.omissions) == [("gno://c001/a.md", 4, "redundant_coverage")]


def test_selected_lines_and_omissions_come_out_in_coordinate_order() -> None:
    selection = select(
        [
            candidate(DOC_B, 4, ["b"]),
            candidate(DOC_A, 6, ["a"]),
            candidate(DOC_A, 5, []),
            candidate(DOC_B, 3, []),
            candidate(DOC_A, 3, ["c"]),
        ],
        one_call=False,
        fits=always,
    )

    assert lines(selection.selected) == [
        ("gno://c001/a.md", 3, 3),
        ("gno://c001/a.md", 6, 6),
        ("gno://c001/b.md", 4, 4),
    ]
    assert omitted(selection.omissions) == [
        ("gno://c001/a.md", 5, "redundant_coverage"),
        ("gno://c001/b.md", 3, "redundant_coverage"),
    ]


def test_no_candidate_gives_an_empty_selection() -> None:
    for one_call in (False, True):
        selection = select([], one_call=one_call, fits=always)
        assert (selection.selected, selection.omissions) == ((), ())


def test_tick_runs_once_per_round_so_a_deadline_can_stop_selection() -> None:
    def expired() -> None:
        raise AdapterCallError("tool_timeout", "product_error")

    with pytest.raises(AdapterCallError):
        select([candidate(DOC_A, 3, ["x"])], one_call=False, fits=always, tick=expired)


# --- the fast selection is the rule, stated plainly ---------------------------------------------


def reference_select(candidates: Sequence[Candidate], *, budget: int) -> Selection:
    """``marginal-facet-coverage-v1`` written as the module docstring states it, with no
    shortcut: an overlap scan per candidate, a full sort and a full redundancy pass per round."""
    kept: list[Candidate] = []
    omissions: list[Omission] = []
    for c in sorted(candidates, key=lambda c: c.priority):
        same = [k.evidence for k in kept if k.uri == c.uri]
        e = c.evidence
        if any(
            (k.startLine, k.endLine, k.spanHash) == (e.startLine, e.endLine, e.spanHash)
            for k in same
        ):
            omissions.append(Omission(c, "duplicate"))
        elif any(k.startLine <= e.endLine and e.startLine <= k.endLine for k in same):
            omissions.append(Omission(c, "overlap"))
        else:
            kept.append(c)
    selected: list[Candidate] = []
    covered_by_uri: dict[str, set[str]] = {}
    covered: set[str] = set()
    remaining = kept
    while True:
        still = []
        for c in remaining:
            if not c.facets or c.facet_set <= covered_by_uri.get(c.uri, set()):
                omissions.append(Omission(c, "redundant_coverage"))
            else:
                still.append(c)
        if not still:
            break
        still.sort(key=lambda c: (-len(c.facet_set - covered), c.priority))
        best, remaining = still[0], still[1:]
        if len(selected) + 1 > budget:
            omissions.append(Omission(best, "global_budget"))
            continue
        selected.append(best)
        covered_by_uri.setdefault(best.uri, set()).update(best.facets)
        covered.update(best.facets)
    return Selection(
        selected=tuple(sorted(selected, key=lambda c: c.coordinate)),
        omissions=tuple(sorted(omissions, key=lambda o: (o.candidate.coordinate, o.reason))),
    )


LONG_DOC = corpus_file("c001", "long.md", "".join(f"line {n}\n" for n in range(1, 13)))
FACETS = ("alpha", "beta", "gamma", "delta")
spans = st.tuples(
    st.sampled_from((DOC_A, DOC_B, LONG_DOC)), st.integers(1, 12), st.integers(0, 3)
).filter(lambda s: s[1] + s[2] <= len(s[0].lines))
drafts = st.lists(
    st.tuples(spans, st.lists(st.sampled_from(FACETS), unique=True), st.integers(0, 3)),
    max_size=25,
)


@given(drafts, st.integers(0, 6))
def test_the_selection_equals_the_rule_as_stated(draft: list[Any], budget: int) -> None:
    pool = [
        candidate(file, start, facets, rank, end=start + extra)
        for (file, start, extra), facets, rank in draft
    ]

    def fits(chosen: Sequence[Candidate]) -> bool:
        return len(chosen) <= budget

    assert select(pool, one_call=False, fits=fits) == reference_select(pool, budget=budget)


@given(drafts, st.integers(0, 6))
def test_stopping_once_nothing_fits_changes_nothing(draft: list[Any], budget: int) -> None:
    pool = [
        candidate(file, start, facets, rank, end=start + extra)
        for (file, start, extra), facets, rank in draft
    ]

    def fits(chosen: Sequence[Candidate]) -> bool:
        return len(chosen) <= budget

    def full(selected: Sequence[Candidate]) -> bool:
        return len(selected) + 1 > budget

    assert select(pool, one_call=False, fits=fits, full=full) == reference_select(
        pool, budget=budget
    )


class CountingGroup(Group):
    """Lines 3.. of LONG_DOC with one facet, counting the members built."""

    __slots__ = ("built",)

    def __init__(self) -> None:
        super().__init__(LONG_DOC.uri, frozenset({"alpha"}), 8)
        self.built = 0

    def member(self, index: int) -> Candidate:
        self.built += 1
        return candidate(LONG_DOC, 3 + index, ["alpha"])

    def floor(self, index: int) -> tuple[Any, ...]:
        return (-1,)


def test_a_group_builds_only_the_members_selection_reaches() -> None:
    group = CountingGroup()

    outcome = select_groups([group], fits=lambda chosen: chosen[-1].evidence.startLine >= 5)

    assert [c.evidence.startLine for c in outcome.selected] == [5]
    assert group.built == 3
    assert (outcome.count("global_budget"), outcome.count("redundant_coverage")) == (2, 5)
