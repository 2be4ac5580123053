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

from agentic.contract.canonical import canonical_bytes, stable_pretty_json
from agentic.contract.errors import ContractError
from tests.support.json_edges import json_documents

ROOT = Path(__file__).resolve().parents[2]
REPORTS = sorted((ROOT / "baselines").rglob("report.json"))

# The equality property is the proof of the writer, so it explores more than the profile's
# default (and still more under the thorough profile).
PROOF = settings(max_examples=max(300, settings().max_examples))


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
@given(json_documents)
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
