"""Query planning for ``qmd-lex``: natural language becomes lexical sub-queries that keep qmd's
own token grammar and the query's meaning."""

from __future__ import annotations

import pytest

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.qmd.plan import MAX_SUBQUERIES, plan_lex


def test_a_single_content_term_is_sent_as_it_is() -> None:
    assert plan_lex("retention").searches == ("retention",)


def test_several_terms_go_first_together_then_one_by_one() -> None:
    plan = plan_lex("Which incident closed the north gateway?")
    assert plan.searches == (
        "incident closed north gateway?",
        "incident",
        "closed",
        "north",
        "gateway?",
    )


def test_a_quoted_phrase_stays_one_exact_token() -> None:
    plan = plan_lex('"launch date" owner')
    assert plan.searches == ('"launch date" owner', '"launch date"', "owner")


def test_hyphenated_and_dotted_tokens_are_left_to_qmd_grammar() -> None:
    plan = plan_lex("INC-4827 release 2.8.3")
    assert plan.searches[1:] == ("INC-4827", "release", "2.8.3")


def test_a_negation_applies_to_every_sub_query() -> None:
    plan = plan_lex("launch plan -draft")
    assert plan.searches == ("launch plan -draft", "launch -draft", "plan -draft")


def test_repeated_terms_are_sent_once_whatever_their_case() -> None:
    assert plan_lex("Budget budget BUDGET code").searches == ("Budget code", "Budget", "code")


def test_a_query_of_function_words_only_keeps_them() -> None:
    assert plan_lex("what is it").searches == ("what is it", "what", "is", "it")


def test_terms_that_prefix_a_collection_name_are_dropped() -> None:
    plan = plan_lex("zq budget", reserved=("zq12ab34cd56",))
    assert plan.searches == ("budget",)


def test_the_plan_never_exceeds_qmds_sub_query_cap() -> None:
    words = " ".join(f"term{i}" for i in range(15))
    plan = plan_lex(words)
    assert len(plan.searches) == MAX_SUBQUERIES
    assert plan.searches[0] == words


@pytest.mark.parametrize(
    "query",
    ["two\nlines", 'an "unmatched quote', "-only -negations", "?! ..."],
)
def test_a_query_qmd_cannot_run_is_an_invalid_search_query(query: str) -> None:
    with pytest.raises(AdapterCallError) as caught:
        plan_lex(query)
    assert (caught.value.code, caught.value.failure_class) == (
        "invalid_search_query",
        "product_error",
    )
