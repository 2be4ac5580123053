"""``agentic canonical FILE [--sha256]``: the RFC 8785 canonical bytes of a JSON file.

The file is parsed strictly first (duplicate keys, NaN, comments... are errors). The canonical
bytes go to stdout exactly, with no newline added, so ``agentic canonical f | sha256sum`` equals
``agentic canonical f --sha256``, the fingerprint every part of the kit computes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.commands.validate import read_input
from agentic.contract.canonical import canonical_bytes, sha256_hex
from agentic.contract.strict_json import parse_strict

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "canonical",
        help="print the RFC 8785 canonical bytes (or their sha256) of a JSON file",
        description=__doc__,
    )
    parser.add_argument("file", type=Path, help="a strict JSON file")
    parser.add_argument("--sha256", action="store_true", help="print the sha256 hex instead")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    data = canonical_bytes(parse_strict(read_input(path), source=str(path)))
    if args.sha256:
        print(sha256_hex(data))
        return 0
    sys.stdout.flush()  # keep any text already buffered ahead of the raw bytes
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return 0
