"""Reading a field of parsed JSON as the type it must have: one check, and a clear error if not.

A document is checked against its schema (or its model) once, where it is read; the code that
then reads its fields holds a ``JsonValue`` (``strict_json.py``), which may be any JSON value as
far as mypy knows. These helpers narrow a value at the point of use to what the schema already
guarantees there, so a wrong shape (a document that skipped its check, a changed schema) is a
``ContractError`` (``schema_violation``) naming the field, instead of a ``TypeError`` far from it.

- ``as_object(value, where)``, ``as_str``, ``as_int``, ...: one value, ``where`` naming it in the
  error. Each is one ``isinstance`` check; only the plural ones (``as_objects``, ``as_strs``)
  check each member of an array, so a read costs what it did.
- ``member(value, *path)`` and ``object_at(value, *path)``, ``str_at``, ...: the value at a path
  of keys and indexes (``"receipts", 0, "canonical"``), each step checked, the error naming the
  path as a JSON pointer (``/receipts/0``).

A value from the wire (a server's reply, an endpoint's response) is not read with these: its
shape is a failure with its own code where it is read (``adapters/mcp/results.py``, say).
"""

from __future__ import annotations

from typing import NoReturn

from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonArray, JsonObject, JsonValue

Step = str | int  # a key of an object or an index of an array


def json_kind(value: JsonValue) -> str:
    """The JSON name of a value's type, as an error names what it found."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _wrong(value: JsonValue, where: str, expected: str) -> NoReturn:
    raise ContractError("schema_violation", f"{where} must be {expected}, not {json_kind(value)}")


# --- one value ------------------------------------------------------------------------------


def as_object(value: JsonValue, where: str) -> JsonObject:
    if isinstance(value, dict):
        return value
    _wrong(value, where, "an object")


def as_array(value: JsonValue, where: str) -> JsonArray:
    if isinstance(value, list):
        return value
    _wrong(value, where, "an array")


def as_str(value: JsonValue, where: str) -> str:
    if isinstance(value, str):
        return value
    _wrong(value, where, "a string")


def as_int(value: JsonValue, where: str) -> int:
    """A JSON integer as an ``int``: an integral number, never a boolean. ``2.0`` is one, as
    stock draft-07 reads it (a tool's arguments); a contract document's schema allows only the
    integer token, which strict JSON reads as an ``int``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    _wrong(value, where, "an integer")


def as_number(value: JsonValue, where: str) -> int | float:
    """A JSON number as it was parsed (an ``int`` stays one), never a boolean."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    _wrong(value, where, "a number")


def as_bool(value: JsonValue, where: str) -> bool:
    if isinstance(value, bool):
        return value
    _wrong(value, where, "a boolean")


def as_scalar(value: JsonValue, where: str) -> str | int | float | bool | None:
    """A JSON value that is neither an object nor an array."""
    if isinstance(value, dict | list):
        _wrong(value, where, "a string, number, boolean or null")
    return value


def as_objects(value: JsonValue, where: str) -> list[JsonObject]:
    """A JSON array of objects; ``where`` and the index name a member that is not one."""
    items = as_array(value, where)
    return [as_object(item, f"{where}[{index}]") for index, item in enumerate(items)]


def as_strs(value: JsonValue, where: str) -> list[str]:
    """A JSON array of strings."""
    items = as_array(value, where)
    return [as_str(item, f"{where}[{index}]") for index, item in enumerate(items)]


def as_str_map(value: JsonValue, where: str) -> dict[str, str]:
    """A JSON object whose every value is a string."""
    return {key: as_str(item, f"{where}.{key}") for key, item in as_object(value, where).items()}


# --- a value at a path ------------------------------------------------------------------------


def _pointer(path: tuple[Step, ...]) -> str:
    return "/" + "/".join(str(step) for step in path)


def member(value: JsonValue, *path: Step) -> JsonValue:
    """The value at ``path`` inside ``value``: a key of an object, an index of an array (a
    negative one counts from its end)."""
    found = value
    for depth, step in enumerate(path):
        where = _pointer(path[:depth])
        if isinstance(step, int):
            items = as_array(found, where)
            if not -len(items) <= step < len(items):
                raise ContractError("schema_violation", f"{_pointer(path[: depth + 1])} is missing")
            found = items[step]
        else:
            fields = as_object(found, where)
            if step not in fields:
                raise ContractError("schema_violation", f"{_pointer(path[: depth + 1])} is missing")
            found = fields[step]
    return found


def object_at(value: JsonValue, *path: Step) -> JsonObject:
    return as_object(member(value, *path), _pointer(path))


def array_at(value: JsonValue, *path: Step) -> JsonArray:
    return as_array(member(value, *path), _pointer(path))


def objects_at(value: JsonValue, *path: Step) -> list[JsonObject]:
    return as_objects(member(value, *path), _pointer(path))


def str_at(value: JsonValue, *path: Step) -> str:
    return as_str(member(value, *path), _pointer(path))


def int_at(value: JsonValue, *path: Step) -> int:
    return as_int(member(value, *path), _pointer(path))


def number_at(value: JsonValue, *path: Step) -> int | float:
    return as_number(member(value, *path), _pointer(path))
