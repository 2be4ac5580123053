"""Strict equality of scope values (``scoring/scope.py``, ``strict_equal``): JSON primitives
compare like JavaScript's ``===``, so a boolean never equals a number and a string never equals
a number, while ``1`` and ``1.0`` are the same JSON number."""

from __future__ import annotations

from typing import Any

import pytest

from agentic.scoring.scope import strict_equal


@pytest.mark.parametrize(
    ("left", "right"), [(True, True), (False, False), (1, 1), (1, 1.0), ("de", "de")]
)
def test_equal_primitives_are_equal(left: Any, right: Any) -> None:
    assert strict_equal(left, right) is True


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (True, False),
        (True, 1),
        (1, True),
        (False, 0),
        (1, 2),
        ("1", 1),
        (1, "1"),
        ("de", "fr"),
        ("de", None),
        (None, None),
        ([1], [1]),
        ({"a": 1}, {"a": 1}),
    ],
)
def test_different_or_non_primitive_values_are_not_equal(left: Any, right: Any) -> None:
    assert strict_equal(left, right) is False
