"""The ``iso-date-v1`` normalizer (``scoring/normalizers.py``, ``iso_date``): the UTC calendar
date of an ECMAScript date-time string, as ``new Date(Date.parse(v)).toISOString().slice(0, 10)``
gives it (an offset-less time read as UTC), and the text unchanged when it is not a valid one.

Within years 1-9999 Python's ``datetime`` is the reference; outside them (year 0, negative and
six-digit years, the limits of an ECMAScript time value) the expected strings are JavaScript's.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from agentic.contract.envelope import ClaimValue
from agentic.scoring.normalizers import iso_date, normalize_scalar, normalize_value

MOMENTS = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30))
OFFSETS = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59)


def zone(offset_minutes: int) -> str:
    sign = "-" if offset_minutes < 0 else "+"
    hours, minutes = divmod(abs(offset_minutes), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


@given(MOMENTS, OFFSETS)
def test_a_date_time_with_an_offset_gives_its_utc_date(moment: datetime, offset: int) -> None:
    utc = moment.replace(tzinfo=UTC) - timedelta(minutes=offset)
    text = f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}{zone(offset)}"

    assert iso_date(text) == utc.date().isoformat()


@given(st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 31)))
def test_a_date_alone_is_that_date(day: date) -> None:
    text = f"{day.year:04d}-{day:%m-%d}"

    assert iso_date(text) == text


@pytest.mark.parametrize(
    ("text", "utc_date"),
    [
        ("2026-07", "2026-07-01"),
        ("2026", "2026-01-01"),
        ("2026-01-01T23:30-01:00", "2026-01-02"),
        ("2026-01-01T00:30+01:00", "2025-12-31"),
        ("2026-01-01T22:30-01:00", "2026-01-01"),
        ("2026-01-01T22:30-01:30", "2026-01-02"),
        ("2026-01-01T00:30+00:31", "2025-12-31"),
        ("2026-01-01T00:00+23:59", "2025-12-31"),
        ("2026-12-31T24:00", "2027-01-01"),
        ("2026-01-01T23:59:59.999Z", "2026-01-01"),
        ("2000-02-29T12:00Z", "2000-02-29"),
        ("2024-02-29T12:00Z", "2024-02-29"),
        ("0000-01-01T12:00Z", "0000-01-01"),
        ("0000-02-29T12:00Z", "0000-02-29"),
        ("9999-12-31T12:00Z", "9999-12-31"),
        ("9999-12-31T23:59-00:01", "+010000-01"),
        ("-000001-12-31", "-000001-12"),
        ("+010000-01-01", "+010000-01"),
        ("+275760-09-13", "+275760-09"),
        ("-271821-04-20", "-271821-04"),
    ],
)
def test_the_utc_date_is_what_javascript_prints(text: str, utc_date: str) -> None:
    assert iso_date(text) == utc_date


@pytest.mark.parametrize(
    "text",
    [
        "1900-02-29T12:00Z",
        "2100-02-29T12:00Z",
        "2023-02-29T12:00Z",
        "2026-04-31T12:00Z",
        "2026-06-31T12:00Z",
        "2026-09-31T12:00Z",
        "2026-11-31T12:00Z",
        "2026-02-30T12:00Z",
        "2026-13-01T12:00Z",
        "2026-00-10T12:00Z",
        "2026-01-00T12:00Z",
        "2026-01-01T24:01",
        "2026-01-01T24:00:01",
        "2026-01-01T25:00",
        "2026-01-01T23:60",
        "2026-01-01T23:59:60",
        "2026-01-01T12:00+24:00",
        "2026-01-01T12:00+23:60",
        "-000000-01-01T12:00Z",
        "+275760-09-13T00:01Z",
        "-271821-04-19T23:59Z",
        "Sep 14 2026",
        "2026-1-01",
    ],
)
def test_text_that_is_no_valid_date_time_is_unchanged(text: str) -> None:
    assert iso_date(text) == text


# Years around every rule of the proleptic Gregorian calendar (4, 100, 400; the epoch). A
# date-time is used throughout: a valid one becomes its date, an invalid one stays as it is.
YEARS = (1, 4, 99, 100, 101, 399, 400, 401, 1582, 1600, 1700, 1900, 1969, 1970, 2000, 2100, 9999)
LENGTHS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def days_in(year: int, month: int) -> int:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 29 if month == 2 and leap else LENGTHS[month - 1]


@pytest.mark.parametrize("year", YEARS)
def test_the_first_and_last_day_of_every_month_are_valid_dates(year: int) -> None:
    for month in range(1, 13):
        for day in (1, days_in(year, month)):
            stamp = f"{year:04d}-{month:02d}-{day:02d}"
            assert iso_date(f"{stamp}T12:00Z") == stamp


@pytest.mark.parametrize("year", YEARS)
def test_the_day_after_the_last_of_a_month_is_no_date(year: int) -> None:
    for month in range(1, 13):
        text = f"{year:04d}-{month:02d}-{days_in(year, month) + 1:02d}T12:00Z"
        assert iso_date(text) == text


def test_the_normalizer_applies_only_under_its_own_id() -> None:
    assert normalize_scalar("2026-01-01T23:30-01:00", "iso-date-v1") == "2026-01-02"
    assert normalize_scalar("2026-01-01T23:30-01:00", "exact-v1") == "2026-01-01T23:30-01:00"


def test_each_item_of_a_string_list_is_normalized() -> None:
    value = TypeAdapter(ClaimValue).validate_python(
        {"type": "string[]", "value": [" B ", "2026-01-01T23:30-01:00"]}
    )

    assert normalize_value(value, "trim-lower-v1") == ["b", "2026-01-01t23:30-01:00"]
    assert normalize_value(value, "iso-date-v1") == [" B ", "2026-01-02"]


def test_a_non_string_passes_through() -> None:
    assert normalize_scalar(20260101, "iso-date-v1") == 20260101
