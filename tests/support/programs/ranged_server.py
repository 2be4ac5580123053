"""A stdio MCP server (public ``mcp`` SDK only) that names places the way many search engines
do, for the kit's range and id tests: ``python3 ranged_server.py ROOT FORM``.

- ``find {q}`` answers JSON records ``{"matches": [{"collection", "file", "lines"}]}``: each
  document line holding ``q`` (case-insensitive) with the line after it, as one string in
  ``FORM``: ``dash`` (``3-4``), ``prefixed`` (``L3-L4``) or ``colon`` (``3:4``); the document
  is named by two fields, its collection and its path within it, and the path has no ``.md``;
- ``grep {q}`` answers text lines ``COLLECTION PATH 3-4: text`` (the same ranges, dash form);
- ``fetch {path}`` answers the whole document at an absolute path under ROOT (its read takes
  another id than its search returns), or ``Error: not found``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

FORMS = {"dash": "{}-{}", "prefixed": "L{}-L{}", "colon": "{}:{}"}


def matches(root: Path, q: str) -> list[tuple[str, str, int, int, str]]:
    """(collection, path without .md, first, last, line) of every line holding ``q``."""
    found = []
    for path in sorted(root.rglob("*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        collection, *rest = path.relative_to(root).parts
        name = "/".join(rest).removesuffix(".md")
        for number, line in enumerate(lines, 1):
            if q.lower() in line.lower():
                found.append((collection, name, number, min(number + 1, len(lines)), line))
    return found


def build(root: Path, form: str) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("ranged", log_level="WARNING")
    template = FORMS[form]

    def find(q: str) -> str:
        """Search every document for a phrase."""
        records = [
            {"collection": c, "file": p, "lines": template.format(first, last)}
            for c, p, first, last, _ in matches(root, q)
        ]
        return json.dumps({"matches": records})

    def grep(q: str) -> str:
        """Search every document for a phrase, as text lines."""
        return "\n".join(f"{c} {p} {a}-{b}: {t}" for c, p, a, b, t in matches(root, q))

    def fetch(path: str) -> str:
        """Read one whole document by its absolute path."""
        target = Path(path)
        if root not in target.parents or not target.is_file():
            return "Error: not found"
        return target.read_text(encoding="utf-8")

    server.tool()(find)
    server.tool()(grep)
    server.tool()(fetch)
    return server


def main() -> None:
    build(Path(sys.argv[1]), sys.argv[2]).run("stdio")


if __name__ == "__main__":
    main()
