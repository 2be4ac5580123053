"""``agentic merge SHARD_DIR... --out DIR``: the report of a lane run as shards.

Each shard must verify under the run's key (``shards.py``): ``--key-file F``, else
``AGENTIC_KEY_FILE``, else the key the shards' run left in this user's state dir."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.commands.argtypes import (
    add_force_option,
    add_key_file_option,
    add_quiet_option,
    print_result,
    progress_printer,
)
from agentic.contract.errors import ContractError

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers
    from agentic.lane import LaneOutcome
    from agentic.runner.progress import Progress


def register(subparsers: Subparsers) -> None:
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
    add_key_file_option(parser, "the key the shards were sealed with")
    add_force_option(parser, other="another lane", where="--out")
    add_quiet_option(parser)
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    outcome = merge_into(
        args.shards,
        args.fixture,
        args.out,
        force=args.force,
        progress=progress_printer(args.quiet),
        key_file=args.key_file,
    )
    print_result(outcome.markdown, quiet=args.quiet)
    reason = outcome.failure or outcome.harness_error
    if reason is not None:
        print(f"agentic: {reason}", file=sys.stderr)
    return outcome.exit_code


def merge_into(
    shards: Sequence[Path],
    fixture_dir: Path | None,
    out: Path,
    *,
    force: bool,
    progress: Progress,
    key_file: Path | None = None,
) -> LaneOutcome:
    """Merge the folders of all N shards of one run into the lane's report at ``out``, on the
    shards' fixture (``fixture_dir``, default: the kit's fixture the shards name). Scores,
    replays and the gate are derived from the merged receipts, never read from a shard."""
    from agentic.fixture.loader import load_fixture
    from agentic.lane import report_lane
    from agentic.lane.shards import load_shard, merge_shards
    from agentic.output.folder import check_output, lane_identity
    from agentic.resources import fixtures_dir

    merged = merge_shards([load_shard(folder, key_file, os.environ) for folder in shards])
    fixture = load_fixture(fixture_dir or fixtures_dir() / merged.fixture_name)
    if fixture.snapshot.fingerprint != merged.run.fixture:
        raise ContractError(
            "shards_mismatch",
            f"{fixture.root} is not the shards' fixture (fingerprint "
            f"{fixture.snapshot.fingerprint[:12]}, shards {merged.run.fixture[:12]})",
        )
    identity = lane_identity(merged.run.agent.id, merged.run.adapter_ids)
    check_output(out, identity, force=force)
    return report_lane(
        merged.result,
        fixture,
        environment=merged.environment,
        gate=merged.gate,
        target=out,
        write=False,
        force=force,
        progress=progress,
    )
