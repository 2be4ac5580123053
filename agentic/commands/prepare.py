"""``agentic prepare --adapter {lexical,capsule} --out DIR [--fixture DIR]``: load and verify a
fixture, build the adapter's native index into DIR and print its index fingerprint.

DIR must not exist or be empty: an index is never built over an older one (exit 2 otherwise).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentic.adapters.base import Adapter
from agentic.adapters.capsule import CapsuleAdapter
from agentic.adapters.lexical import LexicalAdapter
from agentic.contract.errors import ContractError
from agentic.fixture.loader import load_fixture
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.resources import default_fixture_dir

PREPARABLE: dict[str, Callable[[CorpusSnapshot], Adapter]] = {
    "lexical": LexicalAdapter,
    "capsule": CapsuleAdapter,
}
PREPARE_TIMEOUT_S = 600.0


def _check_out_dir(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise ContractError("invalid_cli_option", f"--out {out} is not a directory")
    if out.is_dir() and any(out.iterdir()):
        raise ContractError("invalid_cli_option", f"--out {out} is not empty")


def _run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    _check_out_dir(out)
    fixture_dir = Path(args.fixture) if args.fixture is not None else default_fixture_dir()
    snapshot = load_fixture(fixture_dir).snapshot
    adapter = PREPARABLE[args.adapter](snapshot)
    prepared = adapter.prepare(snapshot, out, timeout_s=PREPARE_TIMEOUT_S)
    print(prepared.index_fingerprint)
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("prepare", help="build an adapter's native index")
    parser.add_argument("--adapter", required=True, choices=sorted(PREPARABLE))
    parser.add_argument("--out", required=True, help="empty or missing output folder")
    parser.add_argument("--fixture", default=None, help="fixture folder (default: bundled)")
    parser.set_defaults(func=_run)
