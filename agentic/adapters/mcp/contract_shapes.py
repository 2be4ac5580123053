"""Replies already in the contract's coordinates: ``hits`` and ``resources``.

``hits``
    The structured content, or else the JSON text, is ``{"results": [{"uri", "startLine",
    "endLine", "text"?}]}``. With ``text``, each line equal to the snapshot's line at its number
    is evidence (other lines are counted, never evidence); without it, the claimed range's
    non-blank snapshot lines are.
``resources``
    Embedded text resources (``uri`` + ``text``); each is aligned to its snapshot document by
    exact line text (reads prefer the requested ``fromLine``), and its aligned lines are evidence.

A URI that is not a ``gno://`` coordinate of the corpus, a range past a document's end, or a
result of the wrong shape is ``invalid_tool_result``; a document outside the call's scope is
``task_scope_violation``, unless the server was given no scope (its search maps no
``collection``): then such a search result is dropped and counted. The agent sees the server's
answer normalized to canonical ``{"results": [...]}`` JSON for searches and to the served lines
for reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from agentic.adapters.base import CallOutcome, ok_outcome
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp import profile, results
from agentic.adapters.reads import nonblank_evidence, read_content
from agentic.contract.canonical import canonical_text
from agentic.contract.json_access import as_array, as_int, as_strs
from agentic.contract.jsrules import is_blank
from agentic.contract.receipt import ToolEvidence
from agentic.contract.strict_json import JsonArray, JsonObject, JsonValue
from agentic.fixture.snapshot import CorpusFile

REASON = results.CONFIG_HASH_REASON
ContractShape = Literal["hits", "resources"]


def merge_hits(raws: Sequence[profile.RawResult]) -> profile.RawResult:
    failed = next((raw for raw in raws if raw.is_error), None)
    if failed is not None:
        return failed
    hits: JsonArray = []
    for raw in raws:
        hits.extend(
            results.as_list(
                results.as_object(_hits_document(raw), "search result").get("results"), "results"
            )
        )
    return profile.RawResult(is_error=False, structured={"results": hits}, text="")


def merge_resources(raws: Sequence[profile.RawResult]) -> profile.RawResult:
    failed = next((raw for raw in raws if raw.is_error), None)
    if failed is not None:
        return failed
    resources = tuple(resource for raw in raws for resource in raw.resources)
    return profile.RawResult(is_error=False, structured=None, text="", resources=resources)


@dataclass(frozen=True)
class Item:
    """One document range the server returned: its file, start, lines and what it said."""

    file: CorpusFile
    start: int
    lines: tuple[str, ...]
    claimed: JsonObject
    evidence: tuple[ToolEvidence, ...]
    mismatched: int


def _foreign(call: profile.ParseInput, uri: str, scoped: bool) -> bool:
    """A search result of a server given no scope that lies outside the call's collections:
    dropped (and counted), not charged to the server as a scope violation."""
    return (
        not scoped
        and call.tool == "search"
        and results.collection_of(uri) not in results.call_collections(call)
    )


def _hits_document(raw: profile.RawResult) -> JsonValue:
    """The structured content, or else the JSON text of the result."""
    if raw.structured is not None:
        return raw.structured
    try:
        value: JsonValue = json.loads(raw.text)
    except ValueError:
        raise results.invalid("the result is neither structured content nor JSON text") from None
    return value


def _range_lines(text: str, count: int) -> tuple[str, ...]:
    """The lines of a hit's text for a claimed range of ``count`` lines: split on LF (CRLF as LF),
    with one trailing newline tolerated; a one-line range may be a single blank line."""
    if count == 0:
        return () if not text else (text,)
    lines = text.replace("\r\n", "\n").split("\n")
    if len(lines) == count + 1 and lines[-1] == "":
        lines.pop()
    return tuple(lines)


def _hit_items(call: profile.ParseInput, scoped: bool) -> tuple[list[Item], int]:
    document = _hits_document(call.raw)
    hits = results.as_list(
        results.as_object(document, f"{call.tool} result").get("results"), "results"
    )
    items = []
    dropped = 0
    for position, value in enumerate(hits):
        what = f"results[{position}]"
        hit = results.as_object(value, what)
        uri = results.as_str(hit.get("uri"), f"{what}.uri")
        if _foreign(call, uri, scoped):
            dropped += 1
            continue
        file = results.scoped_file(call.scope, uri, results.call_collections(call))
        start = results.as_int(hit.get("startLine"), f"{what}.startLine", 1)
        end = results.as_int(hit.get("endLine"), f"{what}.endLine", start - 1)
        results.check_claimed_lines(file, start, end, what)
        claimed: JsonObject = {"uri": uri, "startLine": start, "endLine": end}
        if "text" in hit:
            text = results.as_str(hit["text"], f"{what}.text")
            claimed["text"] = text
            lines = _range_lines(text, end - start + 1)
            if len(lines) != end - start + 1:
                raise results.invalid(f"{what} holds {len(lines)} lines for range {start}-{end}")
            found, mismatched = results.matching_evidence(file, start, lines, REASON)
            items.append(Item(file, start, lines, claimed, tuple(found), mismatched))
        else:
            lines = file.lines[start - 1 : end]
            found = nonblank_evidence(file, start, end, REASON)
            items.append(Item(file, start, lines, claimed, tuple(found), 0))
    return items, dropped


def align(file: CorpusFile, lines: Sequence[str], prefer: int = 1) -> int | None:
    """The first line number where ``lines`` equal the document's lines, trying ``prefer``
    first; None when they occur nowhere (or are empty)."""
    count = len(lines)
    if count == 0 or count > len(file.lines):
        return None
    target = tuple(lines)
    candidates: list[int] = [prefer, *range(1, len(file.lines) - count + 2)]
    for start in candidates:
        if start >= 1 and file.lines[start - 1 : start - 1 + count] == target:
            return start
    return None


def _resource_items(call: profile.ParseInput, scoped: bool) -> tuple[list[Item], int]:
    if call.raw.is_error:
        raise results.invalid(f"{call.tool}: error result")
    prefer = as_int(call.arguments.get("fromLine", 1), "fromLine")
    items = []
    dropped = 0
    for resource in call.raw.resources:
        if _foreign(call, resource.uri, scoped):
            dropped += 1
            continue
        file = results.scoped_file(call.scope, resource.uri, results.call_collections(call))
        lines = results.span_rule_lines(resource.text)
        start = align(file, lines, prefer)
        claimed: JsonObject = {"uri": resource.uri, "text": resource.text}
        if start is None:
            unmatched = sum(1 for line in lines if not is_blank(line))
            items.append(Item(file, 1, lines, claimed, (), unmatched))
            continue
        found, _ = results.matching_evidence(file, start, lines, REASON)
        items.append(Item(file, start, lines, claimed, tuple(found), 0))
    return items, dropped


def _outcome(
    role: Literal["candidates", "source"], content: str, items: Sequence[Item]
) -> CallOutcome:
    evidence = [item for found in items for item in found.evidence]
    notes = [note for i in items for note in results.mismatch_note(i.file.uri, i.mismatched)]
    return ok_outcome(role, content, evidence, 0, notes)


def _read_items(call: profile.ParseInput, items: list[Item]) -> list[Item]:
    """A read answers exactly the requested documents, in request order."""
    requested = (
        [str(call.arguments["uri"])]
        if call.tool == "get"
        else as_strs(call.arguments["uris"], "uris")
    )
    served = [item.file.uri for item in items]
    if served != requested:
        raise results.invalid(f"{call.tool} asked for {requested} and the server served {served}")
    return items


def _cut(items: list[Item], max_bytes: int | None) -> list[Item]:
    """The contract's ``multi_get`` prefix cut over non-blank line bytes, applied here."""
    if max_bytes is None:
        return items
    used = 0
    kept: list[Item] = []
    for item in items:
        lines: list[str] = []
        for line in item.lines:
            size = 0 if is_blank(line) else len(line.encode("utf-8"))
            if used + size > max_bytes:
                if lines:
                    kept.append(_prefix(item, lines))
                return kept
            used += size
            lines.append(line)
        kept.append(item)
    return kept


