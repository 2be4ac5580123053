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
    optionally, ``line`` (first line), ``end`` (last line, inclusive) and ``text``.
``lines``
    Text, one hit per match of ``pattern`` (named groups ``text`` and optionally ``uri`` and
    ``line``), searched in multi-line mode (``^``/``$`` at each line): grep-style
    ``area/page.md:5: preview``, numbered lines ``3: text``, or a hit over two lines. Non-blank
    lines no match touches (headers, separators) are skipped and counted.
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
from dataclasses import dataclass

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp import results
from agentic.adapters.mcp.backend_config import FieldMap, ResultReading
from agentic.adapters.mcp.profile import RawResult
from agentic.contract.credentials import clip_head
from agentic.contract.strict_json import JsonObject, JsonValue

_ERROR_CHARS = 300


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
        assert reading.fields is not None, "validated: records have fields"
        return Reading(hits=_records(raw, text, reading.path or "", reading.fields))
    if reading.shape == "lines":
        return _lines(text, re.compile(reading.pattern or ""))
    if reading.path:
        found = follow(_json(raw, text), reading.path, "reply")
        text = results.as_str(found, f"reply.{reading.path}")
    return Reading(hits=(Hit(server_id=None, line=None, end=None, text=text),))


def _json(raw: RawResult, text: str) -> JsonValue:
    if raw.structured is not None:
        return raw.structured
    try:
        return json.loads(text)
    except ValueError:
        raise results.invalid("the reply is neither structured content nor JSON text") from None


def _parsed(value: JsonValue, where: str) -> JsonValue:
    """A string met where JSON is expected is JSON text (a wrapper around a JSON reply)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        raise results.invalid(f"{where} is text that is not JSON") from None


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


def _records(raw: RawResult, text: str, path: str, fields: FieldMap) -> tuple[Hit, ...]:
    found = _parsed(follow(_json(raw, text), path, "reply"), f"reply.{path}")
    records = [found] if isinstance(found, dict) else results.as_list(found, f"reply.{path}")
    return tuple(_record(value, fields, f"record {n}") for n, value in enumerate(records))


def _optional_field(record: JsonObject, path: str | None, what: str) -> JsonValue:
    if path is None:
        return None
    try:
        return follow(record, path, what)
    except AdapterCallError:
        return None


def _record(value: JsonValue, fields: FieldMap, what: str) -> Hit:
    record = results.as_object(value, what)
    uri = follow(record, fields.uri, what)
    line = _optional_field(record, fields.line, what)
    end = _optional_field(record, fields.end, what)
    text = _optional_field(record, fields.text, what)
    return Hit(
        server_id=results.as_str(uri, f"{what}.{fields.uri}"),
        line=None if line is None else _number(line, f"{what}.{fields.line}"),
        end=None if end is None else _number(end, f"{what}.{fields.end}"),
        text=None if text is None else results.as_str(text, f"{what}.{fields.text}"),
    )


def _number(value: JsonValue, what: str) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return results.as_int(value, what, 1)


def _lines(text: str, pattern: re.Pattern[str]) -> Reading:
    """One hit per match, searched over the whole text in multi-line mode (a hit may span lines:
    a path on one, its preview on the next); non-blank lines no match touches are counted."""
    text = text.replace("\r\n", "\n")
    hits: list[Hit] = []
    covered = [False] * (text.count("\n") + 1)
    for found in re.finditer(pattern.pattern, text, pattern.flags | re.MULTILINE):
        first = text.count("\n", 0, found.start())
        last = first + text.count("\n", found.start(), found.end())
        covered[first : last + 1] = [True] * (last - first + 1)
        groups = found.groupdict()
        number = groups.get("line")
        hits.append(
            Hit(
                server_id=groups.get("uri"),
                line=None if number is None else _number(number, "line"),
                end=None,
                text=groups["text"],
            )
        )
    lines = text.split("\n")
    skipped = sum(1 for line, hit in zip(lines, covered, strict=True) if not hit and line.strip())
    return Reading(hits=tuple(hits), skipped_lines=skipped)
