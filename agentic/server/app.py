"""The reference MCP retrieval server (``agentic serve``) over a prepared lexical index.

It is a product, not a harness: its tools have their own names and shapes, the way a real
retrieval server's would, and the ``mcp-reference`` adapter profile maps the frozen tool contract
onto them. Retrieval semantics equal the in-process ``lexical`` adapter's:

- ``kb_search {query, collections?, limit?}`` ranks each requested collection separately (BM25,
  scores min-max normalized per collection: best 1, worst 0, all equal 1) and returns, per hit,
  the snippet range (the document's first chunk) with its exact lines as ``text``.
  ``searched`` lists the collections searched, one index query each.
- ``kb_get {uri, fromLine?, lineCount?, lineNumbers?=true}`` serves an inclusive line range
  (clamped; the whole document by default).
- ``kb_multi_get {uris, maxBytes?, lineNumbers?=true}`` serves whole documents in request order;
  ``maxBytes`` cuts before the first non-blank line that would push the cumulative non-blank
  line bytes over the cap.

Reads prefix each line with ``"N: "`` unless ``lineNumbers`` is false. Structured content always
carries the 1-based inclusive coordinates of what was served. Product errors (a bad query, an
unknown document) are tool results with ``isError`` and ``{"error": code, "message": ...}``.

Arguments are read as the SDK's servers read a function's parameters (pydantic's lax mode: an
integral float or a numeric string is an integer, ``1`` or ``"yes"`` a boolean, an unknown
argument ignored); a call they do not fit is an error result naming the argument. The protocol
is ``stdio.py``'s.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters.errors import AdapterError
from agentic.adapters.lexical_index import (
    INDEX_FILE,
    LexicalIndex,
    StoredDocument,
    first_chunk_end,
)
from agentic.contract.code_names import ErrorCodeName, RelayedCode
from agentic.contract.errors import AgenticError, ContractError
from agentic.contract.json_access import as_objects
from agentic.contract.jsrules import is_blank
from agentic.contract.strict_json import JsonArray, JsonObject, JsonValue
from agentic.server.stdio import ServerInfo, serve_stdio

SERVER_NAME = "agentic-reference"
SERVER_VERSION = "1"
DEFAULT_LIMIT = 20


class ProductError(AgenticError):
    def __init__(self, code: ErrorCodeName | RelayedCode, message: str) -> None:
        self.code = code
        super().__init__(message)


@dataclass(frozen=True)
class Served:
    """An inclusive served line range; ``end == start - 1`` when nothing was served."""

    document: StoredDocument
    start: int
    end: int

    @property
    def lines(self) -> tuple[str, ...]:
        return self.document.lines[self.start - 1 : self.end]

    def text(self, line_numbers: bool) -> str:
        if line_numbers:
            return "\n".join(f"{self.start + i}: {line}" for i, line in enumerate(self.lines))
        return "\n".join(self.lines)

    def to_json(self, line_numbers: bool) -> JsonObject:
        return {
            "uri": self.document.uri,
            "title": self.document.title,
            "totalLines": len(self.document.lines),
            "startLine": self.start,
            "endLine": self.end,
            "text": self.text(line_numbers),
        }


def normalized_scores(raw: list[float]) -> list[float]:
    """Min-max over one collection's raw bm25 values (lower is better): best 1, worst 0."""
    if not raw:
        return []
    best, worst = min(raw), max(raw)
    if best == worst:
        return [1.0 for _ in raw]
    return [(worst - value) / (worst - best) for value in raw]


def index_collections(db_path: Path) -> tuple[str, ...]:
    """Every collection in the index file, sorted (the default search scope)."""
    uri = f"{db_path.resolve().as_uri()}?mode=ro"
    connection = sqlite3.connect(uri, uri=True)
    try:
        rows = connection.execute(
            "SELECT DISTINCT collection FROM documents ORDER BY collection"
        ).fetchall()
    finally:
        connection.close()
    return tuple(str(row[0]) for row in rows)


