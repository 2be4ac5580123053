"""A server's reply read as hits, by a backend config's ``[results]`` (``ResultReading``).

What arrives is untrusted: every shape problem is ``invalid_tool_result`` naming the config key
that failed to match. The reading only extracts what the server *claims* (a document id, line
numbers, text); whether any of it is evidence is decided against the snapshot elsewhere
(``mapped.py``).

The text of a reply is its text content or, when it has none, a string under ``result`` in its
structured content (FastMCP's wrapper of a tool that returns ``str``). Shapes:

``records``
    JSON: the structured content, else the text parsed as JSON. ``path`` (dotted, e.g.
    ``result.results``) leads to a list of records, or to one record; a string met on the way is
    parsed as JSON (a wrapper holding JSON text). ``fields`` names each record's ``uri`` and,
    optionally, ``line`` (first line), ``end`` (last line, inclusive) or ``lines`` (a range in
    one string: ``4-11``, ``L4-L11``, ``4:11``), and ``text``; ``id_template`` composes the
    document id from several fields (``{repo}/{file.path}``) instead of ``uri``.
``lines``
    Text, one hit per match of ``pattern`` (named groups ``text`` and optionally ``uri``, or
    the parts of ``id_template``, and ``line`` or ``lines``), searched in multi-line mode
    (``^``/``$`` at each line): grep-style ``area/page.md:5: preview``, numbered lines
    ``3: text``, or a hit over two lines. Non-blank lines no match touches (headers, separators)
    are skipped and counted.
``document``
    Text that is one whole document, or a window of it: the one a ``get`` asked for; with
    ``path``, the string at that path of a JSON reply (``result.content``).

``empty`` and ``error`` are patterns searched in the reply's text: a reply matching ``error`` is
the product's failure (for servers that answer errors as ordinary results), one matching
``empty`` has no hits.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp import results
from agentic.adapters.mcp.backend_config import FieldMap, ResultReading
from agentic.adapters.mcp.profile import RawResult
from agentic.contract.credentials import clip_head
from agentic.contract.strict_json import JsonObject, JsonValue

_ERROR_CHARS = 300
# A range in one string: ``4-11``, ``L4-L11``, ``4:11``, ``4–11`` (spaces allowed around the dash).
_RANGE = re.compile(r"\s*[Ll]?(\d+)\s*(?:[-:\u2013]\s*[Ll]?(\d+))?\s*")


@dataclass(frozen=True)
class Hit:
    """What the server claims of one result; ``server_id`` None: the document asked for."""

    server_id: str | None
    line: int | None
    end: int | None
    text: str | None


@dataclass(frozen=True)
class Reading:
    hits: tuple[Hit, ...]
    skipped_lines: int = 0


def reply_text(raw: RawResult) -> str:
    """The text content; else a string under ``result`` in the structured content; else the
    text of the embedded resources (a server that answers a read with a resource alone)."""
    if raw.text:
        return raw.text
    structured = raw.structured
    if isinstance(structured, dict) and isinstance(structured.get("result"), str):
        return str(structured["result"])
    return "\n".join(resource.text for resource in raw.resources)


def product_failure(tool: str, text: str) -> AdapterCallError:
    flat = clip_head(" ".join(text.split()), _ERROR_CHARS)
    return AdapterCallError("tool_call_failed", "product_error", f"{tool}: {flat}")


def read_reply(tool: str, raw: RawResult, reading: ResultReading) -> Reading:
    """The hits of one successful (not error-flagged) reply."""
    text = reply_text(raw)
    if reading.error is not None and re.search(reading.error, text):
        raise product_failure(tool, text)
    if reading.empty is not None and re.search(reading.empty, text):
        return Reading(hits=())
    if reading.shape == "records":
        return Reading(hits=_records(raw, text, reading))
    if reading.shape == "lines":
        return _lines(text, re.compile(reading.pattern or ""), reading.id_template)
    if reading.path:
        found = follow(_json(raw, text), reading.path, "reply")
        text = results.as_str(found, f"reply.{reading.path}")
    return Reading(hits=(Hit(server_id=None, line=None, end=None, text=text),))


def _json(raw: RawResult, text: str) -> JsonValue:
    if raw.structured is not None:
        return raw.structured
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        raise results.invalid("the reply is neither structured content nor JSON text") from None
    return value


def _parsed(value: JsonValue, where: str) -> JsonValue:
    """A string met where JSON is expected is JSON text (a wrapper around a JSON reply)."""
    if not isinstance(value, str):
        return value
    try:
        parsed: JsonValue = json.loads(value)
    except ValueError:
        raise results.invalid(f"{where} is text that is not JSON") from None
    return parsed


def _step(value: JsonValue, key: str, where: str) -> JsonValue:
    value = _parsed(value, where)
    if not isinstance(value, dict) or key not in value:
        raise results.invalid(f"{where} has no {key!r}")
    return value[key]


def follow(value: JsonValue, path: str, what: str) -> JsonValue:
    """The value at a dotted ``path`` (empty: ``value`` itself)."""
    where = what
    for key in [part for part in path.split(".") if part]:
        value = _step(value, key, where)
        where = f"{where}.{key}"
    return value


def _records(raw: RawResult, text: str, reading: ResultReading) -> tuple[Hit, ...]:
    assert reading.fields is not None, "validated: records have fields"
    path = reading.path or ""
    found = _parsed(follow(_json(raw, text), path, "reply"), f"reply.{path}")
    records = [found] if isinstance(found, dict) else results.as_list(found, f"reply.{path}")
    return tuple(
        _record(value, reading.fields, reading.id_template, f"record {n}")
        for n, value in enumerate(records)
    )


def _optional_field(record: JsonObject, path: str | None, what: str) -> JsonValue:
    if path is None:
        return None
    try:
        return follow(record, path, what)
    except AdapterCallError:
        return None


def _record(value: JsonValue, fields: FieldMap, template: str | None, what: str) -> Hit:
    record = results.as_object(value, what)
    text = _optional_field(record, fields.text, what)
    first, last = _record_lines(record, fields, what)
    return Hit(
        server_id=_record_id(record, fields, template, what),
        line=first,
        end=last,
        text=None if text is None else results.as_str(text, f"{what}.{fields.text}"),
    )


def _record_id(record: JsonObject, fields: FieldMap, template: str | None, what: str) -> str:
    """The record's document id: one field, or the id template filled from several."""
    if template is None:
        assert fields.uri is not None, "validated: records name fields.uri or id_template"
        return results.as_str(follow(record, fields.uri, what), f"{what}.{fields.uri}")
    return compose_id(template, lambda name: _part(follow(record, name, what), f"{what}.{name}"))


