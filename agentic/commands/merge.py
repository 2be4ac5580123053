"""``agentic merge SHARD_DIR... --out DIR``: the report of a lane run as shards."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agentic.commands.argtypes import add_force_option, add_quiet_option
from agentic.contract.errors import ContractError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("merge", help="merge a lane's shards into its report")
    parser.add_argument(
        "shards", type=Path, nargs="+", metavar="SHARD_DIR", help="the folders of all N shards"
    )
    parser.add_argument("--out", type=Path, required=True, help="write the lane's report here")
    parser.add_argument(
        "--fixture",
        type=Path,
        help="the shards' fixture (default: the kit's fixture the shards name)",
    )
    add_force_option(parser, other="another lane", where="--out")
    add_quiet_option(parser)
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from agentic.commands.argtypes import progress_printer
    from agentic.fixture.loader import load_fixture
    from agentic.lane import report_lane
    from agentic.report.output_dir import check_output, lane_identity
    from agentic.resources import fixtures_dir
    from agentic.shards import load_shard, merge_shards

    merged = merge_shards([load_shard(folder) for folder in args.shards])
    fixture = load_fixture(args.fixture or fixtures_dir() / merged.fixture_name)
    if fixture.snapshot.fingerprint != merged.run["fixture"]:
        raise ContractError(
            "shards_mismatch",
            f"{fixture.root} is not the shards' fixture (fingerprint "
            f"{fixture.snapshot.fingerprint[:12]}, shards {str(merged.run['fixture'])[:12]})",
        )
    adapters = [a["id"] for a in merged.run["adapters"]]
    check_output(args.out, lane_identity(merged.run["agent"]["id"], adapters), force=args.force)
    outcome = report_lane(
        merged.result,
        fixture,
        environment=merged.environment,
        gate=merged.gate,
        target=args.out,
        write=False,
        force=args.force,
        progress=progress_printer(args.quiet),
    )
    sys.stdout.write(outcome.markdown)
    reason = outcome.failure or outcome.harness_error
    if reason is not None:
        print(f"agentic: {reason}", file=sys.stderr)
    return outcome.exit_code
