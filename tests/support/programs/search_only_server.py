"""A stdio MCP server (public ``mcp`` SDK only) that searches and cannot read, as many search
engines are: ``python3 search_only_server.py ROOT FORM``. Its one tool, ``search {query}``,
finds the document lines under ROOT holding any word of the query (case-insensitive), in
document order, and answers them in ``FORM``:

- ``lines``: text lines ``c0a1/d001.md:3: Incident: INC-4827``;
- ``snippets``: JSON ``{"hits": [{"path", "snippet"}]}``, one per document, the snippet cut
  from the document's text with every whitespace run made one space (lines joined), starting
  and ending mid-line, each cut end marked ``…``, as engines that index reflowed text show it.

No tool reads a document: the kit's snapshot reads (``reads = "snapshot"``) stand in for one.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

# How much of the text around the first match a snippet shows, before and after it.
BEFORE, AFTER = 12, 30


def words(query: str) -> list[str]:
    return [word.lower() for word in re.findall(r"\w+", query)]


def documents(root: Path) -> list[tuple[str, str]]:
    """(``<collection>/<relPath>``, text) of every document, in path order."""
    return [
        (path.relative_to(root).as_posix(), path.read_text(encoding="utf-8"))
        for path in sorted(root.rglob("*.md"))
    ]


def matching_lines(root: Path, query: str) -> list[str]:
    wanted = words(query)
    return [
        f"{name}:{number}: {line}"
        for name, text in documents(root)
        for number, line in enumerate(text.splitlines(), 1)
        if any(word in line.lower() for word in wanted)
    ]


def snippet(text: str, wanted: list[str]) -> str | None:
    """The reflowed text around the first query word, cut mid-line at both ends."""
    flat = " ".join(text.split())
    found = [flat.lower().find(word) for word in wanted if word in flat.lower()]
    if not found:
        return None
    start = max(min(found) - BEFORE, 0)
    end = min(min(found) + AFTER, len(flat))
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def snippets(root: Path, query: str) -> str:
    wanted = words(query)
    hits = [
        {"path": name, "snippet": shown}
        for name, text in documents(root)
        if (shown := snippet(text, wanted)) is not None
    ]
    return json.dumps({"hits": hits})


def build(root: Path, form: str) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("search-only", log_level="WARNING")

    def search(query: str) -> str:
        """Search every document for the words of a query."""
        if form == "snippets":
            return snippets(root, query)
        return "\n".join(matching_lines(root, query)) or "No matches found"

    server.tool()(search)
    return server


def main() -> None:
    build(Path(sys.argv[1]), sys.argv[2]).run("stdio")


if __name__ == "__main__":
    main()
