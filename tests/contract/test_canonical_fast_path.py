"""The canonicalizer's fast path gives exactly the bytes of the reference, ``rfc8785``.

``canonical_bytes`` hands most values to the C JSON encoder instead of ``rfc8785``; these tests
hold every output byte to the reference's, over generated documents weighted towards the
characters and numbers where the two could differ, and over every code point exhaustively.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic.contract.canonical import canonical_bytes, canonical_text
from agentic.contract.errors import ContractError
from tests.support.json_edges import (
    fast_path_documents,
    finite_floats,
    json_documents,
    safe_ints,
    texts,
)

# The byte-equality properties are the proof of the fast path, so they explore more than the
# profile's default (and still more under the thorough profile).
PROOF = settings(max_examples=max(300, settings().max_examples))


@contextmanager
def reference_serializer_forbidden() -> Iterator[None]:
    with mock.patch.object(rfc8785, "dumps", side_effect=AssertionError("reference used")):
        yield


def rejection(value: Any) -> ContractError:
    with pytest.raises(ContractError) as raised:
        canonical_bytes(value)
    return raised.value


@PROOF
@given(json_documents)
def test_canonical_bytes_equal_the_reference_for_any_json_document(value: Any) -> None:
    assert canonical_bytes(value) == rfc8785.dumps(value)


@PROOF
@given(fast_path_documents)
def test_float_free_documents_with_bmp_keys_equal_the_reference(value: Any) -> None:
    assert canonical_bytes(value) == rfc8785.dumps(value)


@given(fast_path_documents)
def test_float_free_documents_with_bmp_keys_never_reach_the_reference(value: Any) -> None:
    with reference_serializer_forbidden():
        canonical_bytes(value)


@PROOF
@given(st.dictionaries(texts, safe_ints, min_size=2, max_size=8))
def test_objects_with_astral_and_private_use_keys_order_members_like_the_reference(
    value: dict[str, int],
) -> None:
    assert canonical_bytes(value) == rfc8785.dumps(value)


@PROOF
@given(finite_floats)
def test_every_finite_float_is_spelled_as_the_reference_spells_it(value: float) -> None:
    assert canonical_bytes(value) == rfc8785.dumps(value)


@PROOF
@given(st.lists(finite_floats, max_size=8))
def test_floats_inside_containers_are_spelled_as_the_reference_spells_them(
    value: list[float],
) -> None:
    assert canonical_bytes({"numbers": value}) == rfc8785.dumps({"numbers": value})


def test_every_code_point_in_a_string_is_escaped_or_copied_like_the_reference() -> None:
    every = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)

    assert canonical_bytes(every) == rfc8785.dumps(every)


def test_every_bmp_code_point_as_a_key_sorts_like_the_reference() -> None:
    value = {chr(code): code for code in range(0x10000) if not 0xD800 <= code <= 0xDFFF}

    assert canonical_bytes(value) == rfc8785.dumps(value)


def test_an_astral_key_sorts_before_a_private_use_key_as_utf16_orders_them() -> None:
    assert canonical_text({"\ue000": 1, "\U0001f600": 2}) == '{"\U0001f600":2,"\ue000":1}'


def test_empty_containers_equal_the_reference() -> None:
    value: dict[str, Any] = {"": [], "a": {}, "b": [[], {}], "c": ""}

    assert canonical_bytes(value) == rfc8785.dumps(value)


def test_integral_float_is_spelled_without_a_fraction() -> None:
    assert canonical_text([64.0, -0.0, 1e21, 5e-324]) == "[64,0,1e+21,5e-324]"


def test_integral_floats_within_2_to_the_53_take_the_fast_path_spelled_as_integers() -> None:
    value: dict[str, Any] = {
        "rate": 1.0,
        "nested": [{"ms": 12.0, "zero": -0.0}],
        "big": 1e15,
        "plain": 0.25,
    }
    with reference_serializer_forbidden():
        fast = canonical_bytes(value)

    assert fast == rfc8785.dumps(value)
    assert fast == b'{"big":1000000000000000,"nested":[{"ms":12,"zero":0}],"plain":0.25,"rate":1}'


def test_the_fast_path_leaves_the_callers_value_unchanged() -> None:
    value = {"nested": [1.0, {"ms": 2.0}]}

    canonical_bytes(value)

    assert value == {"nested": [1.0, {"ms": 2.0}]}
    assert type(value["nested"][0]) is float


class _ReversedText(str):
    """A key type whose own ordering is the reverse of the str ordering."""

    __slots__ = ()

    def __lt__(self, other: object) -> bool:
        return isinstance(other, str) and str.__gt__(self, other)


class _Level(enum.IntEnum):
    HIGH = 3


class _Items(list[int]):
    pass


def test_str_subclass_keys_with_their_own_ordering_still_sort_by_utf16() -> None:
    value = {_ReversedText("a"): 1, _ReversedText("b"): 2}

    assert canonical_text(value) == '{"a":1,"b":2}'


def test_subclasses_of_json_types_equal_the_reference() -> None:
    value: dict[str, Any] = {"level": _Level.HIGH, "name": _ReversedText("x"), "items": _Items([1])}

    assert canonical_bytes(value) == rfc8785.dumps(value)


def test_a_non_string_key_is_rejected() -> None:
    error = rejection({"a": {1: "x"}})

    assert (error.code, error.message) == ("non_json_value", "non-string key 1 at /a")


def test_a_tuple_value_is_rejected() -> None:
    error = rejection({"a": [0, (1, 2)]})

    assert (error.code, error.message) == ("non_json_value", "tuple is not a JSON value at /a/1")


def test_nan_is_rejected() -> None:
    error = rejection({"x": [1.5, float("nan")]})

    assert (error.code, error.message) == ("non_json_value", "non-finite number at /x/1")


def test_infinity_is_rejected() -> None:
    error = rejection([float("-inf")])

    assert (error.code, error.message) == ("non_json_value", "non-finite number at /0")


def test_two_to_the_53_is_rejected() -> None:
    error = rejection({"n": 2**53})

    assert (error.code, error.message) == ("non_json_value", "integer beyond 2^53-1 at /n")


def test_minus_two_to_the_53_is_rejected() -> None:
    error = rejection([-(2**53)])

    assert (error.code, error.message) == ("non_json_value", "integer beyond 2^53-1 at /0")


def test_a_lone_surrogate_in_a_string_is_rejected_at_its_pointer() -> None:
    error = rejection({"a/b": ["ok", "x\ud800"]})

    assert (error.code, error.message) == ("non_json_value", "lone surrogate at /a~1b/1")


def test_a_lone_surrogate_in_a_key_is_rejected_at_its_object() -> None:
    error = rejection({"a": {"\udc00": 1}})

    assert (error.code, error.message) == ("non_json_value", "lone surrogate at /a")


def test_a_surrogate_pair_spelled_as_two_code_points_is_rejected() -> None:
    error = rejection("\ud83d\ude00")

    assert (error.code, error.message) == ("non_json_value", "lone surrogate at /")
