"""``agentic catalog``: every adapter, agent and named lane that can run here.
Its options are ``[--backend FILE ...] [--agent-config FILE]``. An adapter is listed with where
it comes from and what it declares, and, when it cannot run on this machine, why. An agent is
listed with what it requires. ``--names adapters|agents|lanes`` prints one kind's names, one
per line.

A config file's adapter or agent is listed as "not checked": that it parsed says nothing of the
server or endpoint behind it. ``--check`` tries them for real and prints their verdicts instead:
every ``--backend`` config started under the sandbox (``adapters/mcp/backend_check.py``), the
``--agent-config`` endpoint asked for its models and sent tiny requests
(``agents/endpoint_check.py``); exit 2 when one fails."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.commands.argtypes import (
    add_backend_option,
    add_prepare_timeout_option,
    positive_int,
)
from agentic.contract.errors import EXIT_ERROR, EXIT_OK, ContractError

if TYPE_CHECKING:
    from agentic.catalog.entries import AdapterEntry, AgentEntry
    from agentic.catalog.table import Catalog
    from agentic.commands.argtypes import Subparsers

NOT_CHECKED = "not checked"


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
    ready = NOT_CHECKED if entry.origin == "config" else "ready"
    state = ready if reason is None else f"unavailable: {reason}"
    described = f" [{', '.join(flags)}]" if flags else ""
    return f"  {entry.adapter_id}{described} ({entry.origin}: {entry.source}) {state}"


def _agent_line(agent: AgentEntry) -> str:
    if agent.requires is not None:
        state = f" requires {agent.requires}"
    else:
        state = f" {NOT_CHECKED}" if agent.origin == "config" else ""
    return f"  {agent.kind} ({agent.origin}: {agent.source}){state}"


def _run(args: argparse.Namespace) -> int:
    from agentic.catalog.source import CatalogSource
    from agentic.resources import missing_fixture

    catalog, _ = CatalogSource(tuple(args.backend), args.agent_config).load()
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
        print(_agent_line(catalog.agent(kind)))
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
    if not args.backend and args.agent_config is None:
        raise ContractError(
            "invalid_cli_option", "--check tries --backend and --agent-config files: give one"
        )
    codes = [EXIT_OK]
    if args.agent_config is not None:
        codes.append(_check_agent(args.agent_config))
    if args.backend:
        codes.append(_check_backends(catalog, args))
    return max(codes)


def _check_agent(path: Path) -> int:
    """The endpoint of an --agent-config file, tried; one line on stderr when it fails."""
    from agentic.agents.chat_config import load_agent_config
    from agentic.agents.endpoint_check import check_agent

    config = load_agent_config(path)
    print(f"agent {config.id} ({path}):")
    check = check_agent(config, os.environ)
    print("\n".join(check.lines), flush=True)
    if check.problem is None:
        print("  ok")
        return EXIT_OK
    print(f"agentic: agent {config.id} failed its check: {check.problem}", file=sys.stderr)
    return EXIT_ERROR


def _check_backends(catalog: Catalog, args: argparse.Namespace) -> int:
    from agentic.adapters import sandbox
    from agentic.adapters.mcp.backend_check import check_backend
    from agentic.fixture.loader import load_fixture
    from agentic.resources import default_fixture_dir

    given = {str(Path(path).resolve()) for path in args.backend}
    configured = [
        adapter_id
        for adapter_id in catalog.adapter_ids
        if catalog.adapter(adapter_id).origin == "config"
        and str(Path(catalog.adapter(adapter_id).source).resolve()) in given
    ]
    fixture = load_fixture(args.fixture or default_fixture_dir())
    print("backends:")
    checks = []
    for adapter_id in configured:
        adapter = catalog.build_adapter(adapter_id, fixture.snapshot, {})
        entry = catalog.adapter(adapter_id)
        if entry.spawns_processes:
            sandbox.warn_unsandboxed([adapter_id])
        check = check_backend(
            adapter,
            Path(entry.source),
            fixture,
            timeout_s=args.timeout_ms / 1000,
            prepare_timeout_s=args.prepare_timeout_ms / 1000,
        )
        checks.append(check)
    for check in checks:
        print("\n".join(check.lines))
    return EXIT_ERROR if any(c.problem is not None for c in checks) else EXIT_OK


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("catalog", help="list the adapters, agents and named lanes")
    add_backend_option(parser)
    parser.add_argument(
        "--agent-config",
        type=Path,
        metavar="FILE",
        help="list an openai-chat agent's TOML config as an agent (what `run --agent-config` runs)",
    )
    parser.add_argument(
        "--names",
        choices=("adapters", "agents", "lanes"),
        help="print only these names, one per line",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="start every --backend config under the sandbox: prepare, handshake, its tools "
        "against the mapping, one sample search; ask the --agent-config endpoint for its models "
        "and send it tiny requests (exit 2 when one fails)",
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
