"""Shared pydantic configuration and field types of the contract models.

Field names mirror the JSON contract one to one (camelCase), so a model field is found by the
same name as in the schema, the fixture files and the reports, with no alias table in between.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Annotated, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
)

from agentic.contract.strict_json import JsonObject

Str = StrictStr
Bool = StrictBool
Int = StrictInt
Number = StrictInt | StrictFloat  # ints stay ints, so canonical JSON prints 64, not 64.0
Sha256 = Annotated[StrictStr, Field(pattern=r"^[a-f0-9]{64}$")]
TaskId = Annotated[StrictStr, Field(pattern=r"^t[0-9a-f]{7}$")]
ClaimKey = Annotated[StrictStr, Field(pattern=r"^[a-z][a-zA-Z0-9]*$")]
Collection = Annotated[StrictStr, Field(pattern=r"^c[0-9a-f]{3}$")]
ToolName = Annotated[StrictStr, Field(pattern=r"^[a-z][a-z0-9_-]*$")]
NonEmptyStr = Annotated[StrictStr, Field(min_length=1)]
PositiveInt = Annotated[StrictInt, Field(ge=1)]
NonNegativeInt = Annotated[StrictInt, Field(ge=0)]
_T = TypeVar("_T", bound=Hashable)


def _unique(items: tuple[_T, ...]) -> tuple[_T, ...]:
    if len(set(items)) != len(items):
        raise ValueError("items must be unique")
    return items


Unique = AfterValidator(_unique)  # usage: Annotated[tuple[X, ...], Unique]
NonNegativeNumber = Annotated[StrictInt | StrictFloat, Field(ge=0)]

# ASCII digits only and an explicit end anchor: Python's ``\d`` accepts any Unicode digit and
# ``$`` matches before a trailing newline, and neither is RFC 3339.
_FULL_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_DATE_TIME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?"
    r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))"
)
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _is_leap_year(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def is_full_date(text: str) -> bool:
    """RFC 3339 ``full-date`` with real day-of-month checks (2026-02-30 is not a date)."""
    match = _FULL_DATE.fullmatch(text)
    if match is None:
        return False
    year, month, day = (int(group) for group in match.groups())
    if not 1 <= month <= 12:
        return False
    last_day = 29 if month == 2 and _is_leap_year(year) else _DAYS_IN_MONTH[month - 1]
    return 1 <= day <= last_day


def is_date_time(text: str) -> bool:
    """RFC 3339 ``date-time``: full-date, time, and a mandatory zone (``Z`` or ``+hh:mm``).

    A leap second (``:60``) is accepted only where one can occur: at 23:59 UTC.
    """
    match = _DATE_TIME.fullmatch(text)
    if match is None or not is_full_date(match.group(1)):
        return False
    hour, minute, second = int(match.group(2)), int(match.group(3)), int(match.group(4))
    sign, offset_hour, offset_minute = match.group(5), match.group(6), match.group(7)
    offset = 0
    if sign is not None:
        if int(offset_hour) > 23 or int(offset_minute) > 59:
            return False
        offset = (int(offset_hour) * 60 + int(offset_minute)) * (1 if sign == "+" else -1)
    if hour > 23 or minute > 59 or second > 60:
        return False
    if second == 60:
        return (hour * 60 + minute - offset) % (24 * 60) == 23 * 60 + 59
    return True


def _full_date(text: str) -> str:
    if not is_full_date(text):
        raise ValueError("value must be an RFC 3339 full-date")
    return text


def _date_time(text: str) -> str:
    if not is_date_time(text):
        raise ValueError("value must be an RFC 3339 date-time")
    return text


FullDate = Annotated[StrictStr, AfterValidator(_full_date)]
DateTime = Annotated[StrictStr, AfterValidator(_date_time)]


def first_error(exc: ValidationError) -> str:
    """The first value a model refused, as ``/json/pointer: message``: one line of an error."""
    first = exc.errors()[0]
    pointer = "/" + "/".join(str(part) for part in first["loc"])
    return f"{pointer}: {first['msg']}"


class ContractModel(BaseModel):
    """Frozen and closed: unknown fields fail. Scalars use strict types, so nothing is coerced
    (a boolean is never a number); arrays are read into tuples so the models stay immutable."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", validate_by_name=True, validate_by_alias=True, defer_build=True
    )

    def to_json(self) -> JsonObject:
        """The plain JSON value of this model, as it appears on disk."""
        return self.model_dump(mode="json", by_alias=True)
