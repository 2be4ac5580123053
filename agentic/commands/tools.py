"""``agentic tools [--fingerprint]``: print the frozen tool definitions, or their fingerprint.
The definitions are stable pretty JSON, sorted by name. ``--fingerprint`` prints the tools
fingerprint alone."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from agentic.contract.canonical import stable_pretty_json
from agentic.tools import tool_definitions, tools_fingerprint

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers


def _run(args: argparse.Namespace) -> int:
    if args.fingerprint:
        print(tools_fingerprint())
        return 0
    sys.stdout.write(stable_pretty_json(tool_definitions()))
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("tools", help="print the frozen tool contract")
    parser.add_argument(
        "--fingerprint", action="store_true", help="print only the tools fingerprint"
    )
    parser.set_defaults(func=_run)
