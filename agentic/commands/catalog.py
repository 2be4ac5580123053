"""``agentic catalog [--backend FILE ...]``: what can run here: every adapter (with where it
comes from, what it declares and, when it cannot run on this machine, why), every agent and
every named lane. ``--names adapters|agents|lanes`` prints one kind's names, one per line."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from agentic.commands.argtypes import add_backend_option

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers
    from agentic.runner.catalog import AdapterEntry


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


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("catalog", help="list the adapters, agents and named lanes")
    add_backend_option(parser)
    parser.add_argument(
        "--names",
        choices=("adapters", "agents", "lanes"),
        help="print only these names, one per line",
    )
    parser.set_defaults(func=_run)