class KnowledgeBase:
    """The server's retrieval logic over one open index, independent of MCP."""

    def __init__(self, index: LexicalIndex, collections: tuple[str, ...]) -> None:
        self._index = index
        self._collections = collections

    def search(self, query: str, collections: list[str] | None, limit: int | None) -> JsonObject:
        scopes = list(collections) if collections else list(self._collections)
        unknown = [c for c in scopes if c not in self._collections]
        if unknown:
            raise ProductError("unknown_collection", f"no collection {unknown[0]!r}")
        if limit is not None and limit < 1:
            raise ProductError("invalid_limit", "limit must be at least 1")
        results: JsonArray = []
        for collection in scopes:
            hits = self._index.search(query, collection, limit or DEFAULT_LIMIT)
            scores = normalized_scores([hit.score for hit in hits])
            for hit, score in zip(hits, scores, strict=True):
                document = self._document(hit.uri)
                served = Served(document, 1, first_chunk_end(document.lines))
                results.append({**served.to_json(False), "score": score})
        return {"query": query, "searched": list(scopes), "results": results}

    def get(
        self, uri: str, from_line: int | None, line_count: int | None, line_numbers: bool
    ) -> JsonObject:
        if (from_line is not None and from_line < 1) or (line_count is not None and line_count < 1):
            raise ProductError("invalid_range", "fromLine and lineCount must be at least 1")
        document = self._document(uri)
        start = from_line or 1
        total = len(document.lines)
        end = total if line_count is None else min(start + line_count - 1, total)
        served = Served(document, start, max(end, start - 1))
        return served.to_json(line_numbers)

    def multi_get(self, uris: list[str], max_bytes: int | None, line_numbers: bool) -> JsonObject:
        if not uris:
            raise ProductError("invalid_uris", "uris must not be empty")
        if max_bytes is not None and max_bytes < 1:
            raise ProductError("invalid_max_bytes", "maxBytes must be at least 1")
        documents = [self._document(uri) for uri in uris]
        used = 0
        served: JsonArray = []
        for document in documents:
            end, used, cut = _cut(document.lines, used, max_bytes)
            if end >= 1:
                entry = Served(document, 1, end).to_json(line_numbers)
                served.append({**entry, "truncated": cut})
            if cut:
                break
        return {"requested": len(uris), "returned": len(served), "documents": served}

    def _document(self, uri: str) -> StoredDocument:
        try:
            document = self._index.document(uri)
        except AdapterError as exc:
            raise ProductError(exc.code, str(exc)) from exc
        if document is None:
            raise ProductError("document_not_found", f"no document {uri}")
        return document


def _cut(lines: tuple[str, ...], used: int, cap: int | None) -> tuple[int, int, bool]:
    """Last served line, bytes used after it, and whether the cap cut this document."""
    for number, line in enumerate(lines, start=1):
        if is_blank(line):
            continue
        size = len(line.encode("utf-8"))
        if cap is not None and used + size > cap:
            return number - 1, used, True
        used += size
    return len(lines), used, False


def _ok(structured: JsonObject, text: str) -> JsonObject:
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": False,
    }


def _failed(text: str, structured: JsonObject | None = None) -> JsonObject:
    result: JsonObject = {"content": [{"type": "text", "text": text}], "isError": True}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def _error(exc: ProductError) -> JsonObject:
    return _failed(f"{exc.code}: {exc}", {"error": exc.code, "message": str(exc)})


def _search_text(payload: JsonObject) -> str:
    results = as_objects(payload["results"], "results")
    lines = [f"{len(results)} result(s) for {payload['query']!r}"]
    for rank, hit in enumerate(results, start=1):
        lines.append(
            f"{rank}. {hit['uri']} {hit['title']!r} score={hit['score']:.4f} "
            f"lines {hit['startLine']}-{hit['endLine']}"
        )
    return "\n".join(lines)


# --- arguments, read as pydantic's lax mode reads a function's parameters ----------------------


class ArgumentError(AgenticError):
    pass


_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})
_INT64 = 2**63


def _string(value: JsonValue, name: str) -> str:
    if isinstance(value, str):
        return value
    raise ArgumentError(f"{name}: a string is required")


def _strings(value: JsonValue, name: str) -> list[str]:
    if isinstance(value, list):
        return [_string(item, f"{name}.{index}") for index, item in enumerate(value)]
    raise ArgumentError(f"{name}: a list of strings is required")


