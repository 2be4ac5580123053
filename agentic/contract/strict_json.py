"""Strict JSON for every untrusted input.

Python's ``json`` already rejects comments, trailing commas and trailing prose; on top of it this
module rejects what ``json`` lets through: duplicate keys at any depth, NaN/Infinity (spelled out,
or a number literal too large for a double, which ``json`` would turn into infinity), lone
surrogates, empty input and nesting deeper than MAX_DEPTH (which would otherwise end in a
RecursionError). Errors name the JSON pointer of the offending value where one exists.

A JSON number is a double (RFC 8785, I-JSON), so an integer literal beyond 2^53-1 is read as a
double, exactly as a literal with a fraction is, and as JavaScript reads it: the canonical form
spells the double 2^53 as ``9007199254740992``, and that text must parse back to the same number.
Such a value is a float, so a field that needs an integer rejects it at the schema.

A pointer costs a string per value, and is needed only to word an error, so a document is first
parsed without them (the fast path: plain dicts, C-speed numbers, one walk for what the parse
leaves open); a document the fast path cannot vouch for, valid or not, is parsed again by the
pointer-tracking path, which decides and words every error exactly as it always has.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from enum import Enum
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

from agentic.contract.canonical import MAX_SAFE_INTEGER
from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import ContractError

# What parsed JSON is, by name, wherever the kit holds it: a parsed document, a tool's arguments
# or result, a report or receipt document, a request or response body.
#
# The alias is the recursive union of what a JSON value can be, so mypy follows a value into its
# fields: a read of a field has to say what it expects there, by isinstance for a value from the
# wire, or by the narrowing helpers of contract/json_access.py (or the document's model) for a
# field its schema already guarantees. JsonObject and JsonArray name the two containers, so a
# signature says which one it takes or returns.
#
# At run time the alias admits any value, for pydantic, the one reader of annotations at run
# time: a model's JSON field (a tool call's arguments, an endpoint's extra body) is then kept as
# parsed, not walked value by value again on every report read.
if TYPE_CHECKING:
    JsonValue: TypeAlias = (
        dict[str, "JsonValue"] | list["JsonValue"] | str | int | float | bool | None
    )
else:
    JsonValue: TypeAlias = Any
JsonObject: TypeAlias = dict[str, JsonValue]
JsonArray: TypeAlias = list[JsonValue]

# Far beyond any contract document (a report nests about a dozen levels), far below the depth at
# which Python's recursion limit would turn a hostile input into a traceback.
MAX_DEPTH = 128


class _Pairs(list[tuple[str, JsonValue]]):
    """Raw key/value pairs of one object, kept until the whole document is parsed."""


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"non-finite number {name} is not JSON")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise ValueError(f"number {literal[:40]} is too large for a double")
    return value


def _integer(literal: str) -> int | float:
    if abs(float(literal)) <= MAX_SAFE_INTEGER:
        return int(literal)
    return _finite_float(literal)


def _escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


# Every surrogate code point in a Python str is unpaired (pairs decode to one code point).
_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_lone_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def _may_hold_surrogates(text: str) -> bool:
    """Whether a parsed value of ``text`` can hold a surrogate: only a ``\\u`` escape or a
    surrogate already in the text makes one, so most documents skip the per-string checks."""
    return "\\u" in text or _has_lone_surrogate(text)


def _build(value: JsonValue, pointer: str, depth: int, surrogates: bool = True) -> JsonValue:
    if isinstance(value, list) and depth >= MAX_DEPTH:
        raise ContractError("malformed_json", f"nesting deeper than {MAX_DEPTH} at {pointer}")
    if isinstance(value, _Pairs):
        result: JsonObject = {}
        for key, item in value:
            child = f"{pointer}/{_escape_pointer(key)}"
            if surrogates and _has_lone_surrogate(key):
                raise ContractError("malformed_json", f"lone surrogate in key at {child}")
            if key in result:
                raise ContractError("duplicate_key", f"duplicate key {key!r} at {child}")
            result[key] = _build(item, child, depth + 1, surrogates)
        return result
    if isinstance(value, list):
        # In place: a copy would double the memory of a long array.
        for index, item in enumerate(value):
            if isinstance(item, list) or (surrogates and isinstance(item, str)):
                value[index] = _build(item, f"{pointer}/{index}", depth + 1, surrogates)
        return value
    if surrogates and isinstance(value, str) and _has_lone_surrogate(value):
        raise ContractError("malformed_json", f"lone surrogate in string at {pointer or '/'}")
    return value


class _Retrace(Enum):
    """Returned by _parse_fast for a document only the pointer-tracking parse may decide on."""

    RETRACE = "retrace"


_RETRACE = _Retrace.RETRACE
_INFINITIES = (math.inf, -math.inf)
# A lone surrogate in a parsed string comes from a \uD800..\uDFFF escape (or from a surrogate
# already in a str input): a text with neither holds none, so the fast path skips every
# per-string check. A text with one (even a valid escaped pair) is left to the reference path.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def _unique_members(pairs: list[tuple[str, JsonValue]]) -> JsonObject:
    result = dict(pairs)
    if len(result) != len(pairs):
        # A duplicate key: which one, and where, is the reference path's to say.
        raise ValueError("duplicate key")
    return result


def _plain_members(container: JsonObject | JsonArray, depth: int) -> bool:
    """Whether every value in ``container`` (at ``depth``, the root at 0) is one the reference
    path reads as the fast parse read it: containers nested within MAX_DEPTH, integers within
    2^53-1 (``json`` keeps a larger one an int, the reference a double) and finite doubles (a
    literal beyond a double reads as infinity, which the reference refuses)."""
    if depth >= MAX_DEPTH:
        return False
    items: Iterable[JsonValue] = container.values() if type(container) is dict else container
    for item in items:
        if type(item) is dict or type(item) is list:
            if not _plain_members(item, depth + 1):
                return False
        elif type(item) is int:
            if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                return False
        elif type(item) is float and item in _INFINITIES:
            return False
    return True


def _parse_fast(text: str, *, decoded: bool) -> JsonValue | _Retrace:
    """``text`` parsed without pointers, or _RETRACE when the reference path must decide: on any
    error (to word it with its pointer) and on whatever the fast parse cannot vouch for.
    ``decoded``: ``text`` is strict UTF-8 decoded bytes, so it cannot hold a surrogate itself."""
    if _SURROGATE_ESCAPE.search(text) or (not decoded and _has_lone_surrogate(text)):
        return _RETRACE
    try:
        value = json.loads(text, object_pairs_hook=_unique_members, parse_constant=_reject_constant)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return _RETRACE
    # The root is walked as the sole item of an array one level above it.
    return value if _plain_members([value], -1) else _RETRACE


# Parsing builds a Python object per value: a container costs about 128 bytes, a string about
# 64, an array slot 8. Real documents (reports, receipts) estimate near 2x their size; a large
# text estimated above this ratio (e.g. millions of ``{}``) is refused before the parse, so
# reading any in-cap input stays within about 10x its size (docs/architecture.md: "Inputs").
MAX_PARSE_COST_RATIO = 6
COST_CHECK_MIN_CHARS = 1 << 20


def parse_cost_ratio(text: str) -> float:
    """The estimated memory of parsing ``text``, as a multiple of its length."""
    containers = text.count("{") + text.count("[")
    estimate = 128 * containers + 64 * (text.count('"') // 2) + 8 * text.count(",")
    return estimate / max(len(text), 1)


def _check_parse_cost(text: str, source: str) -> None:
    if len(text) < COST_CHECK_MIN_CHARS:
        return
    ratio = parse_cost_ratio(text)
    if ratio > MAX_PARSE_COST_RATIO:
        raise ContractError(
            "input_too_large",
            f"{source}: its values are so small and many that parsing would take about "
            f"{ratio:.0f}x its size (the limit is {MAX_PARSE_COST_RATIO}x)",
        )


def parse_strict(data: str | bytes, *, source: str = "input") -> JsonValue:
    """Parse exactly one JSON value, or raise ContractError naming ``source`` and the place."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8", errors="strict")
        except UnicodeDecodeError as exc:
            raise ContractError(
                "malformed_json", f"{source}: invalid UTF-8 at byte {exc.start}"
            ) from None
    else:
        text = data
    if not text.strip():
        raise ContractError("malformed_json", f"{source}: empty input")
    _check_parse_cost(text, source)
    fast = _parse_fast(text, decoded=isinstance(data, bytes))
    if fast is not _RETRACE:
        return fast
    return _parse_with_pointers(text, source)


def _parse_with_pointers(text: str, source: str) -> JsonValue:
    """The reference parse: every value's pointer tracked, every error worded with it."""
    try:
        raw = json.loads(
            text,
            object_pairs_hook=_Pairs,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_integer,
        )
    except json.JSONDecodeError as exc:
        raise ContractError(
            "malformed_json", f"{source}: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:
        raise ContractError("malformed_json", f"{source}: {exc}") from None
    except RecursionError:
        raise ContractError("malformed_json", f"{source}: nesting too deep") from None
    try:
        return _build(raw, "", 0, _may_hold_surrogates(text))
    except ContractError as exc:
        raise ContractError(exc.code, f"{source}: {exc.message}") from None


def parse_strict_object(
    data: str | bytes, *, source: str = "input", code: ErrorCodeName | None = None
) -> JsonObject:
    """Like parse_strict, but the top-level value must be an object. With ``code``, every
    failure is raised under that code (a document's own, e.g. ``invalid_cue_table``)."""
    try:
        value = parse_strict(data, source=source)
        if not isinstance(value, dict):
            raise ContractError("malformed_json", f"{source}: top-level value must be an object")
    except ContractError as exc:
        if code is None:
            raise
        raise ContractError(code, exc.message) from None
    return value
