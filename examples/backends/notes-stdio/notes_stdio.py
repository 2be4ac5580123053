"""notes-stdio: a tiny third-party style MCP retrieval server over stdio.

Two subcommands:

    python3 notes_stdio.py index CORPUS PREPARED   # once: writes PREPARED/index.json
    python3 notes_stdio.py serve PREPARED          # serves MCP over stdio from the index alone

The corpus is laid out as ``<collection>/<relPath>``; a document's URI is
``gno://<collection>/<relPath>``. The index holds URIs and document lines, never a path of the
machine that built it, so a prepared folder can be copied anywhere.

Tools (deliberately not the evaluation kit's names):

- ``find(q, scope=None, n=10)``: term-overlap ranking over 6-line chunks;
- ``read(doc, start=1, count=None)``: an inclusive line range of one document;
- ``read_many(docs)``: whole documents, in request order.

Every tool returns ``{"results": [{"uri", "startLine", "endLine", "text"}]}`` as structured
content. Only the standard library and the ``mcp`` SDK are used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SERVER_NAME = "notes-stdio"
INDEX_FILE = "index.json"
INDEX_FORMAT = 1
CHUNK_LINES = 6
_WORD = re.compile(r"\w+")


# --- text helpers -------------------------------------------------------------------------------


def split_lines(text: str) -> list[str]:
    """The file split on ``\\n`` after dropping one trailing newline (1-based numbering)."""
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


def words(text: str) -> set[str]:
    """Distinct lowercase ``\\w+`` words."""
    return set(_WORD.findall(text.lower()))


def chunk_spans(lines: list[str]) -> list[tuple[int, int]]:
    """Inclusive (startLine, endLine) of each chunk: starts at 1, 7, 13, ...; all-blank skipped."""
    spans: list[tuple[int, int]] = []
    for first in range(0, len(lines), CHUNK_LINES):
        block = lines[first : first + CHUNK_LINES]
        if any(line.strip() for line in block):
            spans.append((first + 1, first + len(block)))
    return spans


# --- index step ---------------------------------------------------------------------------------


def _is_hidden(rel: Path) -> bool:
    return any(part.startswith(".") for part in rel.parts)


def build_index(corpus: Path) -> dict[str, Any]:
    """The index document for a corpus folder (deterministic: documents sorted by URI)."""
    documents: list[dict[str, Any]] = []
    for collection_dir in sorted(p for p in corpus.iterdir() if p.is_dir()):
        collection = collection_dir.name
        if collection.startswith("."):
            continue
        for path in sorted(p for p in collection_dir.rglob("*") if p.is_file()):
            rel = path.relative_to(collection_dir)
            if _is_hidden(rel):
                continue
            try:
                text = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                continue  # not a text document
            lines = split_lines(text)
            chunks = [
                {
                    "startLine": start,
                    "endLine": end,
                    "terms": sorted(words("\n".join(lines[start - 1 : end]))),
                }
                for start, end in chunk_spans(lines)
            ]
            documents.append(
                {
                    "uri": f"gno://{collection}/{rel.as_posix()}",
                    "collection": collection,
                    "lines": lines,
                    "chunks": chunks,
                }
            )
    documents.sort(key=lambda d: str(d["uri"]))
    return {"format": INDEX_FORMAT, "server": SERVER_NAME, "documents": documents}


def write_index(corpus: Path, prepared: Path) -> Path:
    """Build the index and write it atomically to ``PREPARED/index.json`` (the only write)."""
    if not corpus.is_dir():
        raise SystemExit(f"{SERVER_NAME}: corpus folder not found: {corpus}")
    index = build_index(corpus)
    prepared.mkdir(parents=True, exist_ok=True)
    target = prepared / INDEX_FILE
    partial = prepared / (INDEX_FILE + ".partial")
    payload = json.dumps(index, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    partial.write_text(payload + "\n", encoding="utf-8", newline="\n")
    os.replace(partial, target)
    return target


# --- serve step ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    uri: str
    collection: str
    start: int
    end: int
    terms: frozenset[str]


@dataclass(frozen=True)
class Index:
    lines: dict[str, list[str]]  # uri -> lines
    chunks: list[Chunk]  # sorted by (uri, start)

    @classmethod
    def load(cls, prepared: Path) -> Index:
        path = prepared / INDEX_FILE
        if not path.is_file():
            raise SystemExit(f"{SERVER_NAME}: no index at {path}; run the index step first")
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("format") != INDEX_FORMAT:
            raise SystemExit(f"{SERVER_NAME}: unsupported index format in {path}")
        lines: dict[str, list[str]] = {}
        chunks: list[Chunk] = []
        for doc in raw["documents"]:
            uri = str(doc["uri"])
            lines[uri] = [str(line) for line in doc["lines"]]
            for chunk in doc["chunks"]:
                chunks.append(
                    Chunk(
                        uri=uri,
                        collection=str(doc["collection"]),
                        start=int(chunk["startLine"]),
                        end=int(chunk["endLine"]),
                        terms=frozenset(chunk["terms"]),
                    )
                )
        chunks.sort(key=lambda c: (c.uri, c.start))
        return cls(lines=lines, chunks=chunks)

    def item(self, uri: str, start: int, end: int) -> dict[str, Any]:
        text = "\n".join(self.lines[uri][start - 1 : end])
        return {"uri": uri, "startLine": start, "endLine": end, "text": text}

    def search(self, query: str, scope: list[str] | None, limit: int) -> list[dict[str, Any]]:
        wanted = words(query)
        allowed = set(scope) if scope else None
        scored: list[tuple[int, Chunk]] = []
        for chunk in self.chunks:
            if allowed is not None and chunk.collection not in allowed:
                continue
            score = len(wanted & chunk.terms)
            if score > 0:
                scored.append((score, chunk))
        # Stable sort on the score alone keeps the (uri, startLine) order within a tie.
        scored.sort(key=lambda pair: -pair[0])
        return [self.item(c.uri, c.start, c.end) for _, c in scored[: max(limit, 0)]]


def build_server(index: Index) -> MCPServer[Any]:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server: MCPServer[Any] = MCPServer(SERVER_NAME, version="1.0.0", log_level="WARNING")

    def lines_of(doc: str) -> list[str]:
        lines = index.lines.get(doc)
        if lines is None:
            raise ToolError(f"unknown document: {doc}")
        return lines

    @server.tool()
    def find(q: str, scope: list[str] | None = None, n: int = 10) -> dict[str, Any]:
        """Find passages: 6-line chunks ranked by how many distinct query words they contain.

        q: the query words. scope: only these collections (all when omitted).
        n: the most chunks to return.
        """
        return {"results": index.search(q, scope, n)}

    @server.tool()
    def read(doc: str, start: int = 1, count: int | None = None) -> dict[str, Any]:
        """Read lines start..start+count-1 of a document (to its end when count is omitted).

        doc: the document URI (gno://collection/path). start: first line, 1-based.
        """
        lines = lines_of(doc)
        if start < 1 or start > len(lines):
            raise ToolError(f"start {start} is outside {doc} (lines 1-{len(lines)})")
        if count is not None and count < 0:
            raise ToolError("count must not be negative")
        end = len(lines) if count is None else min(start + count - 1, len(lines))
        return {"results": [index.item(doc, start, end)]}

    @server.tool()
    def read_many(docs: list[str]) -> dict[str, Any]:
        """Read whole documents, one result per URI, in request order."""
        return {"results": [index.item(doc, 1, len(lines_of(doc))) for doc in docs]}

    return server


async def _serve(prepared: Path) -> None:
    index = Index.load(prepared)  # before stdio is claimed: a bad index fails loudly
    server = build_server(index)
    task = asyncio.ensure_future(server.run_stdio_async())
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, task.cancel)
    with contextlib.suppress(asyncio.CancelledError):
        await task


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="notes_stdio.py", description="notes-stdio MCP server")
    commands = parser.add_subparsers(dest="command", required=True)
    index_cmd = commands.add_parser("index", help="build PREPARED/index.json from CORPUS")
    index_cmd.add_argument("corpus", type=Path)
    index_cmd.add_argument("prepared", type=Path)
    serve_cmd = commands.add_parser("serve", help="serve MCP over stdio from PREPARED")
    serve_cmd.add_argument("prepared", type=Path)
    args = parser.parse_args(argv)

    if args.command == "index":
        target = write_index(args.corpus, args.prepared)
        print(f"{SERVER_NAME}: wrote {target}", file=sys.stderr)
        return 0
    asyncio.run(_serve(args.prepared))
    return 0


if __name__ == "__main__":
    sys.exit(main())
