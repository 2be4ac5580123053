"""``python -m agentic.server --index DIR``: the reference MCP server's slim entry point.

The ``mcp-reference`` adapter spawns this for every cold pair, so its start-up is on the clock of
every pair. It imports what serving needs (SQLite, the lexical index and the stdio protocol of
``stdio.py``) and not the CLI, the MCP SDK, the contract's models or jsonschema. ``agentic serve
--index DIR`` serves the same server for a person at a terminal. Errors are one line on stderr
and exit 2, as in the CLI.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from agentic.contract.errors import EXIT_ERROR, ContractError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentic.server", description=__doc__)
    parser.add_argument("--index", required=True, type=Path, help="prepared index folder")
    args = parser.parse_args(argv)
    from agentic.server.app import serve_index

    try:
        serve_index(args.index)
    except ContractError as exc:
        print(f"agentic: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
