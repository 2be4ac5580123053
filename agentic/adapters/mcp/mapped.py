"""Replies of a configured server read as contract results: ids mapped, text aligned, scope kept.

``replies.py`` extracts what the server claims; this module decides what of it is evidence,
always on the verified snapshot:

- the document: the server's id mapped to a snapshot file (``server_ids.py``), or, for a reply
  that names none, the document the ``get`` asked for;
- scope: a server with no scope argument (its search maps no ``collection``) may return any
  document it indexed, so results outside the task's collections, or outside the collection the
  agent named, are dropped and counted, never charged to the product as a scope violation; a
  server that was given the scope and ignored it still commits ``task_scope_violation``;
- lines: text without line numbers, or whose numbers count lines the server added (front matter
  it wrote), is aligned to the snapshot (``align.py``: exact lines first, then a trimmed, cut
  preview by its prefix); a line whose place is ambiguous, or found nowhere, is never evidence,
  and both are counted in the receipt's diagnostics (``alignment: A aligned, B ambiguous, C
  unmatched``); a hit with line numbers and no text claims that range's non-blank lines;
- reads: evidence is cut to the range the agent asked for (a server that returns a whole
  document for a ranged ``get`` is sliced by the kit), and ``multi_get``'s ``maxBytes`` cut
  applies as the contract defines it. A read's content is its evidence texts joined by LF.

A split or paged search (``query_split = "words"``, ``paging``) is several rankings merged
round-robin by rank and de-duplicated by (document, line) (``query_forms.py``); otherwise the
replies' hits are taken in order as they came.

The agent sees searches as canonical ``{"results": [{"uri", "startLine"?, "endLine"?, "text"?}]}``
with snapshot URIs, and line numbers where the hit aligned (else none), at most ``limit`` of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from agentic.adapters.base import CallOutcome, ok_outcome
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp import results
from agentic.adapters.mcp.align import align_block, align_line, preview_key
from agentic.adapters.mcp.backend_config import BackendConfig, ResultReading
from agentic.adapters.mcp.paging import PageRead
from agentic.adapters.mcp.profile import CallScope, ParseInput, RawResult
from agentic.adapters.mcp.query_forms import round_robin
from agentic.adapters.mcp.reflow import align_reflowed
from agentic.adapters.mcp.replies import Hit, read_reply
from agentic.adapters.mcp.server_ids import ServerIds
from agentic.adapters.reads import line_evidence, nonblank_evidence, read_content, scope_violation
from agentic.contract.canonical import canonical_text
from agentic.contract.json_access import as_int, as_strs
from agentic.contract.jsrules import is_blank
from agentic.contract.receipt import ToolEvidence
from agentic.contract.strict_json import JsonObject
from agentic.fixture.snapshot import CorpusFile

REASON = results.CONFIG_HASH_REASON
DEFAULT_LIMIT = 10


@dataclass
class Tally:
    """What one call's alignment and filtering came to, for its diagnostics."""

    aligned: int = 0
    ambiguous: int = 0
    unmatched: int = 0
    dropped: int = 0
    skipped: int = 0

    def notes(self) -> list[str]:
        found = [
            f"alignment: {self.aligned} aligned, {self.ambiguous} ambiguous, "
            f"{self.unmatched} unmatched"
        ]
        if self.dropped:
            found.append(f"dropped {self.dropped} result(s) outside the call's collections")
        if self.skipped:
            found.append(f"{self.skipped} reply line(s) matched no result pattern")
        return found


@dataclass(frozen=True)
class Located:
    """One hit on its snapshot file, with the evidence its lines align to."""

    file: CorpusFile
    hit: Hit
    evidence: tuple[ToolEvidence, ...]
    first: int | None = None
    last: int | None = None


