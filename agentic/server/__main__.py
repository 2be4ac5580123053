"""``python -m agentic.server --index DIR``: the reference MCP server's slim entry point.

The ``mcp-reference`` adapter spawns this for every cold pair, so its start-up is on the clock of
every pair. It imports what serving needs (the MCP SDK, SQLite and the lexical index) and not
the CLI, the contract's models or jsonschema. ``agentic serve --index DIR`` serves the same
server for a person at a terminal. Errors are one line on stderr and exit 2, as in the CLI.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from pathlib import Path

from agentic.contract.errors import EXIT_ERROR, ContractError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentic.server", description=__doc__)
    parser.add_argument("--index", required=True, type=Path, help="prepared index folder")
    args = parser.parse_args(argv)
    # Imported after parsing, so a usage error costs no SDK import. The SDK builds hundreds of
    # pydantic models on import; cyclic garbage collection during that burst finds nothing to
    # free and costs about a tenth of the start-up, so it is paused for the import, and what
    # the import built is frozen out of every later collection.
    gc.disable()
    try:
        from agentic.server.app import serve_index
    finally:
        gc.freeze()
        gc.enable()

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
