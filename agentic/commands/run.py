"""``agentic run``: run a lane, score it, print report.md (not with ``--quiet``), optionally write
the artifacts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.commands.argtypes import (
    add_backend_option,
    add_executor_options,
    add_force_option,
    add_jobs_option,
    add_key_file_option,
    add_prepare_timeout_option,
    add_quiet_option,
    csv_items,
    execution,
    positive_int,
    print_result,
    progress_printer,
)
from agentic.contract.errors import ContractError
from agentic.contract.receipt import LIFECYCLES, Lifecycle
from agentic.resources import default_fixture_dir, repo_root
from agentic.runner.pairs import Shard

if TYPE_CHECKING:
    from agentic.catalog.entries import LaneEntry, LaneSettings
    from agentic.catalog.source import CatalogSource
    from agentic.catalog.table import Catalog
    from agentic.commands.argtypes import Subparsers

DEFAULT_TIMEOUT_MS = 30_000


def _promotion_pair(value: str) -> tuple[str, ...]:
    """``CANDIDATE:BASELINE_ADAPTER`` (two adapter ids), or ``()`` for ``none`` (no gate)."""
    if value == "none":
        return ()
    candidate, sep, baseline_adapter = value.partition(":")
    if not sep or not candidate or not baseline_adapter:
        raise argparse.ArgumentTypeError("--promote takes CANDIDATE:BASELINE_ADAPTER or none")
    return candidate, baseline_adapter


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("run", help="run a lane and score it")
    parser.add_argument(
        "--lane",
        help="a named lane (agent, adapters, promotion, replay), e.g. fixture-agent; "
        "excludes --agent, --adapter, --promote and --no-replay",
    )
    parser.add_argument("--fixture", type=Path, help="fixture (default: bundled)")
    parser.add_argument("--cues", type=Path, help="the fixture agent's cue table")
    add_backend_option(parser)
    parser.add_argument("--adapter", type=csv_items, help="comma-separated adapter ids")
    parser.add_argument("--task", type=csv_items, help="comma-separated task ids")
    parser.add_argument("--lifecycle", type=csv_items, help="cold, warm or cold,warm (default)")
    parser.add_argument("--agent", help="agent kind (default: fixture)")
    parser.add_argument(
        "--agent-config",
        type=Path,
        metavar="FILE",
        help="an openai-chat agent's TOML config (an OpenAI-compatible endpoint); excludes "
        "--agent and --lane",
    )
    parser.add_argument(
        "--llm-cache",
        type=Path,
        metavar="DIR",
        help="the record/reuse cache of the endpoint's answers (with --agent-config)",
    )
    parser.add_argument(
        "--llm-cache-mode",
        choices=("record", "reuse", "off"),
        help="record: ask the endpoint, store each answer; reuse: answer every request from "
        "the cache, endpoint down; off: no cache (the default without --llm-cache)",
    )
    parser.add_argument(
        "--timeout-ms", type=positive_int, default=DEFAULT_TIMEOUT_MS, help="per operation"
    )
    add_prepare_timeout_option(parser)
    parser.add_argument(
        "--promote",
        type=_promotion_pair,
        metavar="CANDIDATE:BASELINE_ADAPTER",
        help="the promotion gate: the candidate adapter against the baseline adapter, or none "
        "(default: capsule:mcp-reference when the run has both adapters, else none)",
    )
    parser.add_argument(
        "--no-replay", action="store_true", help="skip the replay of one-call bundles"
    )
    add_jobs_option(parser)
    parser.add_argument("--index-cache", type=Path, help="reuse prepared indexes from this folder")
    parser.add_argument("--out", type=Path, help="write the artifacts here")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="finish the interrupted run of this lane at --out (or --write): only the pairs "
        "its journal lacks are run; the report is the one an uninterrupted run writes",
    )
    add_executor_options(parser)
    add_key_file_option(parser, "the key that seals this run's journal and shard")
    parser.add_argument(
        "--shard",
        type=_shard,
        metavar="K/N",
        help="run only slice K of N of the pairs and write it to --out as a shard; "
        "'agentic merge' writes the lane's report from all N",
    )
    parser.add_argument("--write", action="store_true", help="write the lane's baseline")
    add_force_option(parser, other="another lane", where="--out or --write")
    add_quiet_option(parser)
    parser.set_defaults(func=handle)


DEFAULT_PROMOTION = ("capsule", "mcp-reference")


def default_promotion(adapters: tuple[str, ...] | None, catalog: Catalog) -> tuple[str, str] | None:
    """The gate of a run without ``--promote``: capsule against mcp-reference when the run has
    both (the default adapters do), else none: a run of other adapters is not gated on two it
    never ran."""
    ran = catalog.default_adapters if adapters is None else adapters
    return DEFAULT_PROMOTION if set(DEFAULT_PROMOTION) <= set(ran) else None


def _promotion(args: argparse.Namespace, catalog: Catalog) -> tuple[str, str] | None:
    """``--promote`` (``none``: no gate), else the default gate of the run's adapters."""
    if args.promote is None:
        return default_promotion(args.adapter, catalog)
    return args.promote or None