@dataclass(frozen=True)
class MappedReplies:
    """How one configured server's replies become results (``parse``)."""

    config: BackendConfig
    ids: ServerIds
    emulated_multi_get: bool
    # A tool whose own ``ids`` differ from ``[ids]`` reads replies with its own table.
    tool_ids: Mapping[str, ServerIds] = field(default_factory=dict)

    def ids_for(self, tool: str) -> ServerIds:
        return self.tool_ids.get(tool, self.ids)

    def reading(self, tool: str) -> ResultReading:
        """The ``results`` setting of a contract tool (an emulated ``multi_get`` reads as the
        ``get`` it is made of)."""
        return self.config.reading(
            "get" if tool == "multi_get" and self.emulated_multi_get else tool
        )

    def parse(self, call: ParseInput) -> CallOutcome:
        reading = self.reading(call.tool)
        parts = call.parts or (call.raw,)
        failed = next((raw for raw in parts if raw.is_error), None)
        if failed is not None:
            raise AdapterCallError(
                "tool_call_failed", "product_error", f"{call.tool}: {failed.text[:200]}"
            )
        tally = Tally()
        try:
            if call.tool == "search":
                return self._search(call, parts, reading, tally)
            return self._read(call, parts, reading, tally)
        except AdapterCallError as exc:
            if exc.code == "invalid_tool_result":
                key = f"tools.{call.tool}.results"
                exc.args = (
                    f"{exc} ({key}.shape = {reading.shape!r}); reply: {results.excerpt(parts[0])}",
                )
            raise

    # -- search ----------------------------------------------------------------------------------

    def _search(
        self, call: ParseInput, parts: Sequence[RawResult], reading: ResultReading, tally: Tally
    ) -> CallOutcome:
        rankings = [
            self._in_scope_hits(call, ranking, reading, tally)
            for ranking in call.ranked or (tuple(parts),)
        ]
        notes: list[str] = []
        if self.config.tools.search.merges_rankings:
            kept = round_robin(rankings, hit_key)
            notes.append(
                f"search: {len(parts)} server call(s) in {len(rankings)} ranking(s), merged "
                "round-robin by rank, de-duplicated by (document, line)"
            )
        else:
            kept = [found for ranking in rankings for found in ranking]
        # Only what the agent is shown is aligned (and counted): the first ``limit`` hits.
        limit = as_int(call.arguments.get("limit", DEFAULT_LIMIT), "limit")
        reflowed = reading.reflowed is True
        located = [_aligned(file, hit, tally, reflowed) for file, hit in kept[:limit]]
        shown = [_shown(item) for item in located]
        evidence = [e for item in located for e in item.evidence]
        content = canonical_text({"results": shown})
        return ok_outcome("candidates", content, evidence, 0, tally.notes() + notes)

    def _in_scope_hits(
        self, call: ParseInput, replies: Sequence[RawResult], reading: ResultReading, tally: Tally
    ) -> list[tuple[CorpusFile, Hit]]:
        """The hits of ``replies`` in order, on their files, those outside the scope dropped."""
        kept: list[tuple[CorpusFile, Hit]] = []
        for raw in replies:
            for hit in self._hits(call, raw, reading, tally):
                file = self._in_scope(call, hit, None, tally)
                if file is not None:
                    kept.append((file, shifted(file, hit, reading)))
        return kept

    def page_read(self, arguments: JsonObject, scope: CallScope, raw: RawResult) -> PageRead:
        """What one page of a paged search held (``paging.py``); an error reply holds nothing.
        Raises as the parse would on a reply the config cannot read."""
        if raw.is_error:
            return PageRead(hits=(), in_scope=())
        call = ParseInput("search", arguments, {}, scope, raw)
        reading = self.reading("search")
        hits = self._hits(call, raw, reading, Tally())
        in_scope = self._in_scope_hits(call, (raw,), reading, Tally())
        return PageRead(
            hits=tuple((hit.server_id, hit.line, hit.end, hit.text) for hit in hits),
            in_scope=tuple(hit_key(found) for found in in_scope),
        )

    # -- reads -----------------------------------------------------------------------------------

    def _read(
        self, call: ParseInput, parts: Sequence[RawResult], reading: ResultReading, tally: Tally
    ) -> CallOutcome:
        requested = _requested(call)
        per_part = len(parts) == len(requested) and len(parts) > 1
        by_uri: dict[str, list[ToolEvidence]] = {uri: [] for uri in requested}
        for index, raw in enumerate(parts):
            asked = requested[index] if per_part else requested[0]
            asked_file = call.scope.snapshot.by_uri(asked)
            for hit in self._hits(call, raw, reading, tally):
                file = self._in_scope(call, hit, asked_file, tally)
                if file is None:
                    continue
                found = _aligned(file, shifted(file, hit, reading), tally, reading.reflowed is True)
                if found.file.uri not in by_uri:
                    raise results.invalid(
                        f"{call.tool} asked for {requested} and the server served {found.file.uri}"
                    )
                by_uri[found.file.uri].extend(found.evidence)
        evidence = [e for uri in requested for e in _in_range(call, _ordered(by_uri[uri]))]
        max_bytes = call.arguments.get("maxBytes")
        if call.tool == "multi_get" and max_bytes is not None:
            evidence = _cut(evidence, as_int(max_bytes, "maxBytes"))
        notes = tally.notes()
        if call.tool == "multi_get" and self.emulated_multi_get:
            notes.append(f"multi_get emulated: {len(requested)} get calls")
        return ok_outcome("source", read_content(evidence), evidence, 0, notes)

    # -- shared ----------------------------------------------------------------------------------

    def _hits(
        self, call: ParseInput, raw: RawResult, reading: ResultReading, tally: Tally
    ) -> tuple[Hit, ...]:
        read = read_reply(call.tool, raw, reading)
        tally.skipped += read.skipped_lines
        return read.hits

    def _in_scope(
        self, call: ParseInput, hit: Hit, asked: CorpusFile | None, tally: Tally
    ) -> CorpusFile | None:
        """The hit's file; None for a search hit outside the call's collections from a server
        given no scope (dropped and counted)."""
        file = self._file(call, hit, asked)
        if file.collection in results.call_collections(call):
            return file
        if call.tool == "search" and "collection" not in self.config.tools.search.arguments:
            tally.dropped += 1
            return None
        raise scope_violation(f"the product returned {file.uri}, outside the task's scope")

    def _file(self, call: ParseInput, hit: Hit, asked: CorpusFile | None) -> CorpusFile:
        if hit.server_id is None:
            if asked is None:
                raise results.invalid(f"a {call.tool} result names no document")
            return asked
        ids = self.ids_for(call.tool)
        file = ids.file(hit.server_id, call.scope.prepared_root)
        if file is None:
            raise AdapterCallError(
                "unknown_index_document",
                "product_error",
                f"the server's document {hit.server_id!r} is not one of the corpus "
                f"(ids.form = {ids.table.mapping.form!r})",
            )
        return file


