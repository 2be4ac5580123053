"""``agentic`` command line. Exit codes: 0 complete (and gates pass), 1 a gate failed,
2 invalid input, preflight, harness or requested-lane failure, with one line on stderr."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import importlib
import os
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from types import FrameType
from typing import NoReturn

from agentic import __version__, processes
from agentic.contract.errors import EXIT_ERROR, AgenticError, ContractError

# The groups ``agentic --help`` lists the subcommands in, in this order.
RUN_AND_COMPARE = "run and compare"
AUTHORING = "authoring (fixtures, contract documents, backends)"
TIERS = "tiers (retrieval or answers alone)"
MAINTENANCE = "maintenance (indexes, baselines, qmd, models)"
GROUPS: tuple[str, ...] = (RUN_AND_COMPARE, AUTHORING, TIERS, MAINTENANCE)


@dataclass(frozen=True)
class Command:
    """One subcommand as data: its name, the module that implements it, its one-line help, the
    group ``agentic --help`` lists it in, and the former spellings of its options.

    The module defines ``register(subparsers)``, which adds the full subparser (with the same
    help) and sets ``func(args) -> int`` as the handler. It is imported only when its command
    runs, so ``agentic run`` never pays for the MCP SDK, llama.cpp or qmd unless it uses them.
    ``renamed`` pairs an option's former spelling (or an option's former value) with its name
    now: the kit keeps no aliases, so the former one is refused with that hint
    (``reject_renamed``).
    """

    name: str
    module: str
    help: str
    group: str
    renamed: tuple[tuple[str, str], ...] = ()


# One name per concept across commands: --out for the folder a command writes, --index-cache
# for the prepared-index cache, --accept for filing a baseline ("promotion" is only the gate).
OUT_NOT_REPORT = (("--report", "--out"),)

COMMANDS: tuple[Command, ...] = (
    Command(
        "validate",
        "agentic.commands.validate",
        "validate a task, oracle, envelope, receipt or report file",
        AUTHORING,
    ),
    Command(
        "canonical",
        "agentic.commands.canonical",
        "print the RFC 8785 canonical bytes (or their sha256) of a JSON file",
        AUTHORING,
    ),
    Command(
        "fixture",
        "agentic.commands.fixture",
        "verify, describe or re-pin a fixture",
        AUTHORING,
        renamed=(("--json", "--format json"),),
    ),
    Command("tools", "agentic.commands.tools", "print the frozen tool contract", AUTHORING),
    Command(
        "catalog",
        "agentic.commands.catalog",
        "list the adapters, agents and named lanes",
        RUN_AND_COMPARE,
    ),
    Command(
        "prepare",
        "agentic.commands.prepare",
        "build an adapter's native index",
        MAINTENANCE,
        renamed=(("--cache", "--index-cache"),),
    ),
    Command(
        "serve",
        "agentic.commands.serve",
        "serve a prepared lexical index as an MCP stdio server",
        MAINTENANCE,
    ),
    Command(
        "run",
        "agentic.commands.run",
        "run a lane and score it",
        RUN_AND_COMPARE,
        # a capsule's second pass is its replay; the LLM cache answers by reuse
        renamed=(("--llm-cache-mode replay", "--llm-cache-mode reuse"),),
    ),
    Command(
        "merge", "agentic.commands.merge", "merge a lane's shards into its report", RUN_AND_COMPARE
    ),
    Command(
        "score",
        "agentic.commands.score",
        "re-score the receipts of a stored report",
        RUN_AND_COMPARE,
    ),
    Command(
        "export",
        "agentic.commands.export",
        "export a report's pairs as JSON lines or CSV",
        RUN_AND_COMPARE,
    ),
    Command(
        "view", "agentic.commands.view", "build report.html from a stored report", RUN_AND_COMPARE
    ),
    Command(
        "ranking",
        "agentic.commands.ranking",
        "score retrieval alone against the goldens",
        TIERS,
        renamed=OUT_NOT_REPORT,
    ),
    Command(
        "generation",
        "agentic.commands.generation",
        "score answers in oracle/e2e/noretrieval",
        TIERS,
        renamed=OUT_NOT_REPORT,
    ),
    Command(
        "matrix",
        "agentic.commands.matrix",
        "capability table across locked local models",
        TIERS,
        renamed=OUT_NOT_REPORT,
    ),
    Command(
        "compare",
        "agentic.commands.compare",
        "gate a report against a baseline",
        RUN_AND_COMPARE,
        renamed=(("--promote", "--accept"),),
    ),
    Command(
        "verify",
        "agentic.commands.verify",
        "rerun named lanes and require their committed baselines",
        MAINTENANCE,
    ),
    Command(
        "qmd",
        "agentic.commands.qmd_setup",
        "install, check or pin the qmd comparator",
        MAINTENANCE,
        # "verify" means a rerun held to a committed baseline; a hash and install check is a check
        renamed=(("verify", "check"), ("--timeout", "--timeout-ms")),
    ),
    Command(
        "model", "agentic.commands.model", "join a model published as chunk packages", MAINTENANCE
    ),
)


class UsageError(AgenticError):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage problem as an exception instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


class _TopParser(_Parser):
    """The ``agentic`` parser: its ``--help`` lists the subcommands in their groups (``GROUPS``),
    each with the help its subparser was registered with, then the options."""

    def format_help(self) -> str:
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        formatter.add_text(self.description)
        listed = _registered_commands(self)
        for group in GROUPS:
            formatter.start_section(group)
            formatter.add_arguments([listed[c.name] for c in COMMANDS if c.group == group])
            formatter.end_section()
        formatter.start_section(self._optionals.title)
        formatter.add_arguments(self._optionals._group_actions)
        formatter.end_section()
        return formatter.format_help()


def _registered_commands(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Each registered subcommand's help line (argparse's listing of its choices), by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {choice.dest: choice for choice in action._choices_actions}
    return {}


def _chosen(argv: Sequence[str]) -> Command | None:
    """The subcommand ``argv`` names, if its first word is one."""
    return next((c for c in COMMANDS if argv and argv[0] == c.name), None)


def reject_renamed(argv: Sequence[str]) -> None:
    """Refuse an option's former spelling (``Command.renamed``) with its name now, in one line,
    whatever else is wrong with ``argv``: the kit keeps no aliases. A former spelling is an
    option (``--cache``) or an option with a value (``--llm-cache-mode replay``), given as two
    words or joined by ``=``."""
    command = _chosen(argv)
    renamed = dict(command.renamed) if command is not None else {}
    words = list(argv[1:])
    for index, word in enumerate(words):
        if word == "--":
            return
        option, joined, value = word.partition("=")
        following = words[index + 1] if index + 1 < len(words) else ""
        spelling = f"{option} {value if joined else following}"
        for former in (option, spelling):
            if former in renamed:
                raise UsageError(f"{former} was renamed {renamed[former]}")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv``: every subcommand is listed from ``COMMANDS``; only the one that
    ``argv`` names gets its full arguments (and its module imported). Without ``argv``, every
    subcommand is built in full (for documentation and tests)."""
    parser = _TopParser(prog="agentic", description=__doc__)
    parser.add_argument("--version", action="version", version=f"agentic {__version__}")
    subparsers = parser.add_subparsers(
        dest="command", required=True, parser_class=_Parser, metavar="COMMAND"
    )
    chosen = None if argv is None else _chosen(argv)
    for command in COMMANDS:
        if argv is None or command is chosen:
            importlib.import_module(command.module).register(subparsers)
        else:
            subparsers.add_parser(command.name, help=command.help)
    return parser


