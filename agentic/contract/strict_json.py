"""Strict JSON for every untrusted input.

Python's ``json`` already rejects comments, trailing commas and trailing prose; on top of it this
module rejects what ``json`` lets through: duplicate keys at any depth, NaN/Infinity, lone
surrogates and empty input. Errors name the JSON pointer of the offending value where one exists.
"""

from __future__ import annotations

import json
from typing import Any

from agentic.contract.errors import ContractError

JsonValue = Any  # dict[str, JsonValue] | list[JsonValue] | str | int | float | bool | None


class _Pairs(list[tuple[str, Any]]):
    """Raw key/value pairs of one object, kept until the whole document is parsed."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} is not JSON")


def _escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _has_lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


def _build(value: Any, pointer: str) -> Any:
    if isinstance(value, _Pairs):
        result: dict[str, Any] = {}
        for key, item in value:
            child = f"{pointer}/{_escape_pointer(key)}"
            if _has_lone_surrogate(key):
                raise ContractError("malformed_json", f"lone surrogate in key at {child}")
            if key in result:
                raise ContractError("duplicate_key", f"duplicate key {key!r} at {child}")
            result[key] = _build(item, child)
        return result
    if isinstance(value, list):
        return [_build(item, f"{pointer}/{index}") for index, item in enumerate(value)]
    if isinstance(value, str) and _has_lone_surrogate(value):
        raise ContractError("malformed_json", f"lone surrogate in string at {pointer or '/'}")
    return value


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
    try:
        raw = json.loads(text, object_pairs_hook=_Pairs, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ContractError(
            "malformed_json", f"{source}: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:
        raise ContractError("malformed_json", f"{source}: {exc}") from None
    try:
        return _build(raw, "")
    except ContractError as exc:
        raise ContractError(exc.code, f"{source}: {exc.message}") from None


def parse_strict_object(data: str | bytes, *, source: str = "input") -> dict[str, Any]:
    """Like parse_strict, but the top-level value must be an object."""
    value = parse_strict(data, source=source)
    if not isinstance(value, dict):
        raise ContractError("malformed_json", f"{source}: top-level value must be an object")
    return value
