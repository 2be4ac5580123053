"""The success condition of one score (``scoring/score.py``): success is 1 only when the pair
completed, read nothing unnecessary, searched the expected collection and filters, and ended
without a failure. Each test makes exactly one term false and shows the others still hold, so
dropping any term from the condition fails here.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentic.contract.receipt import Call, CanonicalReceipt
from agentic.contract.report import TaskScore
from tests.support.scoring import (
    COLLECTION,
    make_call,
    make_envelope,
    make_receipt,
    make_result,
    score,
)

SCOPED_SEARCH = {"query": "owner", "collection": COLLECTION, "filters": {"lang": "de"}}
SCOPE = {"collection": COLLECTION, "filters": {"lang": "de"}}


def search(arguments: dict[str, Any]) -> Call:
    result = make_result([], role="candidates", content="[]")
    return make_call(0, result, tool="search", arguments=arguments)


def receipt(arguments: dict[str, Any] = SCOPED_SEARCH, **overrides: Any) -> CanonicalReceipt:
    """A scoped search, then the read the claim cites: a pair that succeeds under SCOPE."""
    return make_receipt([search(arguments), make_call(1)], **overrides)


def scoped_score(made: CanonicalReceipt, **oracle: Any) -> TaskScore:
    return score(made, **(SCOPE | oracle))


def terms(result: TaskScore) -> dict[str, Any]:
    return {
        "completed": result.completed,
        "unnecessaryRead": result.unnecessaryRead,
        "collectionCorrect": result.collectionCorrect,
        "filtersCorrect": result.filtersCorrect,
    }


ALL_HOLD = {
    "completed": True,
    "unnecessaryRead": False,
    "collectionCorrect": True,
    "filtersCorrect": True,
}


def test_a_pair_meeting_every_term_succeeds() -> None:
    result = scoped_score(receipt())

    assert (result.success, terms(result)) == (1, ALL_HOLD)


def test_an_incomplete_pair_does_not_succeed() -> None:
    stopped = receipt(envelope=make_envelope(stop_reason="budget_exhausted"))

    result = scoped_score(stopped)

    assert (result.success, terms(result)) == (0, ALL_HOLD | {"completed": False})


def test_an_unnecessary_read_does_not_succeed() -> None:
    result = scoped_score(receipt(), max_calls=1)

    assert (result.success, terms(result)) == (0, ALL_HOLD | {"unnecessaryRead": True})


def test_a_search_outside_the_expected_collection_does_not_succeed() -> None:
    result = scoped_score(receipt({"query": "owner", "filters": {"lang": "de"}}))

    assert (result.success, terms(result)) == (0, ALL_HOLD | {"collectionCorrect": False})


def test_a_search_without_the_expected_filters_does_not_succeed() -> None:
    result = scoped_score(receipt({"query": "owner", "collection": COLLECTION}))

    assert (result.success, terms(result)) == (0, ALL_HOLD | {"filtersCorrect": False})


@pytest.mark.parametrize(
    ("failure_class", "code"), [("agent_error", "agent_timeout"), ("product_error", "tool_timeout")]
)
def test_a_failed_pair_does_not_succeed_even_with_a_complete_envelope(
    failure_class: str, code: str
) -> None:
    # The failure term cannot be false alone: a failed receipt that still carries an envelope
    # breaks the accounting invariant, so the pair is not complete either.
    failed = receipt(failure_class=failure_class, failure_code=code)

    result = scoped_score(failed)

    assert (result.success, terms(result)) == (0, ALL_HOLD | {"completed": False})
    assert result.invalidOutputs == ("failure_envelope_invariant_invalid",)
