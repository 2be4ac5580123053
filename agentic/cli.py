"""``agentic`` command line. Exit codes: 0 complete (and gates pass), 1 a gate failed,
2 invalid input, preflight, harness or requested-lane failure, with one line on stderr."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from agentic.contract.errors import ContractError

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_ERROR = 2

# Each module defines ``register(subparsers)``, which adds its subcommand(s) and sets
# ``func(args) -> int`` as the handler.
COMMAND_MODULES: tuple[str, ...] = (
    "agentic.commands.validate",
    "agentic.commands.canonical",
    "agentic.commands.fixture",
    "agentic.commands.tools",
    "agentic.commands.catalog",
    "agentic.commands.prepare",
    "agentic.commands.serve",
    "agentic.commands.run",
    "agentic.commands.score",
    "agentic.commands.ranking",
    "agentic.commands.generation",
    "agentic.commands.matrix",
    "agentic.commands.compare",
    "agentic.commands.qmd_setup",
)


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage problem as an exception instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agentic", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        code: int = args.func(args)
        return code
    except UsageError as exc:
        print(f"agentic: invalid_cli_option: {exc}", file=sys.stderr)
    except ContractError as exc:
        print(f"agentic: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("agentic: interrupted", file=sys.stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
