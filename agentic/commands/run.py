"""``agentic run``: run a lane, score it, print report.md, optionally write the artifacts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agentic.commands.argtypes import csv_items, positive_int
from agentic.contract.errors import ContractError
from agentic.contract.receipt import LIFECYCLES
from agentic.resources import default_fixture_dir, repo_root

DEFAULT_TIMEOUT_MS = 30_000


def _promotion_pair(value: str) -> tuple[str, str] | None:
    if value == "none":
        return None
    candidate, sep, baseline = value.partition(":")
    if not sep or not candidate or not baseline:
        raise argparse.ArgumentTypeError("--promote takes CANDIDATE:BASELINE or none")
    return candidate, baseline


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("run", help="run a lane and score it")
    parser.add_argument("--fixture", type=Path, default=None)
    parser.add_argument("--cues", type=Path, default=None)
    parser.add_argument("--adapter", type=csv_items, default=None)
    parser.add_argument("--task", type=csv_items, default=None)
    parser.add_argument("--lifecycle", type=csv_items, default=LIFECYCLES)
    parser.add_argument("--agent", choices=("fixture", "local-model"), default="fixture")
    parser.add_argument("--timeout-ms", type=positive_int, default=DEFAULT_TIMEOUT_MS)
    parser.add_argument("--promote", type=_promotion_pair, default=("capsule", "mcp-reference"))
    parser.add_argument("--no-replay", action="store_true", help="skip the capsule replay")
    parser.add_argument(
        "--index-cache", type=Path, default=None, help="reuse prepared indexes from this folder"
    )
    parser.add_argument("--out", type=Path, default=None, help="write the artifacts here")
    parser.add_argument("--write", action="store_true", help="write the lane's baseline")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from agentic.lane import LaneRequest, execute_lane

    if args.write and args.out is not None:
        raise ContractError("invalid_cli_option", "--write and --out are exclusive")
    if args.write and repo_root() is None:
        raise ContractError("unsafe_baseline_write", "--write needs a source checkout; use --out")
    request = LaneRequest(
        fixture_dir=args.fixture or default_fixture_dir(),
        cues_path=args.cues,
        adapters=args.adapter,
        tasks=args.task,
        lifecycles=tuple(args.lifecycle),
        agent=args.agent,
        timeout_s=args.timeout_ms / 1000,
        promote=args.promote,
        replay=not args.no_replay,
        index_cache=args.index_cache,
        out=args.out,
        write=args.write,
    )
    progress = (lambda message: None) if args.quiet else _progress
    outcome = execute_lane(request, progress=progress)
    sys.stdout.write(outcome.markdown)
    return outcome.exit_code


def _progress(message: str) -> None:
    print(f"agentic: {message}", file=sys.stderr, flush=True)
