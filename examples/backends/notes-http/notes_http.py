"""notes-http: a tiny third-party style MCP retrieval server over streamable HTTP.

    python3 notes_http.py --root CORPUS --port PORT

Loads the corpus folder (``<collection>/<relPath>``) at start, with no prepare step, and serves
MCP streamable HTTP at ``http://127.0.0.1:PORT/mcp``. A document's URI is
``gno://<collection>/<relPath>``.

Tools (deliberately not the evaluation kit's names), whose results are embedded text resources
(``type: "resource"``, mimeType ``text/markdown``) holding exact document lines:

- ``lookup(text, limit=5, within=None)``: term-overlap ranking over 6-line chunks, one resource
  per hit, ``within`` restricting to one collection;
- ``fetch(path, first=1, n=None)``: one resource with lines first..first+n-1 of a document.

Each resource also carries ``_meta: {"startLine", "endLine"}``. Only the standard library and
the ``mcp`` SDK are used.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

# Module level, not inside build_server: the SDK resolves the tools' (string) annotations against
# the module globals, so a name imported locally would make tool registration fail.
from mcp_types import CallToolResult, ContentBlock, EmbeddedResource, TextResourceContents

SERVER_NAME = "notes-http"
HOST = "127.0.0.1"
MCP_PATH = "/mcp"
MIME_TYPE = "text/markdown"
CHUNK_LINES = 6
_WORD = re.compile(r"\w+")


def split_lines(text: str) -> list[str]:
    """The file split on ``\\n`` after dropping one trailing newline (1-based numbering)."""
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


def words(text: str) -> set[str]:
    """Distinct lowercase ``\\w+`` words."""
    return set(_WORD.findall(text.lower()))


@dataclass(frozen=True)
class Chunk:
    uri: str
    collection: str
    start: int
    end: int
    terms: frozenset[str]


@dataclass(frozen=True)
class Corpus:
    lines: dict[str, list[str]]  # uri -> lines
    chunks: list[Chunk]  # sorted by (uri, start)

    @classmethod
    def load(cls, root: Path) -> Corpus:
        if not root.is_dir():
            raise SystemExit(f"{SERVER_NAME}: corpus folder not found: {root}")
        lines: dict[str, list[str]] = {}
        chunks: list[Chunk] = []
        for collection_dir in sorted(p for p in root.iterdir() if p.is_dir()):
            collection = collection_dir.name
            if collection.startswith("."):
                continue
            for path in sorted(p for p in collection_dir.rglob("*") if p.is_file()):
                rel = path.relative_to(collection_dir)
                if any(part.startswith(".") for part in rel.parts):
                    continue
                try:
                    doc_lines = split_lines(path.read_bytes().decode("utf-8"))
                except UnicodeDecodeError:
                    continue  # not a text document
                uri = f"gno://{collection}/{rel.as_posix()}"
                lines[uri] = doc_lines
                for first in range(0, len(doc_lines), CHUNK_LINES):
                    block = doc_lines[first : first + CHUNK_LINES]
                    if not any(line.strip() for line in block):
                        continue
                    chunks.append(
                        Chunk(
                            uri=uri,
                            collection=collection,
                            start=first + 1,
                            end=first + len(block),
                            terms=frozenset(words("\n".join(block))),
                        )
                    )
        chunks.sort(key=lambda c: (c.uri, c.start))
        return cls(lines=lines, chunks=chunks)

    def search(self, query: str, limit: int, within: str | None) -> list[Chunk]:
        wanted = words(query)
        scored: list[tuple[int, Chunk]] = []
        for chunk in self.chunks:
            if within is not None and chunk.collection != within:
                continue
            score = len(wanted & chunk.terms)
            if score > 0:
                scored.append((score, chunk))
        # Stable sort on the score alone keeps the (uri, startLine) order within a tie.
        scored.sort(key=lambda pair: -pair[0])
        return [chunk for _, chunk in scored[: max(limit, 0)]]


def build_server(corpus: Corpus) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(SERVER_NAME, version="1.0.0", log_level="WARNING")

    def resource(uri: str, start: int, end: int) -> EmbeddedResource:
        text = "\n".join(corpus.lines[uri][start - 1 : end])
        contents = TextResourceContents(
            uri=uri, text=text, mime_type=MIME_TYPE, _meta={"startLine": start, "endLine": end}
        )
        return EmbeddedResource(type="resource", resource=contents)

    @server.tool()
    def lookup(text: str, limit: int = 5, within: str | None = None) -> CallToolResult:
        """Look up passages: 6-line chunks ranked by how many distinct query words they contain.

        text: the query words. limit: the most chunks to return.
        within: only this collection (all when omitted).
        """
        hits = corpus.search(text, limit, within)
        content: list[ContentBlock] = [resource(c.uri, c.start, c.end) for c in hits]
        return CallToolResult(content=content)

    @server.tool()
    def fetch(path: str, first: int = 1, n: int | None = None) -> CallToolResult:
        """Fetch lines first..first+n-1 of a document (to its end when n is omitted).

        path: the document URI (gno://collection/path). first: first line, 1-based.
        """
        lines = corpus.lines.get(path)
        if lines is None:
            raise ToolError(f"unknown document: {path}")
        if first < 1 or first > len(lines):
            raise ToolError(f"first {first} is outside {path} (lines 1-{len(lines)})")
        if n is not None and n < 0:
            raise ToolError("n must not be negative")
        end = len(lines) if n is None else min(first + n - 1, len(lines))
        return CallToolResult(content=[resource(path, first, end)])

    return server


def _exit_quietly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="notes_http.py", description="notes-http MCP server")
    parser.add_argument("--root", type=Path, required=True, help="the corpus folder")
    parser.add_argument("--port", type=int, required=True, help="the port on 127.0.0.1")
    args = parser.parse_args(argv)

    server = build_server(Corpus.load(args.root))
    # uvicorn traps SIGTERM/SIGINT, shuts down gracefully, then re-raises the signal against the
    # handler it found installed: this one turns that into a quiet exit with status 0.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_quietly)
    server.run(
        "streamable-http",
        host=HOST,
        port=args.port,
        streamable_http_path=MCP_PATH,
        json_response=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