def _shard(value: str) -> Shard:
    try:
        return Shard.parse(value)
    except ContractError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def _lane_settings(args: argparse.Namespace, catalog: Catalog) -> LaneSettings:
    """agent, adapters, promote and replay: from --lane, or from their own options."""
    if args.lane is None:
        return {
            "agent": args.agent or "fixture",
            "adapters": args.adapter,
            "promote": _promotion(args, catalog),
            "replay": not args.no_replay,
        }
    given = [
        option
        for option, value in (
            ("--agent", args.agent),
            ("--adapter", args.adapter),
            ("--promote", args.promote),
            ("--no-replay", args.no_replay or None),
        )
        if value is not None
    ]
    if given:
        raise ContractError("invalid_cli_option", f"--lane excludes {', '.join(given)}")
    return catalog.lane(args.lane).run_settings()


def _lane_lifecycles(args: argparse.Namespace, catalog: Catalog) -> tuple[Lifecycle, ...]:
    return LIFECYCLES if args.lane is None else catalog.lane(args.lane).lifecycles


def _fixture_dir(args: argparse.Namespace, catalog: Catalog) -> Path:
    """--fixture, else the named lane's fixture, else the bundled one."""
    if args.fixture is not None:
        return Path(args.fixture)
    if args.lane is not None:
        lane = catalog.lane(args.lane)
        return lane.checked_fixture_dir()  # one line when not installed
    return default_fixture_dir()


def _endpoint_lane(name: str | None) -> LaneEntry | None:
    """The named lane when an endpoint agent runs it (its config and cache are the lane's)."""
    from agentic.catalog.load import builtin_catalog

    if name is None:
        return None
    lane = builtin_catalog().lanes.get(name)
    return lane if lane is not None and lane.agent_config is not None else None


def _catalog_source(args: argparse.Namespace) -> CatalogSource:
    """--backend files and an --agent-config agent, as the recipe every worker rebuilds."""
    from agentic.catalog.builtins import OPENAI_CHAT
    from agentic.catalog.source import CatalogSource

    backends = tuple(args.backend)
    endpoint_lane = _endpoint_lane(args.lane)
    if endpoint_lane is not None:
        given = [
            o
            for o, v in (("--agent-config", args.agent_config), ("--llm-cache", args.llm_cache))
            if v
        ]
        if given:
            raise ContractError(
                "invalid_cli_option", f"lane {args.lane} names its agent; drop {', '.join(given)}"
            )
        return CatalogSource.for_lane(endpoint_lane, args.llm_cache_mode, backends)
    if args.agent_config is None:
        if args.llm_cache is not None or args.llm_cache_mode is not None:
            raise ContractError(
                "invalid_cli_option", "--llm-cache applies only with --agent-config"
            )
        return CatalogSource(backends)
    # `--agent openai-chat` names the kind the config is; any other agent is another agent.
    agent = None if args.agent == OPENAI_CHAT else args.agent
    given = [o for o, v in (("--agent", agent), ("--lane", args.lane)) if v is not None]
    if given:
        raise ContractError("invalid_cli_option", f"--agent-config excludes {', '.join(given)}")
    mode = args.llm_cache_mode
    if mode is None:
        if args.llm_cache is not None:
            raise ContractError(
                "invalid_cli_option", "--llm-cache needs --llm-cache-mode record or reuse"
            )
        mode = "off"
    return CatalogSource(backends, args.agent_config, args.llm_cache, mode)


def handle(args: argparse.Namespace) -> int:
    from agentic.lane import LaneRequest, execute_lane

    if args.write and args.out is not None:
        raise ContractError("invalid_cli_option", "--write and --out are exclusive")
    if args.shard is not None and args.write:
        raise ContractError("invalid_cli_option", "--shard writes a part, never a baseline")
    if args.write and repo_root() is None:
        raise ContractError("unsafe_baseline_write", "--write needs a source checkout; use --out")
    source = _catalog_source(args)
    catalog, configured = source.load()
    if configured is not None and args.lane is None:  # a lane names its own agent
        args.agent = configured
    request = LaneRequest(
        fixture_dir=_fixture_dir(args, catalog),
        cues_path=args.cues,
        tasks=args.task,
        lifecycles=tuple(args.lifecycle or _lane_lifecycles(args, catalog)),
        timeout_s=args.timeout_ms / 1000,
        prepare_timeout_s=args.prepare_timeout_ms / 1000,
        index_cache=args.index_cache,
        out=args.out,
        write=args.write,
        force=args.force,
        execution=execution(args),
        catalog_source=source,
        resume=args.resume,
        shard=args.shard,
        key_file=args.key_file,
        **_lane_settings(args, catalog),
    )
    outcome = execute_lane(request, progress=progress_printer(args.quiet))
    # A run that measured nothing (an adapter that could not be prepared) prints only its one
    # error line: a report of harness errors on stdout would read like results.
    if outcome.failure is None:
        print_result(outcome.markdown, quiet=args.quiet)
    # One line on stderr for why a run measured nothing (exit 2), never only in report.json.
    reason = outcome.failure or outcome.harness_error
    if reason is not None:
        print(f"agentic: {reason}", file=sys.stderr)
    return outcome.exit_code
