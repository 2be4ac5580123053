"""``agentic ranking``: score retrieval alone (recall, hit rate, MRR, nDCG, precision at k).

Deterministic and model-free: two runs over the same fixture, goldens and options print and write
byte-identical reports. ``--report DIR`` writes ``ranking.json`` (canonical JSON), ``ranking.txt``
(the printed summary), ``qrels.trec`` and one TREC run per adapter and variant, replacing DIR as
one set. Exit 0 when the run completes (gating is ``agentic compare``'s job), 2 on bad input.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentic.commands.argtypes import add_backend_option, positive_int
from agentic.commands.argtypes import unique_csv_items as csv_list
from agentic.contract.errors import ContractError
from agentic.resources import default_fixture_dir

DEFAULT_TIMEOUT_MS = 30_000


def finite_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"{value!r} is not finite")
    return number


def add_fixture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fixture", type=Path, default=None, help="fixture folder")
    parser.add_argument(
        "--goldens", type=Path, default=None, help="one JSONL file instead of <fixture>/goldens"
    )
    parser.add_argument("--tag", type=csv_list, default=None, help="only goldens with these tags")
    parser.add_argument("--timeout-ms", type=positive_int, default=DEFAULT_TIMEOUT_MS)
    add_backend_option(parser)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("ranking", help="score retrieval alone against the goldens")
    add_fixture_options(parser)
    parser.add_argument("--adapter", type=csv_list, default=None, help="adapters to rank")
    parser.add_argument("--k", type=positive_int, default=5, help="cutoff (default 5)")
    parser.add_argument("--threshold", type=finite_float, default=None, help="search minScore")
    parser.add_argument("--ablate", action="store_true", help="also run with rerank/expand off")
    parser.add_argument("--verbose", action="store_true", help="show every miss")
    parser.add_argument("--report", type=Path, default=None, help="write the report here")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=handle)


def progress_printer(quiet: bool) -> Callable[[str], None]:
    if quiet:
        return lambda message: None
    return lambda message: print(f"agentic: {message}", file=sys.stderr, flush=True)


def handle(args: argparse.Namespace) -> int:
    from agentic.fixture.loader import load_fixture
    from agentic.ranking.goldens import load_goldens
    from agentic.ranking.report import render_text, report_bytes, report_json
    from agentic.ranking.runner import RankingSettings, run_ranking
    from agentic.ranking.trec import export_files
    from agentic.report.artifacts import write_artifacts
    from agentic.runner.catalog import load_catalog

    fixture = load_fixture(args.fixture or default_fixture_dir())
    goldens = load_goldens(fixture, args.goldens).select(args.tag)
    if not goldens.goldens:
        raise ContractError("golden_file_invalid", "no goldens selected")
    settings = RankingSettings(
        k=args.k,
        threshold=args.threshold,
        tags=args.tag,
        ablate=args.ablate,
        timeout_s=args.timeout_ms / 1000,
    )
    catalog = load_catalog(tuple(args.backend))
    adapters = args.adapter if args.adapter is not None else catalog.default_adapters
    run = run_ranking(
        fixture, goldens, adapters, settings, catalog=catalog, progress=progress_printer(args.quiet)
    )
    report = report_json(run)
    text = render_text(report, verbose=args.verbose)
    sys.stdout.write(text)
    if args.report is not None:
        files = {"ranking.json": report_bytes(report), "ranking.txt": text.encode("utf-8")}
        files.update({name: body.encode("utf-8") for name, body in export_files(report).items()})
        write_artifacts(args.report, files)
        print(f"agentic: wrote {args.report}", file=sys.stderr)
    return 0
