"""``agentic serve --index DIR``: the reference MCP retrieval server on stdio.

DIR is the output folder of ``agentic prepare --adapter lexical --out DIR`` (or of
``--adapter mcp-reference``, which builds the same index). Stdout carries the MCP protocol only;
every diagnostic goes to stderr. The server runs until its stdin closes. The ``mcp-reference``
adapter starts the same server through its slim entry point, ``python -m agentic.server``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve a prepared lexical index as an MCP stdio server"
    )
    parser.add_argument("--index", required=True, type=Path, help="prepared index folder")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    # Imported here: no other command serves.
    from agentic.server.app import serve_index

    serve_index(args.index)
    return 0
