"""Canonical JSON (RFC 8785) and fingerprints.

Number spelling is checked against a second, independent implementation of ECMAScript's
``Number.prototype.toString`` written here from the specification's rules.
"""

from __future__ import annotations

import hashlib
import json
import random
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.contract.canonical import (
    canonical_bytes,
    canonical_object,
    canonical_text,
    fingerprint,
    sha256_hex,
    stable_pretty_json,
)
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import parse_strict
from tests.support.strategies import finite_floats, json_values, texts


def es_number(value: float) -> str:
    """ECMAScript Number::toString for a finite double (ECMA-262, 6.1.6.1.20)."""
    if value == 0:
        return "0"
    if value < 0:
        return "-" + es_number(-value)
    # repr() is the shortest string that round-trips, which is the digit string ES asks for.
    sign, digit_tuple, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert sign == 0 and isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple))
    k, n = len(digits), len(digits) + exponent  # value = 0.digits * 10**n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


def utf16_units(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


@given(finite_floats)
def test_floats_are_spelled_as_ecmascript_prints_them(value: float) -> None:
    assert canonical_text(value) == es_number(value)


@pytest.mark.parametrize(
    ("value", "spelled"),
    [
        (64.0, "64"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (1e16, "10000000000000000"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "5e-324"),
        (2**53 - 1, "9007199254740991"),
        (-(2**53 - 1), "-9007199254740991"),
    ],
)
def test_number_spellings_match_javascript(value: float, spelled: str) -> None:
    assert canonical_text(value) == spelled


def test_the_rfc_8785_example_canonicalizes_byte_for_byte() -> None:
    # The example input and output of RFC 8785, section 3.2.2 and 3.2.3.
    source = (
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        ' "literals": [null, true, false]}'
    )
    expected = (
        '{"literals":[null,true,false],'
        '"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    )

    assert canonical_bytes(parse_strict(source)) == expected.encode("utf-8")


def test_keys_sort_by_utf16_code_units_not_code_points() -> None:
    # U+1F600 is a surrogate pair (D83D DE00) in UTF-16, so it sorts before U+FF01.
    value = {"\uff01": 1, "\U0001f600": 2, "b": 3, "a": 4, "\u00e9": 5}

    assert canonical_text(value) == '{"a":4,"b":3,"é":5,"😀":2,"！":1}'


@given(st.dictionaries(texts, json_values, max_size=6))
def test_an_object_composed_of_canonical_members_is_its_canonical_bytes(
    value: dict[str, Any],
) -> None:
    members = {key: canonical_bytes(item) for key, item in value.items()}

    assert canonical_object(members) == canonical_bytes(value)


def test_composed_members_sort_by_utf16_code_units() -> None:
    members = {"\uff01": b"1", "\U0001f600": b"2", "a": b"3"}

    assert canonical_object(members) == '{"a":3,"😀":2,"！":1}'.encode()


@given(st.dictionaries(texts, st.integers(0, 9), max_size=8))
def test_object_members_come_out_in_utf16_key_order(value: dict[str, int]) -> None:
    reparsed = json.loads(canonical_bytes(value), object_pairs_hook=list)

    assert [key for key, _ in reparsed] == sorted(value, key=utf16_units)


def test_strings_escape_only_what_json_requires() -> None:
    value = 'quote" backslash\\ slash/ \b\f\n\r\t \x00\x1f \x7f é \u2028 😀'

    assert canonical_text(value) == (
        '"quote\\" backslash\\\\ slash/ \\b\\f\\n\\r\\t \\u0000\\u001f \x7f é \u2028 😀"'
    )


def test_canonical_text_has_no_insignificant_whitespace() -> None:
    assert canonical_text({"b": [1, {"c": None}], "a": True}) == '{"a":true,"b":[1,{"c":null}]}'


@given(json_values)
def test_parsing_the_canonical_bytes_gives_back_the_value(value: Any) -> None:
    assert parse_strict(canonical_bytes(value)) == value


@given(json_values)
def test_canonicalization_is_idempotent(value: Any) -> None:
    once = canonical_bytes(value)

    assert canonical_bytes(parse_strict(once)) == once


@given(json_values)
def test_two_canonicalizations_are_byte_identical(value: Any) -> None:
    assert canonical_bytes(value) == canonical_bytes(value)


@given(st.dictionaries(texts, json_values, max_size=6), st.randoms(use_true_random=False))
def test_key_insertion_order_does_not_change_the_bytes(
    value: dict[str, Any], shuffler: random.Random
) -> None:
    items = list(value.items())
    shuffler.shuffle(items)

    assert canonical_bytes(dict(items)) == canonical_bytes(value)


@given(json_values)
def test_a_fingerprint_is_the_sha256_hex_of_the_canonical_bytes(value: Any) -> None:
    expected = hashlib.sha256(canonical_bytes(value)).hexdigest()

    assert fingerprint(value) == expected
    assert sha256_hex(canonical_text(value)) == expected


def test_a_known_fingerprint() -> None:
    assert (
        fingerprint({"b": 1, "a": [True, None]})
        == hashlib.sha256(b'{"a":[true,null],"b":1}').hexdigest()
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("nan"), "non-finite number at /"),
        ({"a": [float("inf")]}, "non-finite number at /a/0"),
        ({"a/b": {"c~": float("nan")}}, "non-finite number at /a~1b/c~0"),
        (2**53, "integer beyond 2^53-1 at /"),
        ([-(2**53)], "integer beyond 2^53-1 at /0"),
        ((1, 2), "tuple is not a JSON value at /"),
        ({"a": {1, 2}}, "set is not a JSON value at /a"),
        ({1: "a"}, "non-string key 1 at /"),
        ({"a": b"x"}, "bytes is not a JSON value at /a"),
        ("\ud800", "lone surrogate at /"),
        ({"\udc00": 1}, "lone surrogate at /"),
        (Decimal("1.5"), "Decimal is not a JSON value at /"),
    ],
)
def test_non_json_values_raise_instead_of_being_coerced(value: Any, message: str) -> None:
    with pytest.raises(ContractError) as raised:
        canonical_bytes(value)

    assert raised.value.code == "non_json_value"
    assert raised.value.message == message


def test_booleans_stay_booleans_and_are_not_counted_as_large_integers() -> None:
    assert canonical_text([True, False, 1, 0]) == "[true,false,1,0]"


@given(json_values)
def test_stable_pretty_json_has_canonical_order_and_numbers(value: Any) -> None:
    pretty = stable_pretty_json(value)

    assert pretty.endswith("\n")
    assert canonical_bytes(parse_strict(pretty)) == canonical_bytes(value)


def test_stable_pretty_json_prints_integral_floats_as_integers() -> None:
    assert stable_pretty_json({"b": 64.0, "a": 1e21}) == '{\n  "a": 1e+21,\n  "b": 64\n}\n'
