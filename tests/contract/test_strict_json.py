"""The strict JSON parser: exactly one JSON value, nothing that plain ``json`` would let through."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.contract.errors import ContractError
from agentic.contract.strict_json import MAX_DEPTH, parse_strict, parse_strict_object
from tests.support.strategies import claim_keys, json_values


def rejection(data: str | bytes) -> ContractError:
    with pytest.raises(ContractError) as raised:
        parse_strict(data, source="doc.json")
    return raised.value


@st.composite
def documents_with_a_duplicate_key(draw: st.DrawFn) -> tuple[str, str]:
    """JSON text with one object holding a key twice, somewhere inside, and that key's pointer."""
    key = draw(claim_keys)
    duplicated = f'{{"{key}": 1, "{key}": 2}}'
    path: list[str] = []
    text = duplicated
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        if draw(st.booleans()):
            member = draw(claim_keys)
            text = f'{{"{member}": {text}}}'
            path.insert(0, member)
        else:
            text = f"[0, {text}]"
            path.insert(0, "1")
    return text, "/" + "/".join([*path, key])


@given(documents_with_a_duplicate_key())
def test_a_duplicate_key_at_any_depth_is_reported_with_its_json_pointer(
    case: tuple[str, str],
) -> None:
    text, pointer = case

    error = rejection(text)

    assert error.code == "duplicate_key"
    assert error.message.endswith(f"at {pointer}")


def test_a_duplicate_key_pointer_escapes_slash_and_tilde() -> None:
    error = rejection('{"a/b": {"c~d": 1, "c~d": 2}}')

    assert error.message == "doc.json: duplicate key 'c~d' at /a~1b/c~0d"


def test_equal_keys_in_sibling_objects_are_not_duplicates() -> None:
    assert parse_strict('[{"a": 1}, {"a": 2}]') == [{"a": 1}, {"a": 2}]


@given(json_values)
def test_any_json_value_parses_back_to_itself(value: Any) -> None:
    assert parse_strict(json.dumps(value, ensure_ascii=False)) == value


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "[1, NaN]", '{"a": Infinity}'])
def test_non_finite_number_literals_are_rejected(literal: str) -> None:
    error = rejection(literal)

    assert error.code == "malformed_json"
    assert "non-finite" in error.message


@pytest.mark.parametrize("literal", ["1e400", "-1e400", '{"a": [2e308]}'])
def test_a_number_too_large_for_a_double_is_rejected_not_read_as_infinity(literal: str) -> None:
    error = rejection(literal)

    assert error.code == "malformed_json"
    assert "too large for a double" in error.message


def test_an_integer_literal_beyond_2_53_minus_1_is_read_as_a_double() -> None:
    value = parse_strict("[9007199254740991, 9007199254740992, -100000000000000000000]")

    assert value == [9007199254740991, 2.0**53, -1e20]
    assert [type(item) for item in value] == [int, float, float]


def test_an_integer_literal_too_large_for_a_double_is_rejected() -> None:
    assert "too large for a double" in rejection("1" + "0" * 400).message


def test_the_largest_finite_double_is_accepted() -> None:
    assert parse_strict("1.7976931348623157e308") == 1.7976931348623157e308


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('"\\ud800"', "lone surrogate in string at /"),
        ('["ok", "\\udc00"]', "lone surrogate in string at /1"),
        ('{"k": "x\\ud83d"}', "lone surrogate in string at /k"),
        ('{"\\udfff": 1}', "lone surrogate in key at /\udfff"),
    ],
)
def test_lone_surrogates_are_rejected_with_their_pointer(text: str, where: str) -> None:
    error = rejection(text)

    assert error.code == "malformed_json"
    assert error.message == f"doc.json: {where}"


def test_an_escaped_surrogate_pair_is_one_character() -> None:
    assert parse_strict('"\\ud83d\\ude00"') == "\U0001f600"


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1} trailing prose',
        '{"a": 1}{"b": 2}',
        "Here is the JSON: {}",
        "[1, 2,]",
        '{"a": 1,}',
        '{"a": 1 // comment\n}',
        '/* comment */ {"a": 1}',
        "{'a': 1}",
        '{"a": 01}',
        '"tab\tinside"',
        "\ufeff{}",
    ],
)
def test_anything_but_exactly_one_json_value_is_malformed(text: str) -> None:
    assert rejection(text).code == "malformed_json"


@pytest.mark.parametrize("text", ["", " ", "\n\t ", b""])
def test_empty_input_is_rejected(text: str | bytes) -> None:
    error = rejection(text)

    assert error.code == "malformed_json"
    assert error.message == "doc.json: empty input"


def test_bytes_must_be_valid_utf8_and_the_error_names_the_byte() -> None:
    error = rejection(b'{"a": "\xff"}')

    assert error.message == "doc.json: invalid UTF-8 at byte 7"


def test_surrogates_encoded_in_utf8_bytes_are_invalid_utf8() -> None:
    assert "invalid UTF-8" in rejection(b'"\xed\xa0\x80"').message


def test_whitespace_around_the_value_is_allowed() -> None:
    assert parse_strict(b' \n{"a": [true, null]}\n ') == {"a": [True, None]}


def test_nesting_up_to_the_limit_is_accepted() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH

    value = parse_strict(text)

    for _ in range(MAX_DEPTH - 1):
        assert isinstance(value, list)
        value = value[0]
    assert value == []


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100_000])
def test_deeper_nesting_is_one_malformed_json_error_not_a_crash(depth: int) -> None:
    error = rejection('{"a":' * depth + "1" + "}" * depth)

    assert error.code == "malformed_json"
    assert "nesting" in error.message


def test_an_error_message_is_one_line_naming_the_source_and_position() -> None:
    error = rejection('{\n  "a": 1,\n  "b": \n}')

    assert "\n" not in str(error)
    assert error.message.startswith("doc.json: Expecting value at line 4 column 1")


def test_parse_strict_object_requires_an_object_at_the_top() -> None:
    with pytest.raises(ContractError) as raised:
        parse_strict_object("[1]", source="lock.json")

    assert raised.value.message == "lock.json: top-level value must be an object"
    assert parse_strict_object('{"a": 1}') == {"a": 1}
