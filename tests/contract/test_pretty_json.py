"""``stable_pretty_json`` gives exactly the text of the indenting ``json.dumps`` it replaces.

It used to be ``json.dumps(json.loads(canonical_bytes(value)), indent=2, ensure_ascii=False)``
and a line break; it now writes that text itself, because ``json.dumps`` leaves its C encoder for
a slow pure-Python one whenever it indents. These tests hold every character to the old formula:
over generated documents weighted towards the characters and numbers whose spelling could
differ, over every committed lane report, and at the deepest nesting the formula could write.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic.contract.canonical import MAX_SAFE_INTEGER, canonical_bytes, stable_pretty_json
from agentic.contract.errors import ContractError

ROOT = Path(__file__).resolve().parents[2]
REPORTS = sorted((ROOT / "baselines").rglob("report.json"))

# The equality property is the proof of the writer, so it explores more than the profile's
# default (and still more under the thorough profile).
PROOF = settings(max_examples=max(300, settings().max_examples))

# Characters JSON escapes (controls, quote, backslash) or copies although they are special
# elsewhere (DEL, U+2028, astral characters, which in keys also change the member order).
_EDGE_CHARACTERS = st.sampled_from(
    [
        *(chr(code) for code in range(0x20)),
        '"',
        "\\",
        "/",
        "\x7f",
        "\x80",
        "\u2028",
        "\u2029",
        "\ue000",
        "\uffff",
        "\U00010000",
        "\U0001f600",
        "\U0010ffff",
    ]
)
texts = st.text(_EDGE_CHARACTERS | st.characters(codec="utf-8"), max_size=10)
ints = st.integers(min_value=-MAX_SAFE_INTEGER, max_value=MAX_SAFE_INTEGER) | st.sampled_from(
    [0, -1, MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER]
)
# Floats the canonical form spells as integers (some beyond 2^53 once reparsed), with an
# exponent, or where Python's own spelling switches to one (1e16, 1e-5).
floats = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [
        0.0,
        -0.0,
        64.0,
        1e15,
        1e16,
        1e20,
        2.0**60,
        1e21,
        1.5e300,
        1.7976931348623157e308,
        1e-5,
        1e-6,
        1e-7,
        5e-324,
        0.1,
        -2.5,
    ]
)
documents = st.recursive(
    st.none() | st.booleans() | ints | floats | texts,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=5),
    max_leaves=24,
)


def dumps_formula(value: object) -> str:
    """What ``stable_pretty_json`` returned before it had its own writer."""
    return json.dumps(json.loads(canonical_bytes(value)), indent=2, ensure_ascii=False) + "\n"


def written(spell: Callable[[object], str], value: object) -> str | None:
    """SPELL's text for VALUE, or None where it runs out of stack."""
    try:
        return spell(value)
    except RecursionError:
        return None


def nested(depth: int, wrap: Callable[[object], object], leaf: object) -> object:
    value = leaf
    for _ in range(depth):
        value = wrap(value)
    return value


@PROOF
@given(documents)
def test_any_json_value_is_spelled_as_the_indenting_dumps_spells_it(value: Any) -> None:
    assert stable_pretty_json(value) == dumps_formula(value)


@pytest.mark.parametrize("path", REPORTS, ids=lambda path: path.parent.name)
def test_every_committed_lane_report_is_spelled_as_the_indenting_dumps_spells_it(
    path: Path,
) -> None:
    report = json.loads(path.read_text(encoding="utf-8"))

    assert stable_pretty_json(report) == dumps_formula(report)


def test_empty_containers_stay_on_one_line() -> None:
    value: dict[str, object] = {"a": {}, "b": [], "c": [{}, []]}

    assert stable_pretty_json(value) == (
        '{\n  "a": {},\n  "b": [],\n  "c": [\n    {},\n    []\n  ]\n}\n'
    )


@pytest.mark.parametrize(("value", "text"), [({}, "{}\n"), ([], "[]\n")])
def test_an_empty_top_level_container_is_one_line(value: object, text: str) -> None:
    assert stable_pretty_json(value) == text


@pytest.mark.parametrize("value", [2**53, float("nan"), "\ud800", {1: "a"}, (1, 2)])
def test_a_value_canonical_bytes_rejects_raises_its_error(value: object) -> None:
    with pytest.raises(ContractError) as expected:
        canonical_bytes(value)
    with pytest.raises(ContractError) as raised:
        stable_pretty_json(value)

    assert (raised.value.code, raised.value.message) == (
        expected.value.code,
        expected.value.message,
    )


@pytest.mark.parametrize(
    ("wrap", "leaf"),
    [
        (lambda inner: [inner], None),
        # An astral key and a float with an exponent: the reference serializer's path.
        (lambda inner: {"\U0001f600": inner}, 1e21),
    ],
    ids=["arrays", "objects-by-the-reference"],
)
def test_the_deepest_nesting_the_formula_writes_is_written_the_same(
    wrap: Callable[[object], object], leaf: object
) -> None:
    low, high = 0, sys.getrecursionlimit()
    while low < high:
        middle = (low + high + 1) // 2
        if written(dumps_formula, nested(middle, wrap, leaf)) is None:
            high = middle - 1
        else:
            low = middle
    deepest = nested(low, wrap, leaf)
    expected = written(dumps_formula, deepest)

    assert expected is not None
    assert written(stable_pretty_json, deepest) == expected


def test_a_value_too_deep_for_the_writer_is_spelled_by_the_indenting_dumps() -> None:
    value = {"b": [1, {"c": None}], "a": "é"}
    with mock.patch(
        "agentic.contract.canonical._write_pretty", side_effect=RecursionError("too deep")
    ):
        assert stable_pretty_json(value) == dumps_formula(value)
