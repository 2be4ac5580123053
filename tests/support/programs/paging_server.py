"""A stdio MCP server (public ``mcp`` SDK only) that pages its search and searches every
collection it was given, whatever the task: ``python3 paging_server.py ROOT MODE SIZE``. Its one
tool, ``search {query, offset?, page?}``, finds the document lines under ROOT holding any word of
the query (case-insensitive), the documents in reverse path order (so another task's collection
comes first), and answers one page of SIZE of them as JSON
``{"matches": [{"path", "line", "text"}]}``. ``MODE`` says which argument chooses the page:

- ``offset``: ``offset`` results are skipped (0: the first page);
- ``page``: page number ``page`` (1: the first page);
- ``stuck``: neither; every call answers the first page (a server that ignores the offset).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer


def matches(root: Path, query: str) -> list[dict[str, Any]]:
    wanted = [word.lower() for word in re.findall(r"\w+", query)]
    return [
        {"path": path.relative_to(root).as_posix(), "line": number, "text": line}
        for path in sorted(root.rglob("*.md"), reverse=True)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(word in line.lower() for word in wanted)
    ]


def first_index(mode: str, offset: int, page: int, size: int) -> int:
    if mode == "offset":
        return offset
    if mode == "page":
        return (page - 1) * size
    return 0


def build(root: Path, mode: str, size: int) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("paging", log_level="WARNING")

    def search(query: str, offset: int = 0, page: int = 1) -> str:
        """One page of the document lines holding any word of the query."""
        start = first_index(mode, offset, page, size)
        return json.dumps({"matches": matches(root, query)[start : start + size]})

    server.tool()(search)
    return server


def main() -> None:
    build(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])).run("stdio")


if __name__ == "__main__":
    main()
