"""A stdio MCP server (public ``mcp`` SDK only) whose query is SQLite FTS5 ``MATCH`` syntax, as
servers built on SQLite's full-text index take it: ``python3 fts5_server.py ROOT``. It indexes
every non-blank document line under ROOT in an in-memory FTS5 table; ``search {query}`` answers
the lines the query matches, in document order, as grep-style lines
``c0a1/d001.md:3: Incident: INC-4827`` (``No matches found`` for none). A query FTS5 cannot
parse (``INC-4827``: ``-`` is an operator; ``Status:``, a column filter) is the tool's error.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer


def index(root: Path) -> sqlite3.Connection:
    database = sqlite3.connect(":memory:", check_same_thread=False)
    database.execute("CREATE VIRTUAL TABLE lines USING fts5(path UNINDEXED, line UNINDEXED, text)")
    for path in sorted(root.rglob("*.md")):
        name = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                database.execute("INSERT INTO lines VALUES (?, ?, ?)", (name, number, line))
    return database


def build(root: Path) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("fts5", log_level="WARNING")
    database = index(root)

    def search(query: str) -> str:
        """The document lines an FTS5 MATCH query finds."""
        rows = database.execute(
            "SELECT path, line, text FROM lines WHERE lines MATCH ? ORDER BY path, line", (query,)
        ).fetchall()
        return "\n".join(f"{path}:{line}: {text}" for path, line, text in rows) or (
            "No matches found"
        )

    server.tool()(search)
    return server


def main() -> None:
    build(Path(sys.argv[1])).run("stdio")


if __name__ == "__main__":
    main()
