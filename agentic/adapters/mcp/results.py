"""Checks shared by every profile's result parser.

A product's result is untrusted input. Parsers read it only through these helpers, so every
shape problem becomes ``invalid_tool_result`` (the harness cannot normalize what came back), a
document outside the task's collections becomes ``task_scope_violation`` (a foreign result, which
never reaches the agent), and a document the corpus does not hold becomes
``unknown_index_document``, the code the in-process adapters use for the same fault.

Evidence is built from the snapshot, never from the product: a returned line yields a citeable
coordinate only when its text equals the snapshot's line at that number, and the coordinate's
hashes are then computed from the snapshot bytes (harness-observed).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from agentic.adapters.base import CallOutcome
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp.profile import CallScope, ParseInput, RawResult
from agentic.adapters.reads import line_evidence, scope_violation
from agentic.contract.canonical import canonical_text
from agentic.contract.credentials import clip_head
from agentic.contract.jsrules import is_blank
from agentic.contract.receipt import ToolEvidence
from agentic.contract.strict_json import JsonArray, JsonObject
from agentic.fixture.snapshot import CorpusFile

_URI = re.compile(r"^gno://([^/]+)/(.+)$")
PRODUCT_CODE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
# Why evidence from a configured server carries no backend hashes (its receipts say so).
CONFIG_HASH_REASON = "backend config servers return no source/span hashes"
# How much of a reply a diagnostic quotes when it cannot be read as the configured shape.
EXCERPT_CHARS = 300

StructuredParser = Callable[[ParseInput, JsonObject], CallOutcome]
_T = TypeVar("_T")


def invalid(message: str) -> AdapterCallError:
    return AdapterCallError("invalid_tool_result", "harness_error", message)


def _of_type(value: object, kind: type[_T], what: str, noun: str) -> _T:
    if not isinstance(value, kind):
        raise invalid(f"{what} must be {noun}")
    return value


def as_object(value: object, what: str) -> JsonObject:
    return _of_type(value, dict, what, "an object")


def as_list(value: object, what: str) -> JsonArray:
    return _of_type(value, list, what, "an array")


def as_str(value: object, what: str) -> str:
    return _of_type(value, str, what, "a string")


def as_bool(value: object, what: str) -> bool:
    return _of_type(value, bool, what, "a boolean")


def as_int(value: object, what: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise invalid(f"{what} must be an integer >= {minimum}")
    return value


def as_unit_score(value: object, what: str) -> float:
    """A finite number in [0, 1], returned as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise invalid(f"{what} must be a number")
    score = float(value)
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        raise invalid(f"{what} must be within [0, 1]")
    return score


def optional_str(value: object, what: str) -> str | None:
    return None if value is None else as_str(value, what)


def collection_of(uri: str) -> str:
    match = _URI.match(uri)
    if match is None:
        raise invalid(f"result uri {uri!r} is not a gno:// coordinate")
    return match.group(1)


def call_collections(call: ParseInput) -> tuple[str, ...]:
    """The collections a call's results may come from: the one a search named, else every
    collection of the task."""
    named = call.arguments.get("collection")
    return (str(named),) if call.tool == "search" and named is not None else call.scope.collections


def scoped_file(scope: CallScope, uri: str, collections: Sequence[str] | None = None) -> CorpusFile:
    """The snapshot file behind a returned URI, which must lie inside the call's scope.

    ``collections`` narrows the scope to what the call asked for (a named collection); by default
    it is every collection of the task.
    """
    allowed = scope.collections if collections is None else tuple(collections)
    if collection_of(uri) not in allowed:
        raise scope_violation(f"the product returned {uri!r}, outside the task's scope")
    file = scope.snapshot.by_uri(uri)
    if file is None:
        raise AdapterCallError(
            "unknown_index_document", "product_error", f"{uri} is not in the corpus"
        )
    return file