def _part(value: JsonValue, what: str) -> str:
    """A part of a composed id: a string, or a number (a numeric collection id)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return results.as_str(value, what)


def compose_id(template: str, part: Callable[[str], str]) -> str:
    """``template`` with each ``{name}`` replaced by ``part(name)`` (literal text kept as it is,
    ``{{``/``}}`` as single braces)."""
    return "".join(
        literal + ("" if name is None else part(name))
        for literal, name, _, _ in string.Formatter().parse(template)
    )


def _record_lines(record: JsonObject, fields: FieldMap, what: str) -> tuple[int | None, int | None]:
    if fields.lines is not None:
        found = _optional_field(record, fields.lines, what)
        return (None, None) if found is None else line_range(found, f"{what}.{fields.lines}")
    line = _optional_field(record, fields.line, what)
    end = _optional_field(record, fields.end, what)
    return (
        None if line is None else _number(line, f"{what}.{fields.line}"),
        None if end is None else _number(end, f"{what}.{fields.end}"),
    )


def line_range(value: JsonValue, what: str) -> tuple[int, int]:
    """A range in one value: ``"4-11"``, ``"L4-L11"``, ``"4:11"``, ``"4–11"``, a single line
    (``"7"``, ``"L7"``) or a bare number; the last line is inclusive and not before the first."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = results.as_int(value, what, 1)
        return number, number
    found = _RANGE.fullmatch(results.as_str(value, what))
    if found is None:
        raise results.invalid(f"{what} is not a line range ('4-11', 'L4-L11', '4:11'): {value!r}")
    first = int(found.group(1))
    last = int(found.group(2) or first)
    if first < 1 or last < first:
        raise results.invalid(f"{what} is not a range of lines from 1: {value!r}")
    return first, last


def _number(value: JsonValue, what: str) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return results.as_int(value, what, 1)


def _lines(text: str, pattern: re.Pattern[str], template: str | None = None) -> Reading:
    """One hit per match, searched over the whole text in multi-line mode (a hit may span lines:
    a path on one, its preview on the next); non-blank lines no match touches are counted."""
    text = text.replace("\r\n", "\n")
    hits: list[Hit] = []
    covered = [False] * (text.count("\n") + 1)
    for found in re.finditer(pattern.pattern, text, pattern.flags | re.MULTILINE):
        first = text.count("\n", 0, found.start())
        last = first + text.count("\n", found.start(), found.end())
        covered[first : last + 1] = [True] * (last - first + 1)
        hits.append(_line_hit(found.groupdict(), template))
    lines = text.split("\n")
    skipped = sum(1 for line, hit in zip(lines, covered, strict=True) if not hit and line.strip())
    return Reading(hits=tuple(hits), skipped_lines=skipped)


def _line_hit(groups: dict[str, str | None], template: str | None) -> Hit:
    """One ``lines`` match as a hit: its id (the ``uri`` group, or the template filled from
    its groups), a line or a range, its text."""
    number, span = groups.get("line"), groups.get("lines")
    first, last = (None, None) if span is None else line_range(span, "lines")
    if number is not None:
        first = _number(number, "line")
    server_id = groups.get("uri")
    if template is not None:
        server_id = compose_id(template, lambda name: groups.get(name) or "")
    return Hit(server_id=server_id, line=first, end=last, text=groups["text"])