def _integer(value: JsonValue, name: str) -> int:
    if isinstance(value, int):  # a bool too: pydantic reads True as 1
        return int(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < _INT64:
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise ArgumentError(f"{name}: an integer is required")


def _boolean(value: JsonValue, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    raise ArgumentError(f"{name}: a boolean is required")


def _optional_integer(arguments: JsonObject, name: str) -> int | None:
    value = arguments.get(name)
    return None if value is None else _integer(value, name)


def _required(arguments: JsonObject, name: str) -> JsonValue:
    if name not in arguments:
        raise ArgumentError(f"{name}: required")
    return arguments[name]


# --- the tools ---------------------------------------------------------------------------------


def _kb_search(kb: KnowledgeBase, arguments: JsonObject) -> JsonObject:
    query = _string(_required(arguments, "query"), "query")
    named = arguments.get("collections")
    collections = None if named is None else _strings(named, "collections")
    payload = kb.search(query, collections, _optional_integer(arguments, "limit"))
    return _ok(payload, _search_text(payload))


def _kb_get(kb: KnowledgeBase, arguments: JsonObject) -> JsonObject:
    uri = _string(_required(arguments, "uri"), "uri")
    start = _optional_integer(arguments, "fromLine")
    count = _optional_integer(arguments, "lineCount")
    numbers = _boolean(arguments.get("lineNumbers", True), "lineNumbers")
    payload = kb.get(uri, start, count, numbers)
    return _ok(payload, str(payload["text"]))


def _kb_multi_get(kb: KnowledgeBase, arguments: JsonObject) -> JsonObject:
    uris = _strings(_required(arguments, "uris"), "uris")
    cap = _optional_integer(arguments, "maxBytes")
    numbers = _boolean(arguments.get("lineNumbers", True), "lineNumbers")
    payload = kb.multi_get(uris, cap, numbers)
    documents = as_objects(payload["documents"], "documents")
    return _ok(payload, "\n\n".join(f"== {d['uri']}\n{d['text']}" for d in documents))


_HANDLERS: dict[str, Callable[[KnowledgeBase, JsonObject], JsonObject]] = {
    "kb_search": _kb_search,
    "kb_get": _kb_get,
    "kb_multi_get": _kb_multi_get,
}


def _nullable(kind: JsonObject, title: str) -> JsonObject:
    return {"anyOf": [kind, {"type": "null"}], "default": None, "title": title}


_STRINGS: JsonObject = {"items": {"type": "string"}, "type": "array"}
_INTEGER: JsonObject = {"type": "integer"}
_LINE_NUMBERS: JsonObject = {"default": True, "title": "Linenumbers", "type": "boolean"}

# Each tool as tools/list shows it: the schema pydantic derives from the parameters above, as
# the SDK's servers list theirs.
TOOLS: tuple[JsonObject, ...] = (
    {
        "name": "kb_search",
        "description": "Search the knowledge base; one query per collection.",
        "inputSchema": {
            "properties": {
                "query": {"title": "Query", "type": "string"},
                "collections": _nullable(_STRINGS, "Collections"),
                "limit": _nullable(_INTEGER, "Limit"),
            },
            "required": ["query"],
            "type": "object",
            "title": "kb_searchArguments",
        },
    },
    {
        "name": "kb_get",
        "description": "Read one document or an inclusive line range.",
        "inputSchema": {
            "properties": {
                "uri": {"title": "Uri", "type": "string"},
                "fromLine": _nullable(_INTEGER, "Fromline"),
                "lineCount": _nullable(_INTEGER, "Linecount"),
                "lineNumbers": _LINE_NUMBERS,
            },
            "required": ["uri"],
            "type": "object",
            "title": "kb_getArguments",
        },
    },
    {
        "name": "kb_multi_get",
        "description": "Read several documents, optionally byte-capped.",
        "inputSchema": {
            "properties": {
                "uris": {**_STRINGS, "title": "Uris"},
                "maxBytes": _nullable(_INTEGER, "Maxbytes"),
                "lineNumbers": _LINE_NUMBERS,
            },
            "required": ["uris"],
            "type": "object",
            "title": "kb_multi_getArguments",
        },
    },
)


def call_tool(kb: KnowledgeBase, name: str, arguments: JsonObject) -> JsonObject:
    """One tool call's result. A product fault is an error result with a stable code; arguments
    that do not fit, or a fault of the server itself, an error result in words (the server
    keeps serving)."""
    handler = _HANDLERS.get(name)
    if handler is None:
        return _failed(f"Unknown tool: {name}")
    try:
        return handler(kb, arguments)
    except ProductError as exc:
        return _error(exc)
    except AdapterError as exc:  # the index's own typed errors (e.g. invalid_search_query)
        return _error(ProductError(exc.code, str(exc)))
    except ArgumentError as exc:
        return _failed(f"Error executing tool {name}: invalid arguments: {exc}")
    except Exception as exc:
        return _failed(f"Error executing tool {name}: {exc}")


def server_info(kb: KnowledgeBase) -> ServerInfo:
    """The reference server over one knowledge base, as the stdio transport serves it."""

    def call(name: str, arguments: JsonObject) -> JsonObject:
        return call_tool(kb, name, arguments)

    return ServerInfo(SERVER_NAME, SERVER_VERSION, TOOLS, call)


def serve_index(index_dir: Path) -> None:
    """Serve the prepared index folder ``index_dir`` on stdio until stdin closes."""
    db_path = index_dir / INDEX_FILE
    if not db_path.is_file():
        raise ContractError("index_not_found", f"no prepared index at {db_path}")
    serve(db_path)


def serve(db_path: Path) -> None:
    """Serve MCP on stdio until stdin closes."""
    try:
        index = LexicalIndex.open(db_path, read_only=True)
    except (OSError, ValueError, sqlite3.DatabaseError) as exc:
        raise ContractError("index_unreadable", f"cannot open {db_path}: {exc}") from exc
    try:
        serve_stdio(server_info(KnowledgeBase(index, index_collections(db_path))))
    finally:
        index.close()