def product_line_count(file: CorpusFile) -> int:
    """The line count of products that split on LF and count the empty line after a final
    newline as a line (GNO's totalLines, qmd's snippet headers): one more than the contract's
    when the document ends with a newline."""
    return len(file.text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))


def check_claimed_lines(
    file: CorpusFile, start: int, end: int, what: str, *, counts_final_newline: bool = False
) -> None:
    """A result's claimed lines ``start..end`` must lie inside the document; an empty range
    (``end == start - 1``, a read past the end) claims none. A product that counts the line after
    a final newline (``counts_final_newline``) may claim that one too, and nothing beyond it.

    Every parser checks its claims here, so a hit or read past the end is ``invalid_tool_result``
    under every profile, never a delivered result."""
    last = product_line_count(file) if counts_final_newline else len(file.lines)
    if end >= start and end > last:
        raise invalid(f"{what} claims lines {start}-{end} of {file.uri}, which has {last}")


def served_lines(text: str, start: int, end: int, what: str) -> tuple[str, ...]:
    """The lines of a served inclusive range; their count must match the range."""
    if end < start - 1:
        raise invalid(f"{what} has endLine before startLine")
    if end == start - 1:
        if text:
            raise invalid(f"{what} is an empty range with text")
        return ()
    lines = tuple(text.split("\n"))
    if len(lines) != end - start + 1:
        raise invalid(f"{what} holds {len(lines)} lines for range {start}-{end}")
    return lines


def matching_evidence(
    file: CorpusFile,
    start: int,
    lines: Sequence[str],
    reason: str,
    *,
    skip_blank: bool = True,
) -> tuple[list[ToolEvidence], int]:
    """Single-line evidence for each returned line equal to the snapshot's line at its number.

    Returns the evidence and how many non-blank returned lines did not match (a diagnostic).
    """
    evidence: list[ToolEvidence] = []
    mismatched = 0
    for offset, text in enumerate(lines):
        number = start + offset
        if skip_blank and is_blank(text):
            continue
        if number > len(file.lines) or file.lines[number - 1] != text:
            mismatched += 0 if is_blank(text) else 1
            continue
        evidence.append(line_evidence(file, number, reason))
    return evidence, mismatched


def product_error_code(structured: object, key: str) -> str:
    """A product's own error code from an error result, checked to be a plain token."""
    code = as_object(structured, "error result").get(key)
    if not isinstance(code, str) or not PRODUCT_CODE.match(code.lower()):
        raise invalid("error result without a valid error code")
    return code.lower()


def span_rule_lines(text: str) -> tuple[str, ...]:
    """Served text as lines under the contract's span rule (CRLF and CR as LF, one trailing
    newline dropped); empty text serves nothing."""
    if not text:
        return ()
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    return tuple(normalized.removesuffix("\n").split("\n"))


def mismatch_note(uri: str, count: int) -> list[str]:
    """The diagnostic for returned lines that differ from the snapshot (never evidence)."""
    if not count:
        return []
    return [f"{count} returned line(s) of {uri} differ from the snapshot; no evidence for them"]


def excerpt(raw: RawResult) -> str:
    """The start of a reply, on one line: its structured content, else its text."""
    shown = canonical_text(raw.structured) if raw.structured is not None else raw.text
    flat = " ".join(shown.split())
    return flat if len(flat) <= EXCERPT_CHARS else clip_head(flat, EXCERPT_CHARS - 1) + "…"


def parse_structured(
    call: ParseInput,
    search: StructuredParser,
    get: StructuredParser,
    multi_get: StructuredParser,
) -> CallOutcome:
    """A successful result of a product that answers in structured content: that content must be
    an object, read by the parser of the frozen tool the agent called."""
    structured = as_object(call.raw.structured, f"{call.tool} structured content")
    if call.tool == "search":
        return search(call, structured)
    if call.tool == "get":
        return get(call, structured)
    return multi_get(call, structured)
