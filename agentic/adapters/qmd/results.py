"""Normalizing qmd's MCP results into the frozen tool contract.

search (qmd ``query``)
    Read from ``structuredContent.results[]`` only (the text summary is ignored). Each result's
    ``file`` is ``<qmd collection>/<relPath>``; a collection name that is not one of the call's
    collections is a ``task_scope_violation`` (the result never reaches the agent). The snippet
    is ``N: ``-numbered text whose first line is ``@@ -START,COUNT @@ (B before, A after)``:
    START is the 1-based file line of the first snippet line (the ``N:`` prefixes themselves are
    not reliable and are only stripped). Evidence is each snippet line that equals the snapshot's
    line at its number (a line qmd cut at its 300-character snippet limit does not). Content is
    canonical JSON ``{mode, query, results:[{uri, score, line, startLine, endLine}]}``, where
    ``startLine``/``endLine`` are the snippet header's range and ``score`` is qmd's (rank based).
get / multi_get
    Read from the resource items (requested with ``lineNumbers: false``). Served lines follow the
    contract's span rule (CRLF as LF, one trailing newline dropped); each served line equal to the
    snapshot's line at its number is evidence. Content is the served lines joined by LF, as the
    in-process adapters return it. ``multi_get``'s ``maxBytes`` is the contract's prefix cut over
    non-blank line bytes, applied here (qmd's own ``maxBytes`` skips whole files instead, so it is
    set above any document). A document qmd reports missing is ``document_not_found``.

A result claiming lines past the document's end is ``invalid_tool_result``. qmd, like GNO, counts
the empty line after a final newline (its snippet headers may end there), so that one line is
allowed and nothing beyond it.

No result carries backend hashes (qmd returns none) and no backend-invocation count is invented:
qmd does not report its internal work, so the lanes declare ``backendInvocationAccounting:
false`` and count 0 per call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from agentic.adapters.base import CallOutcome, ok_outcome
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp.profile import CallScope, RawResource
from agentic.adapters.mcp.results import (
    as_int,
    as_list,
    as_object,
    as_str,
    as_unit_score,
    check_claimed_lines,
    invalid,
    matching_evidence,
    mismatch_note,
    scoped_file,
    span_rule_lines,
)
from agentic.adapters.qmd.native import collection_names
from agentic.adapters.reads import read_content, scope_violation
from agentic.contract.canonical import canonical_text
from agentic.contract.jsrules import is_blank
from agentic.contract.receipt import ToolEvidence
from agentic.contract.strict_json import JsonObject
from agentic.fixture.snapshot import CorpusFile

SEARCH_REASON = "qmd search results carry no source/span hashes"
READ_REASON = "qmd document reads carry no source/span hashes"
NO_INVOCATION_ACCOUNTING = 0
_HEADER = re.compile(r"^@@ -([0-9]+),([0-9]+) @@ \([0-9]+ before, [0-9]+ after\)$")
_NUMBER_PREFIX = re.compile(r"^[0-9]+: ")
_QMD_URI = "qmd://"


@dataclass(frozen=True)
class Snippet:
    start: int
    count: int
    lines: tuple[str, ...]


# qmd reads are parsed from the product result's own resource items, never from a copy.
Resource = RawResource


def _strip_number(line: str, what: str) -> str:
    match = _NUMBER_PREFIX.match(line)
    if match is None:
        raise invalid(f"{what} has a line without its 'N: ' prefix")
    return line[match.end() :]


def parse_snippet(text: str, what: str) -> Snippet:
    """The header's START and COUNT and the snippet's own lines (CR of CRLF removed)."""
    numbered = text.split("\n")
    header = _HEADER.match(_strip_number(numbered[0], what))
    if header is None:
        raise invalid(f"{what} does not start with an '@@ -START,COUNT @@' header")
    start, count = int(header.group(1)), int(header.group(2))
    if start < 1:
        raise invalid(f"{what} starts before line 1")
    lines = tuple(_strip_number(line, what).removesuffix("\r") for line in numbered[1:])
    if len(lines) > count:
        raise invalid(f"{what} holds {len(lines)} lines for a {count}-line header")
    return Snippet(start=start, count=count, lines=lines)


def file_of(scope: CallScope, qmd_file: str, collections: Sequence[str]) -> CorpusFile:
    """The snapshot file behind qmd's ``<collection name>/<relPath>``, inside ``collections``."""
    name, _, rel_path = qmd_file.partition("/")
    by_name = {qmd: fixture for fixture, qmd in collection_names(tuple(collections)).items()}
    if name not in by_name or not rel_path:
        raise scope_violation(f"qmd returned {qmd_file!r}, outside the call's collections")
    return scoped_file(scope, f"gno://{by_name[name]}/{rel_path}", collections)


