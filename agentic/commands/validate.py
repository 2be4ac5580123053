"""``agentic validate KIND FILE [--task TASKFILE]``: check one contract document.

Runs what every boundary of the kit runs: strict JSON, the published schema, the model and, for
an envelope given its task, the semantic checks; a report's stored fingerprints must be those
of its content. Exit 0 prints ``ok <kind> <file>``; any
violation is one line on stderr and exit 2 (raised as ContractError, printed by ``cli.main``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file
from agentic.contract.schemas import parse_and_load

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers
    from agentic.contract.envelope import FinalEnvelope

KINDS: dict[str, str] = {
    "task": "agent-task",
    "oracle": "hidden-oracle",
    "envelope": "final-envelope",
    "receipt": "trajectory-receipt",
    "report": "benchmark-report",
}


def read_input(path: Path) -> bytes:
    """The bytes of ``path`` (a regular file within the input cap), or one ContractError line."""
    return read_input_file(path)


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="validate a task, oracle, envelope, receipt or report file",
        description=__doc__,
    )
    parser.add_argument("kind", choices=sorted(KINDS), help="which contract document FILE is")
    parser.add_argument("file", type=Path, help="the JSON file to check")
    parser.add_argument(
        "--task",
        type=Path,
        help="the envelope's task file: also run the semantic checks (envelope only)",
    )
    parser.set_defaults(func=run)


def _check_semantics(envelope: FinalEnvelope, task_file: Path, source: str) -> None:
    from agentic.contract.semantics import envelope_issues

    task = parse_and_load("agent-task", read_input(task_file), source=str(task_file))
    issues = envelope_issues(envelope, task)
    if issues:
        listed = ", ".join(str(issue) for issue in issues)
        raise ContractError("invalid_final_envelope", f"{source}: {listed}")


def run(args: argparse.Namespace) -> int:
    kind: str = args.kind
    path: Path = args.file
    if args.task is not None and kind != "envelope":
        raise ContractError("invalid_cli_option", "--task applies only to envelope")
    source = str(path)
    # Only the one kind's model is imported (start-up: tests/test_lazy_startup.py).
    data = read_input(path)
    if kind == "envelope":
        envelope = parse_and_load("final-envelope", data, source=source)
        if args.task is not None:
            _check_semantics(envelope, args.task, source)
    elif kind == "report":
        from agentic.report.assemble import check_fingerprints

        check_fingerprints(parse_and_load("benchmark-report", data, source=source), source)
    else:
        parse_and_load(KINDS[kind], data, source=source)
    print(f"ok {kind} {path}")
    return 0
