"""``agentic serve --index DIR``: the reference MCP retrieval server on stdio.

DIR is the output folder of ``agentic prepare --adapter lexical --out DIR`` (or of
``--adapter mcp-reference``, which builds the same index). Stdout carries the MCP protocol only;
every diagnostic goes to stderr. The server runs until its stdin closes.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from agentic.adapters.indexed import INDEX_FILE
from agentic.contract.errors import ContractError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve a prepared lexical index as an MCP stdio server"
    )
    parser.add_argument("--index", required=True, type=Path, help="prepared index folder")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    db_path: Path = args.index / INDEX_FILE
    if not db_path.is_file():
        raise ContractError("index_not_found", f"no prepared index at {db_path}")
    # Imported here: the MCP SDK is slow to import, and no other command needs it.
    from agentic.server.app import serve

    serve(db_path)
    return 0
