"""Deterministic answer metrics: regex correctness, refusal, leakage, think tags, numbers."""

from __future__ import annotations

from typing import Any

import pytest

from agentic.generation.metrics import (
    has_think_tag,
    is_refusal,
    leaks_retrieval,
    numbers,
    score_answer,
)
from agentic.ranking.goldens import Golden
from tests.support.goldens import NORTH, golden
from tests.support.tiny_fixture import TASK_A, TASK_C


def answerable(**fields: Any) -> Golden:
    return Golden.model_validate(golden("q", TASK_A, relevantDocIds=[NORTH], **fields))


def refusal(**fields: Any) -> Golden:
    return Golden.model_validate(golden("r", TASK_C, expectRefusal=True, **fields))


def test_correct_needs_every_must_include_pattern() -> None:
    question = answerable(mustInclude=[r"INC-4827", r"rollback"])
    assert score_answer("INC-4827 was rolled back", question, "").correct is False
    assert score_answer("INC-4827, fixed by rollback", question, "").correct is True


def test_patterns_are_case_insensitive() -> None:
    assert score_answer("inc-4827", answerable(mustInclude=["INC-4827"]), "").correct


def test_a_must_not_include_match_makes_an_answer_incorrect() -> None:
    question = answerable(mustInclude=["INC-4827"], mustNotInclude=["INC-5190"])
    assert score_answer("INC-4827 or INC-5190", question, "").correct is False


def test_hedging_on_an_answerable_question_fails_refusal_correctness() -> None:
    score = score_answer("I don't know.", answerable(), "")
    assert (score.refused, score.refusalCorrect, score.passed) == (True, False, False)


def test_declining_an_out_of_corpus_question_passes() -> None:
    score = score_answer("I could not find that.", refusal(), "")
    assert (score.refused, score.refusalCorrect, score.passed) == (True, True, True)


def test_answering_an_out_of_corpus_question_fails() -> None:
    score = score_answer("The budget code is HB-12.", refusal(), "")
    assert (score.refused, score.passed) == (False, False)


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know.",
        "I don\u2019t know.",
        "I cannot answer that.",
        "There is no information about the budget code.",
        "I'm not sure.",
        "I am unable to determine the code.",
    ],
)
def test_refusal_phrasings(answer: str) -> None:
    assert is_refusal(answer)


def test_a_sentence_about_missing_things_is_not_a_refusal() -> None:
    assert not is_refusal("The budget code has not been assigned yet.")


@pytest.mark.parametrize(
    "answer",
    [
        "According to the context, it is INC-4827.",
        "Context 2 says INC-4827.",
        "The knowledge base lists INC-4827.",
        "Based on the provided documents, INC-4827.",
        "The reference text does not say.",
    ],
)
def test_narrating_retrieval_is_leakage(answer: str) -> None:
    assert leaks_retrieval(answer)


def test_a_plain_answer_does_not_leak() -> None:
    assert not leaks_retrieval("The north gateway incident was INC-4827.")


@pytest.mark.parametrize("answer", ["<think>hmm</think>INC-4827", "INC-4827 </thinking>"])
def test_reasoning_tags_are_think_tag_leaks(answer: str) -> None:
    assert has_think_tag(answer)


def test_numbers_keep_only_values_above_ten() -> None:
    assert numbers("step 2 of 3 needs 12 minutes at 121 degrees") == ["12", "121"]


def test_numbers_read_thousands_separators_as_one_number() -> None:
    assert numbers("1,200.50 litres") == ["1200.5"]


def test_numbers_split_a_comma_list() -> None:
    assert numbers("14,15,9") == ["14", "15"]


def test_groundedness_is_the_share_of_numbers_found_in_the_context() -> None:
    score = score_answer("It launches 2026-09-14, costs 4200", answerable(), "Launch: 2026-09-14")
    assert (score.numericClaims, score.groundedClaims) == (3, 2)
    assert score.groundedness == pytest.approx(2 / 3)


def test_an_answer_without_numbers_has_no_groundedness() -> None:
    assert score_answer("Priya Raman", answerable(), "").groundedness is None


def test_numbers_with_no_context_are_ungrounded() -> None:
    assert score_answer("It is INC-4827", answerable(), "").groundedness == 0.0
