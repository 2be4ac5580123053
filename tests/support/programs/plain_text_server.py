"""A stdio MCP server (public ``mcp`` SDK only) shaped like the document servers people ship,
for the kit's config-mapping tests: ``python3 plain_text_server.py ROOT [--rewrite]``.

- it prints start-up chatter on stdout before it speaks MCP;
- with ``--rewrite`` it writes front matter into every Markdown file under ROOT at start (as
  self-indexing servers do), so its line numbers count three lines the snapshot lacks;
- ``grep {pattern, project}`` answers plain text: ``path:N: preview`` lines (the line stripped and
  cut at 24 characters with "..."), ``No matches found``, or ``Index not ready yet`` for its first
  two calls; ``project`` must be "main" (else ``Error: unknown project``); no scope argument;
- ``read {path}`` answers a header line and the whole file as it is on disk, or
  ``Error: Document not found: PATH``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

PREVIEW_CHARS = 24
NOT_READY_CALLS = 2
FRONT_MATTER = "---\nindexed: true\n---\n"


def rewrite(root: Path) -> None:
    for path in sorted(root.rglob("*.md")):
        path.write_text(FRONT_MATTER + path.read_text(encoding="utf-8"), encoding="utf-8")


def preview(line: str) -> str:
    text = line.strip()
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "..."


def build(root: Path) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("plain-text", log_level="WARNING")
    calls = {"grep": 0}

    def grep(pattern: str, project: str = "") -> str:
        """Search every document for a regular expression."""
        calls["grep"] += 1
        if calls["grep"] <= NOT_READY_CALLS:
            return "Index not ready yet"
        if project != "main":
            return f"Error: unknown project {project!r}"
        try:
            compiled = re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            return f"Error: Invalid regex pattern: {exc}"
        found = [
            f"{path.relative_to(root)}:{number}: {preview(line)}"
            for path in sorted(root.rglob("*.md"))
            for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
            if compiled.search(line)
        ]
        return "\n".join(found) if found else "No matches found"

    def read(path: str) -> str:
        """Read one whole document."""
        target = root / path
        if not target.is_file():
            return f"Error: Document not found: {path}"
        return f"== {path} ==\n" + target.read_text(encoding="utf-8")

    server.tool()(grep)
    server.tool()(read)
    return server


def main() -> None:
    root = Path(sys.argv[1])
    print("Loading documents...", flush=True)
    if "--rewrite" in sys.argv[2:]:
        rewrite(root)
    print(f"Loaded {sum(1 for _ in root.rglob('*.md'))} documents", flush=True)
    build(root).run("stdio")


if __name__ == "__main__":
    main()