EXIT_TERMINATED = 128 + signal.SIGTERM


class TerminatedError(BaseException):
    """SIGTERM arrived (a CI timeout, a container stop): unwind like an interrupt, so every
    ``finally`` runs (temp folders, child processes), then exit 143."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise TerminatedError


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(arguments)
    if argv is None:
        # As the `agentic` command, what start-up built (modules, schemas, models) lives until
        # exit: frozen, the collector stops walking it again at every collection of the run.
        # Not in-process (tests), where freezing would keep every caller's garbage for good.
        gc.freeze()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if _main_thread() else None
    try:
        reject_renamed(arguments)
        args = parser.parse_args(arguments)
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
        # Orphans a backend detached were re-parented to us (each spawn makes this process a
        # subreaper, agentic/processes.py). Run as the `agentic` command (argv None), every child
        # left is one, however it hid; called in-process (tests), only marked ones are ours.
        processes.reap_adopted(every_child=argv is None)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return EXIT_ERROR


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def entry() -> NoReturn:
    """The ``agentic`` command (its console script, ``python -m agentic``)."""
    exit_promptly(main())


def exit_promptly(code: int) -> NoReturn:
    """End the process without the interpreter's teardown, which frees every module and object
    one at a time: about 40 ms of every command on a two-core machine, ``agentic --version``
    included, for memory the OS takes back at once. What teardown does that matters is done
    first: the standard streams flush and the exit handlers run (``atexit``: logging flushes
    its handlers, a plugin its own). Python never promised more; finalizers of objects alive at
    exit may not run. The usual exit stays for a process under a profiler or tracer (``python
    -m cProfile -m agentic`` writes its stats after the command returns), with a non-daemon
    thread still running (it waits for it) or a stream that will not flush (it reports it)."""
    others = (t for t in threading.enumerate() if t is not threading.main_thread())
    observed = sys.getprofile() is not None or sys.gettrace() is not None
    if observed or any(not thread.daemon for thread in others):
        raise SystemExit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        raise SystemExit(code) from None
    atexit._run_exitfuncs()  # clears them too: none runs twice
    with contextlib.suppress(OSError, ValueError):  # what a handler printed, if it can
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
