"""A stdio MCP server (public ``mcp`` SDK only) that matches its whole query as one substring,
as many simple search tools do: ``python3 substring_server.py ROOT``. Its one tool,
``search {query}``, answers every document line under ROOT that holds the query, as written
(case-insensitive), in document order, as grep-style lines ``c0a1/d001.md:3: Incident: INC-4827``
(``No matches found`` for none). A query of several words finds only lines that hold them
together, in that order: what ``query_split = "words"`` is for.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer


def matching_lines(root: Path, query: str) -> list[str]:
    wanted = query.lower()
    return [
        f"{path.relative_to(root).as_posix()}:{number}: {line}"
        for path in sorted(root.rglob("*.md"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if wanted in line.lower()
    ]


def build(root: Path) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("substring", log_level="WARNING")

    def search(query: str) -> str:
        """Every document line that holds the query as one substring."""
        return "\n".join(matching_lines(root, query)) or "No matches found"

    server.tool()(search)
    return server


def main() -> None:
    build(Path(sys.argv[1])).run("stdio")


if __name__ == "__main__":
    main()
