"""RFC 3339 dates and date-times of the contract models (``contract/base.py``): real calendar
days, a mandatory zone, offsets within a day, and a leap second only at 23:59 UTC."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from agentic.contract.base import DateTime, FullDate, is_date_time, is_full_date

VALID_DATE_TIMES = [
    "2026-12-01T10:00:00Z",
    "2026-12-01t10:00:00z",
    "2026-12-01T10:00:00.123456Z",
    "2026-12-01T10:00:00+01:30",
    "2026-12-01T00:00:00-23:59",
    "2026-12-01T23:59:59+23:59",
    "2026-12-31T23:59:60Z",
    "2026-12-31T23:59:60+00:00",
    "2027-01-01T00:59:60+01:00",
    "2026-12-31T22:59:60-01:00",
    "2024-02-29T12:00:00Z",
    "2027-01-01T00:29:60+00:30",
]
INVALID_DATE_TIMES = [
    "2026-12-01T10:00:00",
    "2026-12-01 10:00:00Z",
    "2026-12-01T24:00:00Z",
    "2026-12-01T23:60:00Z",
    "2026-12-01T23:59:61Z",
    "2026-12-01T10:00:00+24:00",
    "2026-12-01T10:00:00+23:60",
    "2026-12-01T10:00:60Z",
    "2026-12-31T23:58:60Z",
    "2026-12-31T23:59:60+01:00",
    "2026-12-31T23:59:60-01:00",
    "2023-02-29T12:00:00Z",
    "2024-02-30T12:00:00Z",
    "2027-01-01T00:30:60+00:30",
    "2026-13-01T12:00:00Z",
    "2026-12-01T10:00:00Z\n",
]


@pytest.mark.parametrize("text", VALID_DATE_TIMES)
def test_a_valid_date_time_is_accepted(text: str) -> None:
    assert is_date_time(text) is True
    assert TypeAdapter(DateTime).validate_python(text) == text


@pytest.mark.parametrize("text", INVALID_DATE_TIMES)
def test_an_invalid_date_time_is_refused(text: str) -> None:
    assert is_date_time(text) is False
    with pytest.raises(ValidationError, match="value must be an RFC 3339 date-time"):
        TypeAdapter(DateTime).validate_python(text)


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("2026-01-31", True),
        ("2026-04-30", True),
        ("2026-04-31", False),
        ("2026-00-01", False),
        ("2026-13-01", False),
        ("2026-01-00", False),
        ("2026-1-01", False),
        ("２０２６-01-01", False),
    ],
)
def test_a_full_date_is_a_real_calendar_day(text: str, valid: bool) -> None:
    assert is_full_date(text) is valid
    if not valid:
        with pytest.raises(ValidationError, match="value must be an RFC 3339 full-date"):
            TypeAdapter(FullDate).validate_python(text)
