"""The strict parser's two paths agree: a document the fast path (no pointers) returns is the
value the pointer-tracking reference path returns, and every document the reference refuses is
refused with the reference's own code and message.

``parse_strict`` hands a document to the reference only when the fast path cannot vouch for it,
so these tests hold each outcome of the public function to the reference's, over generated
documents and over the edges where the two could differ (duplicates, depth, numbers beyond a
double's integers, surrogates, non-finite literals)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic.contract import strict_json
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import MAX_DEPTH, parse_strict
from tests.support.backends import REPO
from tests.support.json_edges import json_documents

PROOF = settings(max_examples=max(300, settings().max_examples))


def outcome(parse: Any, data: str | bytes) -> tuple[str, Any]:
    """What a parse gave: ("value", the value) or ("error", (code, message))."""
    try:
        return "value", parse(data)
    except ContractError as exc:
        return "error", (exc.code, exc.message)


def reference(data: str | bytes) -> Any:
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return strict_json._parse_with_pointers(text, "doc.json")


def public(data: str | bytes) -> Any:
    return parse_strict(data, source="doc.json")


@contextmanager
def reference_path_forbidden() -> Iterator[None]:
    refuse = AssertionError("reference path used")
    with mock.patch.object(strict_json, "_parse_with_pointers", side_effect=refuse):
        yield


EDGES = [
    '{"a": 1, "a": 2}',
    '[{"b": {"c~d": 1, "c~d": 2}}]',
    '{"a": [1, {"x": null, "x": null}], "z": [}',  # a syntax error after a duplicate
    "9007199254740991",
    "9007199254740992",
    "-9007199254740993",
    "[1e400]",
    '{"a": -1e400}',
    "1" * 5000,
    "[NaN]",
    '{"a": Infinity}',
    '"\\ud800"',
    '{"\\udfff": 1}',
    '["\\ud83d\\ude00"]',
    '["\\\\ud800"]',
    '"\ufeff"',
    "\ufeff{}",
    "[" * MAX_DEPTH + "]" * MAX_DEPTH,
    "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
    '{"a":' * MAX_DEPTH + "1" + "}" * MAX_DEPTH,
    '{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1),
    "[" * 100_000,
    "[1, 2,]",
    '{"a": 1} x',
    "-0",
    "-0.0",
    "1.5e-400",
]


@pytest.mark.parametrize("text", EDGES)
def test_an_edge_document_gets_the_reference_outcome(text: str) -> None:
    for data in (text, text.encode("utf-8", errors="surrogatepass")):
        assert outcome(public, data) == outcome(reference, data)


@PROOF
@given(value=json_documents, ascii_only=st.booleans())
def test_a_generated_document_gets_the_reference_outcome(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)

    assert outcome(public, text) == outcome(reference, text)


@PROOF
@given(value=json_documents)
def test_a_document_with_a_key_twice_gets_the_reference_error(value: Any) -> None:
    text = json.dumps({"k": value}, ensure_ascii=False)[:-1] + ', "k": 0}'

    assert outcome(public, text) == outcome(reference, text)
    assert outcome(public, text)[1][0] == "duplicate_key"


def test_a_committed_report_never_takes_the_reference_path() -> None:
    data = (REPO / "baselines" / "fixture-agent" / "report.json").read_bytes()

    with reference_path_forbidden():
        value = parse_strict(data)

    assert value == reference(data)
