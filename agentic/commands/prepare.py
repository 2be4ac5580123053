"""``agentic prepare --adapter ID --out DIR [--fixture DIR]``: load and verify a fixture, build
the adapter's native index into DIR and print its index fingerprint.

DIR must not exist or be empty: an index is never built over an older one (exit 2 otherwise).
An adapter that cannot be prepared (``gno-mcp`` without a ``gno`` executable, an MCP product
whose tools lack a mapped field) fails with its code and exit 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentic.adapters.base import Adapter, AdapterError
from agentic.contract.errors import ContractError
from agentic.fixture.loader import load_fixture
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.resources import default_fixture_dir

PREPARE_TIMEOUT_S = 600.0


def _lexical(snapshot: CorpusSnapshot) -> Adapter:
    from agentic.adapters.lexical import LexicalAdapter

    return LexicalAdapter(snapshot)


def _capsule(snapshot: CorpusSnapshot) -> Adapter:
    from agentic.adapters.capsule import CapsuleAdapter

    return CapsuleAdapter(snapshot)


def _mcp(adapter_id: str) -> Callable[[CorpusSnapshot], Adapter]:
    def build(snapshot: CorpusSnapshot) -> Adapter:
        # Imported on use: the MCP SDK is slow to import.
        from agentic.adapters.mcp.adapter import McpAdapter
        from agentic.adapters.mcp.profiles import profile_by_id

        return McpAdapter(profile_by_id(adapter_id), snapshot)

    return build


PREPARABLE: dict[str, Callable[[CorpusSnapshot], Adapter]] = {
    "capsule": _capsule,
    "gno-mcp": _mcp("gno-mcp"),
    "lexical": _lexical,
    "mcp-reference": _mcp("mcp-reference"),
}


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
    try:
        prepared = adapter.prepare(snapshot, out, timeout_s=PREPARE_TIMEOUT_S)
    except AdapterError as exc:
        raise ContractError(exc.code, f"{args.adapter}: {exc}") from exc
    print(prepared.index_fingerprint)
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("prepare", help="build an adapter's native index")
    parser.add_argument("--adapter", required=True, choices=sorted(PREPARABLE))
    parser.add_argument("--out", required=True, help="empty or missing output folder")
    parser.add_argument("--fixture", default=None, help="fixture folder (default: bundled)")
    parser.set_defaults(func=_run)