def hit_key(found: tuple[CorpusFile, Hit]) -> tuple[str, int | None, str | None]:
    """What a merge de-duplicates by: the document and line (a hit without a line: its
    document and text)."""
    file, hit = found
    return file.uri, hit.line, hit.text if hit.line is None else None


def front_matter_lines(file: CorpusFile) -> int:
    """How many lines the document's front matter takes: a ``---`` first line through the next
    ``---`` line, both counted (0 without one, or with one never closed)."""
    lines = file.lines
    if not lines or lines[0].strip() != "---":
        return 0
    for index, line in enumerate(lines[1:], 1):
        if line.strip() == "---":
            return index + 1
    return 0


def shifted(file: CorpusFile, hit: Hit, reading: ResultReading) -> Hit:
    """The hit's line numbers in the snapshot's count, for a server that counts its own way
    (``line_offset``): after the front matter it stripped, or a fixed number of lines on."""
    if reading.line_offset is None or (hit.line is None and hit.end is None):
        return hit
    offset = (
        front_matter_lines(file) if reading.line_offset == "front_matter" else reading.line_offset
    )
    return replace(
        hit,
        line=None if hit.line is None else hit.line + offset,
        end=None if hit.end is None else hit.end + offset,
    )


def _aligned(file: CorpusFile, hit: Hit, tally: Tally, reflowed: bool = False) -> Located:
    """The evidence a hit's lines or text align to (``reflowed``: what stays unmatched is
    tried as a reflowed snippet, ``reflow.py``)."""
    if hit.text is None:
        if hit.line is None:
            return Located(file, hit, ())
        end = hit.end if hit.end is not None else hit.line
        results.check_claimed_lines(file, hit.line, end, f"a hit of {file.uri}")
        found = nonblank_evidence(file, hit.line, end, REASON)
        tally.aligned += len(found)
        return Located(file, hit, tuple(found), hit.line, end)
    lines = results.span_rule_lines(hit.text)
    if len(lines) == 1:
        return _one_line(file, hit, lines[0], tally, reflowed)
    block = align_block(file.lines, lines, prefer=hit.line)
    if reflowed and block.ambiguous == 0 and not any(block.numbers):
        # Nothing of it is any line of the document: a snippet re-wrapped at other places.
        solid = sum(1 for line in lines if not is_blank(line))
        return _reflowed(file, hit, "\n".join(lines), tally, solid)
    tally.ambiguous += block.ambiguous
    found_numbers, continued = _continued_previews(file, lines, block.numbers)
    tally.unmatched += block.unmatched - continued
    numbers = sorted(
        {n for n, text in zip(found_numbers, lines, strict=True) if n and not is_blank(text)}
    )
    tally.aligned += len(numbers)
    evidence = tuple(line_evidence(file, n, REASON) for n in numbers)
    if not numbers:
        return Located(file, hit, ())
    return Located(file, hit, evidence, numbers[0], numbers[-1])


