"""Claim-value normalizers (contract v1.0) and the value-equality rule built on them.

Normalizers only touch strings (and the string items of ``string[]`` values); numbers and
booleans pass through. Two values are equal when their types match and the canonical JSON of
their normalized values is byte-identical, so ``64`` and ``64.0`` agree while ``"64"`` and ``64``
do not. Whitespace, trimming and sorting follow the JavaScript reference (``String#trim``,
``/\\s/``, ``Array#sort``) so both implementations score the same envelope the same way.
"""

from __future__ import annotations

import re

from agentic.contract.canonical import canonical_text
from agentic.contract.envelope import ClaimValue, StringListValue
from agentic.contract.jsrules import JS_WHITESPACE, js_trim, utf16_key
from agentic.contract.oracle import NormalizerId

_JS_WHITESPACE_RUN = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")

# ECMAScript Date Time String Format: a date-only form, optionally followed by a time.
_ISO_DATE_TIME = re.compile(
    r"(?P<year>[+-]\d{6}|\d{4})(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?:T(?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:\.(?P<fraction>\d+))?)?"
    r"(?P<zone>Z|[+-]\d{2}:\d{2})?)?"
)
_MAX_TIME_DAYS = 100_000_000  # ECMAScript time values span +-8.64e15 ms = +-1e8 days
_MINUTES_PER_DAY = 24 * 60


def normalize_scalar(value: object, normalizer: NormalizerId) -> object:
    if not isinstance(value, str):
        return value
    if normalizer == "trim-lower-v1":
        return js_trim(value).lower()
    if normalizer == "identifier-v1":
        return _JS_WHITESPACE_RUN.sub("", js_trim(value).upper())
    if normalizer == "iso-date-v1":
        return iso_date(value)
    return value


def normalize_value(value: ClaimValue, normalizer: NormalizerId) -> object:
    """The JSON value compared for equality: a scalar, or a list of strings."""
    if isinstance(value, StringListValue):
        items = [str(normalize_scalar(item, normalizer)) for item in value.value]
        return sorted(items, key=utf16_key) if normalizer == "string-set-v1" else items
    return normalize_scalar(value.value, normalizer)


def value_correct(expected: ClaimValue, actual: ClaimValue, normalizer: NormalizerId) -> bool:
    if expected.type != actual.type:
        return False
    expected_json = canonical_text(normalize_value(expected, normalizer))
    return canonical_text(normalize_value(actual, normalizer)) == expected_json


def iso_date(text: str) -> str:
    """The UTC calendar date (YYYY-MM-DD) of an ISO date or date-time, else the text unchanged.

    This is ``new Date(Date.parse(v)).toISOString().slice(0, 10)`` for the ECMAScript
    Date Time String Format. Two deliberate choices: a date-time without an offset is read
    as UTC (JavaScript would use the host time zone, which a deterministic scorer must not),
    and the engine-specific fallback formats (e.g. "Sep 14 2026") count as unparseable.
    """
    minutes = _utc_minutes(text)
    if minutes is None:
        return text
    year, month, day = _civil_from_days(minutes // _MINUTES_PER_DAY)
    if 0 <= year <= 9999:
        stamp = f"{year:04d}-{month:02d}-{day:02d}"
    else:
        sign = "-" if year < 0 else "+"
        stamp = f"{sign}{abs(year):06d}-{month:02d}-{day:02d}"
    return stamp[:10]


def _utc_minutes(text: str) -> int | None:
    """Minutes since 1970-01-01T00:00Z of an ISO string, or None when it is not one.

    Seconds and fractions never move the calendar date once the time is valid, so whole
    minutes are enough."""
    match = _ISO_DATE_TIME.fullmatch(text)
    if match is None or match["year"] == "-000000":
        return None
    year = int(match["year"])
    month = int(match["month"] or 1)
    day = int(match["day"] or 1)
    hour, minute = int(match["hour"] or 0), int(match["minute"] or 0)
    second, fraction = int(match["second"] or 0), match["fraction"] or "0"
    if not (1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)):
        return None
    if hour == 24 and (minute, second, int(fraction)) != (0, 0, 0):
        return None
    if hour > 24 or minute > 59 or second > 59:
        return None
    offset = _zone_minutes(match["zone"])
    if offset is None:
        return None
    total = _days_from_civil(year, month, day) * _MINUTES_PER_DAY + hour * 60 + minute - offset
    if abs(total) > _MAX_TIME_DAYS * _MINUTES_PER_DAY:
        return None
    return total


def _zone_minutes(zone: str | None) -> int | None:
    if zone is None or zone == "Z":
        return 0
    hours, minutes = int(zone[1:3]), int(zone[4:6])
    if hours > 23 or minutes > 59:
        return None
    sign = -1 if zone[0] == "-" else 1
    return sign * (hours * 60 + minutes)


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if _is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar (any year, year 0 included)."""
    shifted = year - 1 if month <= 2 else year
    era = shifted // 400
    year_of_era = shifted - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """Inverse of ``_days_from_civil``."""
    shifted = days + 719468
    era = shifted // 146097
    day_of_era = shifted - era * 146097
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    year = year_of_era + era * 400 + (1 if month <= 2 else 0)
    return year, month, day
