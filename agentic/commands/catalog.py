"""``agentic catalog [--backend FILE ...]``: what can run here: every adapter (with where it
comes from, what it declares and, when it cannot run on this machine, why), every agent and
every named lane. ``--names adapters|agents|lanes`` prints one kind's names, one per line.
``--check`` starts every ``--backend`` config for real (``agentic/backend_check.py``) and exits 2
when one fails."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.commands.argtypes import (
    add_backend_option,
    add_prepare_timeout_option,
    positive_int,
)
from agentic.contract.errors import EXIT_ERROR, EXIT_OK, ContractError

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers
    from agentic.runner.catalog import AdapterEntry, Catalog


def _adapter_line(entry: AdapterEntry) -> str:
    flags = [
        flag
        for flag, on in (
            ("default", entry.default),
            ("reads-oracles", entry.reads_oracles),
            ("replayable-bundle", entry.replayable_bundle),
            ("processes", entry.spawns_processes),
        )
        if on
    ]
    reason = entry.unavailable()
    state = "ready" if reason is None else f"unavailable: {reason}"
    described = f" [{', '.join(flags)}]" if flags else ""
    return f"  {entry.adapter_id}{described} ({entry.origin}: {entry.source}) {state}"


def _run(args: argparse.Namespace) -> int:
    from agentic.resources import missing_fixture
    from agentic.runner.catalog import load_catalog

    catalog = load_catalog(tuple(args.backend))
    if args.check:
        return _check(catalog, args)
    if args.names is not None:
        names = {
            "adapters": catalog.adapter_ids,
            "agents": tuple(sorted(catalog.agents)),
            "lanes": tuple(sorted(catalog.lanes)),
        }[args.names]
        print("\n".join(names))
        return 0
    print("adapters:")
    for adapter_id in catalog.adapter_ids:
        print(_adapter_line(catalog.adapter(adapter_id)))
    print("agents:")
    for kind in sorted(catalog.agents):
        agent = catalog.agent(kind)
        print(f"  {kind} ({agent.origin}: {agent.source})")
    print("lanes:")
    for name in sorted(catalog.lanes):
        lane = catalog.lane(name)
        promote = ":".join(lane.promote) if lane.promote else "none"
        replay = "replay" if lane.replay else "no replay"
        adapters = ",".join(lane.adapters)
        missing = missing_fixture(lane.fixture)  # an installed kit has the bundled one only
        state = "" if missing is None else f"; unavailable: {missing}"
        print(
            f"  {name}: agent {lane.agent}, adapters {adapters}, promote {promote}, {replay}{state}"
        )
    return 0


def _check(catalog: Catalog, args: argparse.Namespace) -> int:
    from agentic.backend_check import check_backend
    from agentic.fixture.loader import load_fixture
    from agentic.resources import default_fixture_dir

    given = {str(Path(path).resolve()) for path in args.backend}
    configured = [
        adapter_id
        for adapter_id in catalog.adapter_ids
        if catalog.adapter(adapter_id).origin == "config"
        and str(Path(catalog.adapter(adapter_id).source).resolve()) in given
    ]
    if not configured:
        raise ContractError("invalid_cli_option", "--check tries --backend configs: give one")
    fixture = load_fixture(args.fixture or default_fixture_dir())
    print("backends:")
    checks = [
        check_backend(
            catalog,
            adapter_id,
            fixture,
            timeout_s=args.timeout_ms / 1000,
            prepare_timeout_s=args.prepare_timeout_ms / 1000,
        )
        for adapter_id in configured
    ]
    for check in checks:
        print(check.line)
    return EXIT_ERROR if any(c.problem is not None for c in checks) else EXIT_OK


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("catalog", help="list the adapters, agents and named lanes")
    add_backend_option(parser)
    parser.add_argument(
        "--names",
        choices=("adapters", "agents", "lanes"),
        help="print only these names, one per line",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="start every --backend config under the sandbox: prepare, handshake, its tools "
        "against the mapping, one sample search (exit 2 when one fails)",
    )
    parser.add_argument(
        "--fixture", type=Path, help="the fixture --check searches (default: the bundled one)"
    )
    parser.add_argument(
        "--timeout-ms",
        type=positive_int,
        default=30000,
        help="the deadline of each --check step but preparation (default 30000)",
    )
    add_prepare_timeout_option(parser)
    parser.set_defaults(func=_run)