def _continued_previews(
    file: CorpusFile, lines: Sequence[str], numbers: Sequence[int | None]
) -> tuple[list[int | None], int]:
    """Unaligned lines right after an aligned one that begin the next document line (a snippet
    whose last line was cut short): that line is theirs, its place fixed by its neighbour.
    Returns the numbers with those filled in, and how many were."""
    found = list(numbers)
    filled = 0
    for index in range(1, len(found)):
        before, text = found[index - 1], lines[index]
        if found[index] is not None or before is None or is_blank(text):
            continue
        key = preview_key(text)
        if before < len(file.lines) and key and preview_key(file.lines[before]).startswith(key):
            found[index] = before + 1
            filled += 1
    return found, filled


def _one_line(file: CorpusFile, hit: Hit, text: str, tally: Tally, reflowed: bool) -> Located:
    if is_blank(text):
        return Located(file, hit, ())
    match = align_line(file.lines, text, hit.line)
    if match.verdict == "unmatched" and reflowed:
        return _reflowed(file, hit, text, tally, 1)
    if match.number is None:
        if match.verdict == "ambiguous":
            tally.ambiguous += 1
        else:
            tally.unmatched += 1
        return Located(file, hit, ())
    tally.aligned += 1
    evidence = (line_evidence(file, match.number, REASON),)
    return Located(file, hit, evidence, match.number, match.number)


def _reflowed(file: CorpusFile, hit: Hit, text: str, tally: Tally, returned: int) -> Located:
    """A reflowed snippet (``returned`` non-blank returned lines) placed by ``reflow.py``: each
    line it shows is aligned; else its returned lines are ambiguous or unmatched."""
    span = align_reflowed(file.lines, text, hit.line)
    if span.verdict == "ambiguous":
        tally.ambiguous += returned
    elif span.verdict == "unmatched":
        tally.unmatched += returned
    tally.aligned += len(span.numbers)
    if not span.numbers:
        return Located(file, hit, ())
    evidence = tuple(line_evidence(file, n, REASON) for n in span.numbers)
    return Located(file, hit, evidence, span.numbers[0], span.numbers[-1])


def _shown(item: Located) -> JsonObject:
    shown: JsonObject = {"uri": item.file.uri}
    if item.first is not None and item.last is not None:
        shown["startLine"] = item.first
        shown["endLine"] = item.last
    if item.hit.text is not None:
        shown["text"] = item.hit.text
    return shown


def _requested(call: ParseInput) -> list[str]:
    if call.tool == "get":
        return [str(call.arguments["uri"])]
    return as_strs(call.arguments["uris"], "uris")


def _ordered(evidence: list[ToolEvidence]) -> list[ToolEvidence]:
    """One item per line, in line order (a line two hits both showed is evidence once)."""
    by_line = {item.startLine: item for item in evidence}
    return [by_line[line] for line in sorted(by_line)]


def _in_range(call: ParseInput, evidence: list[ToolEvidence]) -> list[ToolEvidence]:
    """A ``get``'s evidence within the lines the agent asked for, whatever the server sent."""
    if call.tool != "get":
        return evidence
    first = as_int(call.arguments.get("fromLine", 1), "fromLine")
    count = call.arguments.get("lineCount")
    last = None if count is None else first + as_int(count, "lineCount") - 1
    return [e for e in evidence if e.startLine >= first and (last is None or e.endLine <= last)]


def _cut(evidence: list[ToolEvidence], max_bytes: int) -> list[ToolEvidence]:
    """The contract's ``maxBytes`` prefix: stop before the first line that would pass the cap."""
    used = 0
    kept: list[ToolEvidence] = []
    for item in evidence:
        used += len(item.text.encode("utf-8"))
        if used > max_bytes:
            break
        kept.append(item)
    return kept
