"""Task-scoped document reads shared by the in-process adapters: scope checks, line evidence,
``get`` and ``multi_get``.

Every coordinate these functions emit is harness-observed: the text comes from the index, its
bytes are checked against the stored source hash and that hash against the frozen snapshot, and
the line text and hashes are then taken from the snapshot itself. Backend hashes are always null
(an in-process index has no independent backend hash), with a reason.

Read rules:

- ``get {uri, fromLine?, lineCount?}`` serves lines ``fromLine .. fromLine+lineCount-1`` clamped
  to the document (the whole document by default; nothing when ``fromLine`` is past the end).
  Each non-blank served line is one single-line evidence item. Two backend invocations per URI
  (lookup and read).
- ``multi_get {uris, maxBytes?}`` serves each URI whole, in request order. With ``maxBytes`` the
  served prefix stops before the first non-blank line whose UTF-8 size would push the cumulative
  evidence text bytes over the cap, so evidence names exactly the lines that were served.

As in contract v1.0, the content of both reads is the texts of their evidence items joined by LF:
blank lines of a range are neither evidence nor content, and after a ``maxBytes`` cut only the
kept items count. Content bytes, and so model-visible bytes, match the reference's byte for byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from agentic.adapters.base import CallOutcome, ok_outcome
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.lexical_index import LexicalIndex
from agentic.contract.json_access import as_int, as_strs
from agentic.contract.jsrules import is_blank
from agentic.contract.receipt import ToolEvidence
from agentic.contract.strict_json import JsonObject
from agentic.fixture.snapshot import CorpusFile, CorpusSnapshot

LEXICAL_HASH_REASON = "lexical results do not provide complete source/span hash pairs"
READ_HASH_REASON = "document reads do not provide complete source/span hash pairs"
INVOCATIONS_PER_READ = 2

_URI = re.compile(r"^gno://([^/]+)/.+$")


def scope_violation(message: str) -> AdapterCallError:
    return AdapterCallError("task_scope_violation", "product_error", message)


@dataclass(frozen=True)
class TaskScope:
    """The collections one task may see."""

    task_id: str
    collections: tuple[str, ...]

    def check_collection(self, collection: str) -> None:
        if collection not in self.collections:
            raise scope_violation(f"collection {collection!r} is not visible to this task")

    def check_uri(self, uri: str) -> None:
        match = _URI.match(uri)
        if match is None or match.group(1) not in self.collections:
            raise scope_violation(f"uri {uri!r} is not in a task collection")


def line_evidence(file: CorpusFile, line: int, reason: str) -> ToolEvidence:
    coordinate = file.line_evidence(line)
    if coordinate is None:
        raise AdapterCallError(
            "invalid_tool_result", "harness_error", f"line {line} not in {file.uri}"
        )
    return ToolEvidence(
        **coordinate.model_dump(),
        text=file.lines[line - 1],
        backendSourceHash=None,
        backendSpanHash=None,
        backendHashUnavailableReason=reason,
    )


def nonblank_evidence(file: CorpusFile, start: int, end: int, reason: str) -> list[ToolEvidence]:
    """Single-line evidence for every non-blank line of an inclusive range (clamped)."""
    last = min(end, len(file.lines))
    return [
        line_evidence(file, line, reason)
        for line in range(max(start, 1), last + 1)
        if not is_blank(file.lines[line - 1])
    ]


def snapshot_file(snapshot: CorpusSnapshot, uri: str, stored_hash: str | None = None) -> CorpusFile:
    """The snapshot file behind an index URI; its hash must equal what the index stored."""
    file = snapshot.by_uri(uri)
    if file is None:
        raise AdapterCallError(
            "unknown_index_document", "product_error", f"{uri} is not in the corpus"
        )
    if stored_hash is not None and stored_hash != file.source_hash:
        raise AdapterCallError(
            "source_hash_mismatch", "product_error", f"index text of {uri} differs"
        )
    return file


class Reader(Protocol):
    """Where ``get`` and ``multi_get`` find a document: the verified snapshot file of a URI."""

    def read(self, uri: str, deadline: float | None) -> CorpusFile: ...


@dataclass(frozen=True)
class DocumentReader:
    """Reads a document through the index and returns the verified snapshot file."""

    index: LexicalIndex
    snapshot: CorpusSnapshot

    def read(self, uri: str, deadline: float | None) -> CorpusFile:
        stored = self.index.document(uri, deadline=deadline)
        if stored is None:
            raise AdapterCallError("document_not_found", "product_error", f"no document {uri}")
        return snapshot_file(self.snapshot, uri, stored.source_hash)


@dataclass(frozen=True)
class SnapshotReader:
    """Reads a document from the verified snapshot alone: the kit's own reads for a configured
    server that only searches (``reads = "snapshot"``). An unknown URI fails as a read through
    the index does."""

    snapshot: CorpusSnapshot

    def read(self, uri: str, deadline: float | None) -> CorpusFile:
        file = self.snapshot.by_uri(uri)
        if file is None:
            raise AdapterCallError("document_not_found", "product_error", f"no document {uri}")
        return file


def read_content(evidence: list[ToolEvidence]) -> str:
    """A read's content under contract v1.0: its evidence texts joined by LF."""
    return "\n".join(item.text for item in evidence)


def source_outcome(evidence: list[ToolEvidence], invocations: int) -> CallOutcome:
    return ok_outcome("source", read_content(evidence), evidence, invocations)


def get(
    reader: Reader, scope: TaskScope, arguments: JsonObject, deadline: float | None
) -> CallOutcome:
    uri = str(arguments["uri"])
    scope.check_uri(uri)
    file = reader.read(uri, deadline)
    start = as_int(arguments.get("fromLine", 1), "fromLine")
    count = arguments.get("lineCount")
    end = (
        len(file.lines)
        if count is None
        else min(start + as_int(count, "lineCount") - 1, len(file.lines))
    )
    evidence = nonblank_evidence(file, start, end, READ_HASH_REASON)
    return source_outcome(evidence, INVOCATIONS_PER_READ)


def multi_get(
    reader: Reader, scope: TaskScope, arguments: JsonObject, deadline: float | None
) -> CallOutcome:
    uris = as_strs(arguments["uris"], "uris")
    for uri in uris:
        scope.check_uri(uri)
    files = [reader.read(uri, deadline) for uri in uris]
    cap = None if arguments.get("maxBytes") is None else as_int(arguments["maxBytes"], "maxBytes")
    used = 0
    evidence: list[ToolEvidence] = []
    for file in files:
        for number, line in enumerate(file.lines, start=1):
            if is_blank(line):
                continue
            size = len(line.encode("utf-8"))
            if cap is not None and used + size > cap:
                return source_outcome(evidence, INVOCATIONS_PER_READ * len(uris))
            used += size
            evidence.append(line_evidence(file, number, READ_HASH_REASON))
    return source_outcome(evidence, INVOCATIONS_PER_READ * len(uris))