def search_outcome(
    structured: object, *, scope: CallScope, collections: Sequence[str], mode: str, query: str
) -> CallOutcome:
    results = as_list(as_object(structured, "query structured content").get("results"), "results")
    hits: list[JsonObject] = []
    evidence: list[ToolEvidence] = []
    notes: list[str] = []
    for position, item in enumerate(results):
        what = f"results[{position}]"
        result = as_object(item, what)
        file = file_of(scope, as_str(result.get("file"), f"{what}.file"), collections)
        snippet = parse_snippet(as_str(result.get("snippet"), f"{what}.snippet"), what)
        end = snippet.start + snippet.count - 1
        check_claimed_lines(file, snippet.start, end, what, counts_final_newline=True)
        found, mismatched = matching_evidence(file, snippet.start, snippet.lines, SEARCH_REASON)
        evidence.extend(found)
        notes.extend(mismatch_note(file.uri, mismatched))
        hits.append(
            {
                "uri": file.uri,
                "score": as_unit_score(result.get("score"), f"{what}.score"),
                "line": as_int(result.get("line"), f"{what}.line", 1),
                "startLine": snippet.start,
                "endLine": end,
            }
        )
    content = canonical_text({"mode": mode, "query": query, "results": hits})
    return ok_outcome("candidates", content, evidence, NO_INVOCATION_ACCOUNTING, notes)


def _resource_file(scope: CallScope, resource: Resource) -> CorpusFile:
    if not resource.uri.startswith(_QMD_URI):
        raise invalid(f"read result names {resource.uri!r}, not a qmd:// document")
    return file_of(scope, unquote(resource.uri[len(_QMD_URI) :]), scope.collections)


def not_found(text: str) -> AdapterCallError | None:
    """qmd's way of saying a requested document is absent, as the contract's code."""
    lowered = text.lower()
    if "not found" in lowered or "no files matched" in lowered:
        return AdapterCallError("document_not_found", "product_error", text.splitlines()[0])
    return None


def get_outcome(
    resources: Sequence[Resource], *, scope: CallScope, uri: str, start: int, count: int | None
) -> CallOutcome:
    if len(resources) != 1:
        raise invalid(f"get returned {len(resources)} resources, expected 1")
    file = _resource_file(scope, resources[0])
    if file.uri != uri:
        raise invalid(f"get asked for {uri} and qmd served {file.uri}")
    lines = span_rule_lines(resources[0].text)
    if count is not None and len(lines) > count:
        raise invalid(f"get asked for {count} lines and qmd served {len(lines)}")
    check_claimed_lines(file, start, start + len(lines) - 1, "get", counts_final_newline=True)
    evidence, mismatched = matching_evidence(file, start, lines, READ_REASON)
    notes = mismatch_note(uri, mismatched)
    return ok_outcome("source", read_content(evidence), evidence, NO_INVOCATION_ACCOUNTING, notes)


def multi_get_outcome(
    resources: Sequence[Resource], *, scope: CallScope, uris: Sequence[str], max_bytes: int | None
) -> CallOutcome:
    if len(resources) != len(uris):
        raise invalid(f"multi_get asked for {len(uris)} documents and qmd served {len(resources)}")
    used = 0
    evidence: list[ToolEvidence] = []
    notes: list[str] = []
    for resource, uri in zip(resources, uris, strict=True):
        file = _resource_file(scope, resource)
        if file.uri != uri:
            raise invalid(f"multi_get asked for {uri} and qmd served {file.uri} in its place")
        lines = span_rule_lines(resource.text)
        check_claimed_lines(file, 1, len(lines), uri, counts_final_newline=True)
        served: list[str] = []
        cut = False
        for line in lines:
            size = 0 if is_blank(line) else len(line.encode("utf-8"))
            if max_bytes is not None and used + size > max_bytes:
                cut = True
                break
            used += size
            served.append(line)
        found, mismatched = matching_evidence(file, 1, served, READ_REASON)
        evidence.extend(found)
        notes.extend(mismatch_note(uri, mismatched))
        if cut:
            break
    return ok_outcome("source", read_content(evidence), evidence, NO_INVOCATION_ACCOUNTING, notes)
