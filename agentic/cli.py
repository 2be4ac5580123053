"""``agentic`` command line. Exit codes: 0 complete (and gates pass), 1 a gate failed,
2 invalid input, preflight, harness or requested-lane failure, with one line on stderr."""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType
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


EXIT_TERMINATED = 128 + signal.SIGTERM


class TerminatedError(BaseException):
    """SIGTERM arrived (a CI timeout, a container stop): unwind like an interrupt, so every
    ``finally`` runs (temp folders, child processes), then exit 143."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise TerminatedError


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if _main_thread() else None
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
    except TerminatedError:
        print("agentic: terminated (SIGTERM); temporary files removed", file=sys.stderr)
        return EXIT_TERMINATED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return EXIT_ERROR


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


if __name__ == "__main__":
    raise SystemExit(main())
