"""``agentic prepare``: verify a fixture, build an adapter's native index, print its fingerprint.
Usage: ``agentic prepare (--adapter ID | --lane NAME) (--out DIR | --index-cache DIR)
[--fixture DIR]``. With ``--lane`` it builds the index of each of the lane's adapters, into the
cache.

``--out DIR`` builds into DIR, which must not exist or be empty: an index is never built over an
older one. ``--index-cache DIR`` adds the index to the cache that ``agentic run --index-cache DIR``
reuses, keyed by adapter, corpus fingerprint and configuration fingerprint; an unchanged entry is
left alone. An adapter that cannot be prepared (``gno-mcp`` without a ``gno`` executable, an MCP
product whose tools lack a mapped field) fails with its code and exit 2.

``--prepare-timeout-ms`` bounds each preparation (``argtypes.add_prepare_timeout_option``: every
command that prepares adapters takes it, under the same name and default).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.adapters.base import Adapter, PreparedIndex
from agentic.adapters.errors import AdapterError
from agentic.catalog.load import load_catalog
from agentic.catalog.table import Catalog
from agentic.commands.argtypes import add_backend_option, add_prepare_timeout_option
from agentic.contract.errors import ContractError
from agentic.fixture.loader import Fixture, load_fixture
from agentic.resources import default_fixture_dir
from agentic.runner.index_cache import prepare_cached

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers


def _check_out_dir(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise ContractError("invalid_cli_option", f"--out {out} is not a directory")
    if out.is_dir() and any(out.iterdir()):
        raise ContractError("invalid_cli_option", f"--out {out} is not empty")


def _adapter_ids(args: argparse.Namespace, catalog: Catalog) -> tuple[str, ...]:
    """``--adapter ID``, or every preparable adapter of ``--lane NAME`` (with ``--index-cache``)."""
    if (args.adapter is None) == (args.lane is None):
        raise ContractError("invalid_cli_option", "give exactly one of --adapter and --lane")
    if args.adapter is not None:
        return (catalog.preparable(args.adapter).adapter_id,)
    if args.index_cache is None:
        raise ContractError("invalid_cli_option", "--lane prepares into --index-cache only")
    lane = catalog.lane(args.lane)
    return tuple(a for a in lane.adapters if catalog.adapter(a).preparable)


def _run(args: argparse.Namespace) -> int:
    if (args.out is None) == (args.index_cache is None):
        raise ContractError("invalid_cli_option", "give exactly one of --out and --index-cache")
    if args.out is not None:
        _check_out_dir(args.out)
    catalog = load_catalog(tuple(args.backend))
    adapter_ids = _adapter_ids(args, catalog)
    fixture = load_fixture(args.fixture or default_fixture_dir())
    timeout_s = args.prepare_timeout_ms / 1000
    for adapter_id in adapter_ids:
        adapter = catalog.build_adapter(adapter_id, fixture.snapshot, fixture.oracles)
        try:
            if args.out is not None:
                prepared = adapter.prepare(fixture.snapshot, args.out, timeout_s=timeout_s)
            else:
                prepared = _into_cache(adapter, fixture, args.index_cache, timeout_s)
        except AdapterError as exc:
            raise ContractError(exc.code, f"{adapter_id}: {exc}") from exc
        print(prepared.index_fingerprint)
    return 0


def _into_cache(adapter: Adapter, fixture: Fixture, cache: Path, timeout_s: float) -> PreparedIndex:
    with tempfile.TemporaryDirectory(prefix="agentic-prepare-") as root:
        cached = prepare_cached(adapter, fixture.snapshot, Path(root), cache, timeout_s=timeout_s)
    state = "reused" if cached.reused else "built"
    print(f"agentic: {adapter.adapter_id} index {state} in {cache}", file=sys.stderr)
    return cached.prepared


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("prepare", help="build an adapter's native index")
    parser.add_argument("--adapter", help="adapter id (`agentic catalog` lists them)")
    parser.add_argument("--lane", help="every preparable adapter of a named lane")
    add_backend_option(parser)
    parser.add_argument("--out", type=Path, help="empty or missing output folder")
    parser.add_argument(
        "--index-cache",
        type=Path,
        help="add the index to this cache (what run --index-cache reuses)",
    )
    parser.add_argument("--fixture", type=Path, help="fixture (default: bundled)")
    add_prepare_timeout_option(parser)
    parser.set_defaults(func=_run)
