"""Claim-value normalizers and value equality (contract v1.0, scoring step 6)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from agentic.contract.envelope import ClaimValue
from agentic.scoring.normalizers import iso_date, normalize_value, value_correct

_VALUE = TypeAdapter(ClaimValue)


def value(value_type: str, raw: Any) -> ClaimValue:
    return _VALUE.validate_python({"type": value_type, "value": raw})


def test_exact_keeps_case_and_spaces() -> None:
    assert value_correct(value("string", "Data"), value("string", "Data"), "exact-v1")
    assert not value_correct(value("string", "Data"), value("string", "data"), "exact-v1")
    assert not value_correct(value("string", "Data"), value("string", " Data"), "exact-v1")


def test_trim_lower_ignores_outer_whitespace_and_case() -> None:
    expected = value("string", "Data Platform")
    assert value_correct(expected, value("string", "\u00a0 data platform\n"), "trim-lower-v1")
    assert not value_correct(expected, value("string", "data  platform"), "trim-lower-v1")


def test_trim_follows_javascript_whitespace() -> None:
    # U+FEFF is whitespace to String#trim; U+001F is not (Python's str.strip disagrees on both).
    assert normalize_value(value("string", "\ufeffAb"), "trim-lower-v1") == "ab"
    assert normalize_value(value("string", "\x1fAb"), "trim-lower-v1") == "\x1fab"


def test_identifier_removes_all_whitespace_and_uppercases() -> None:
    expected = value("identifier", "POL-7 A")
    assert normalize_value(value("identifier", " pol-7\ta\u3000"), "identifier-v1") == "POL-7A"
    assert value_correct(expected, value("identifier", "pol - 7a"), "identifier-v1")
    assert not value_correct(expected, value("identifier", "pol-7 b"), "identifier-v1")


def test_iso_date_keeps_a_plain_date() -> None:
    assert value_correct(value("date", "2026-09-14"), value("date", "2026-09-14"), "iso-date-v1")
    assert not value_correct(
        value("date", "2026-09-14"), value("date", "2026-09-15"), "iso-date-v1"
    )


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("2026-09-14", "2026-09-14"),
        ("2026", "2026-01-01"),
        ("2026-09", "2026-09-01"),
        ("2026-09-14T23:30:00-02:00", "2026-09-15"),
        ("2026-09-14T00:10+00:30", "2026-09-13"),
        ("2026-09-14T24:00", "2026-09-15"),
        ("1969-12-31T23:59:59.999Z", "1969-12-31"),
        ("2024-02-29", "2024-02-29"),
    ],
)
def test_iso_date_is_the_utc_calendar_date(text: str, date: str) -> None:
    assert iso_date(text) == date


@pytest.mark.parametrize("text", ["Sep 14 2026", "2026-02-30", "2026-13-01", "14.09.2026", ""])
def test_iso_date_leaves_unparseable_text_unchanged(text: str) -> None:
    assert iso_date(text) == text


def test_string_set_ignores_order() -> None:
    expected = value("string[]", ["beta", "alpha"])
    assert value_correct(expected, value("string[]", ["alpha", "beta"]), "string-set-v1")
    assert not value_correct(expected, value("string[]", ["alpha"]), "string-set-v1")


def test_string_set_sorts_by_utf16_code_units() -> None:
    # By code point U+FF21 < U+1F600, but U+1F600 is the surrogate pair D83D DE00 < FF21,
    # and JavaScript's sort compares code units.
    items = value("string[]", ["\uff21", "\U0001f600"])
    assert normalize_value(items, "string-set-v1") == ["\U0001f600", "\uff21"]


def test_a_list_keeps_its_order_without_the_set_normalizer() -> None:
    expected = value("string[]", ["beta", "alpha"])
    assert not value_correct(expected, value("string[]", ["alpha", "beta"]), "exact-v1")


def test_values_of_different_types_never_match() -> None:
    assert not value_correct(value("string", "7"), value("number", 7), "exact-v1")
    assert not value_correct(value("string", "A-1"), value("identifier", "A-1"), "exact-v1")


def test_numbers_compare_by_canonical_json() -> None:
    assert value_correct(value("number", 64), value("number", 64.0), "exact-v1")
    assert not value_correct(value("number", 64), value("number", 64.5), "exact-v1")


def test_booleans_pass_through_every_normalizer() -> None:
    assert value_correct(value("boolean", True), value("boolean", True), "trim-lower-v1")
    assert not value_correct(value("boolean", True), value("boolean", False), "exact-v1")