def _prefix(item: Item, lines: list[str]) -> Item:
    last = item.start + len(lines) - 1
    evidence = tuple(e for e in item.evidence if e.endLine <= last)
    return Item(item.file, item.start, tuple(lines), item.claimed, evidence, item.mismatched)


def parser(
    shape: ContractShape, *, emulated: bool, scoped: bool
) -> Callable[[profile.ParseInput], CallOutcome]:
    """The parser of one contract shape; ``scoped``: the server's search takes the scope."""

    def parse(call: profile.ParseInput) -> CallOutcome:
        if call.raw.is_error:
            raise AdapterCallError(
                "tool_call_failed", "product_error", f"{call.tool}: {call.raw.text[:200]}"
            )
        try:
            read = _hit_items if shape == "hits" else _resource_items
            items, dropped = read(call, scoped)
        except AdapterCallError as exc:
            if exc.code == "invalid_tool_result":
                # Say which setting failed to match what came back, and show what came back.
                reply = results.excerpt(call.raw)
                exc.args = (f"{exc} (results.shape = {shape!r}); reply: {reply}",)
            raise
        if call.tool == "search":
            content = canonical_text({"results": [item.claimed for item in items]})
            outcome = _outcome("candidates", content, items)
            if not dropped:
                return outcome
            note = f"dropped {dropped} result(s) outside the call's collections"
            return replace(outcome, diagnostics=(*outcome.diagnostics, note))
        items = _read_items(call, items)
        if call.tool == "multi_get":
            max_bytes = call.arguments.get("maxBytes")
            items = _cut(items, None if max_bytes is None else as_int(max_bytes, "maxBytes"))
        # Contract v1.0: a read's content is its evidence texts (the served lines that equal the
        # snapshot, blank lines never) joined by LF, whatever else the server sent.
        content = read_content([evidence for item in items for evidence in item.evidence])
        outcome = _outcome("source", content, items)
        if call.tool == "multi_get" and emulated:
            note = f"multi_get emulated: {len(as_array(call.arguments['uris'], 'uris'))} get calls"
            return replace(outcome, diagnostics=(*outcome.diagnostics, note))
        return outcome

    return parse
