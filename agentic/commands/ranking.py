"""``agentic ranking``: score retrieval alone (recall, hit rate, MRR, nDCG, precision at k).

Deterministic and model-free: two runs over the same fixture, goldens and options print and write
byte-identical reports. ``--out DIR`` writes ``ranking.json`` (canonical JSON), ``ranking.txt``
(the printed summary), ``qrels.trec`` and one TREC run per adapter and variant, replacing DIR as
one set. Exit 0 when the run completes, 2 on bad input.

``--gate`` then compares the run with the committed baseline of its fixture,
``<baselines>/ranking/<fixtureFingerprint>/ranking.json``, exactly as ``agentic compare BASE NEW``
does: exit 1 when a metric regressed beyond ``--tolerance`` (or vanished), 2 when the fixture has
no baseline yet (accept one with ``agentic compare DIR/ranking.json --accept``) or the run
measured differently (other goldens or settings).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.commands.argtypes import (
    add_backend_option,
    add_force_option,
    add_prepare_timeout_option,
    add_quiet_option,
    baselines_root,
    positive_int,
    print_result,
    progress_printer,
)
from agentic.commands.argtypes import unique_csv_items as csv_list
from agentic.commands.compare import tolerance
from agentic.contract.errors import EXIT_GATE_FAILED, EXIT_OK, ContractError
from agentic.resources import default_fixture_dir

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers
    from agentic.ranking.schema import RankingReport

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
    parser.add_argument("--fixture", type=Path, help="fixture folder")
    parser.add_argument("--goldens", type=Path, help="one JSONL file instead of <fixture>/goldens")
    parser.add_argument("--tag", type=csv_list, help="only goldens with these tags")
    parser.add_argument(
        "--timeout-ms",
        type=positive_int,
        default=DEFAULT_TIMEOUT_MS,
        help="per-operation timeout in milliseconds",
    )
    add_prepare_timeout_option(parser)
    add_backend_option(parser)


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("ranking", help="score retrieval alone against the goldens")
    add_fixture_options(parser)
    parser.add_argument("--adapter", type=csv_list, help="adapters to rank")
    parser.add_argument("--k", type=positive_int, default=5, help="cutoff (default 5)")
    parser.add_argument("--threshold", type=finite_float, help="search minScore")
    parser.add_argument("--ablate", action="store_true", help="also run with rerank/expand off")
    parser.add_argument("--verbose", action="store_true", help="show every miss")
    parser.add_argument("--out", type=Path, help="write the report here")
    add_force_option(parser, other="other adapters (or another kind)", where="--out")
    add_quiet_option(parser)
    parser.add_argument(
        "--gate", action="store_true", help="compare with the committed baseline of this fixture"
    )
    parser.add_argument("--tolerance", type=tolerance, help="--gate's tolerance (default 0.02)")
    parser.add_argument("--baselines", type=Path, help="baselines root (default: the checkout's)")
    parser.set_defaults(func=handle)


def ranking_baseline(root: Path | None, fingerprint: str, written: Path | None) -> Path:
    """The committed baseline of this fixture; without one the gate has nothing to hold."""
    baselines = baselines_root(root, code="baseline_missing", needs="--gate")
    baseline = baselines / "ranking" / fingerprint / "ranking.json"
    if baseline.is_file():
        return baseline
    report = written / "ranking.json" if written is not None else "DIR/ranking.json"
    create = "" if written is not None else "run `agentic ranking --out DIR`, then "
    into = "" if root is None else f" --baselines {root}"
    raise ContractError(
        "baseline_missing",
        f"no ranking baseline for fixture {fingerprint[:12]} ({baseline} not found): "
        f"{create}accept one with `agentic compare {report} --accept{into}` and commit it",
    )


def gate(report: RankingReport, args: argparse.Namespace) -> int:
    """``agentic compare BASELINE NEW`` with NEW this run's report, as it was (or would be)
    written: its canonical bytes, so gating in memory and gating the file cannot differ."""
    from agentic.commands.regression import (
        DEFAULT_TOLERANCE,
        compare_reports,
        failed,
        load_report,
        ranking_report,
        render_changes,
    )
    from agentic.contract.strict_json import parse_strict_object
    from agentic.ranking.report import report_bytes

    baseline = ranking_baseline(args.baselines, report.fixtureFingerprint, args.out)
    source = str(args.out / "ranking.json") if args.out is not None else "this run"
    new = ranking_report(parse_strict_object(report_bytes(report), source=source), source)
    limit = DEFAULT_TOLERANCE if args.tolerance is None else args.tolerance
    base = load_report(baseline)
    changes = compare_reports(base, new, limit)
    print_result(render_changes(base, new, changes, limit), quiet=args.quiet)
    return EXIT_GATE_FAILED if failed(changes) else EXIT_OK


def handle(args: argparse.Namespace) -> int:
    from agentic.catalog.load import load_catalog
    from agentic.fixture.loader import load_fixture
    from agentic.output.folder import check_output
    from agentic.output.staging import write_artifacts
    from agentic.ranking.goldens import load_goldens
    from agentic.ranking.report import build_report, render_text, report_bytes
    from agentic.ranking.runner import RankingSettings, run_ranking
    from agentic.ranking.trec import export_files

    if args.tolerance is not None and not args.gate:
        raise ContractError("invalid_cli_option", "--tolerance applies only with --gate")
    if args.out is not None:
        check_output(args.out)  # a link, a file or foreign content: refused before the run
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
        prepare_timeout_s=args.prepare_timeout_ms / 1000,
    )
    catalog = load_catalog(tuple(args.backend))
    adapters = args.adapter if args.adapter is not None else catalog.default_adapters
    note = progress_printer(args.quiet).note
    run = run_ranking(fixture, goldens, adapters, settings, catalog=catalog, progress=note)
    report = build_report(run)
    text = render_text(report, verbose=args.verbose)
    print_result(text, quiet=args.quiet)
    if args.out is not None:
        files = {"ranking.json": report_bytes(report), "ranking.txt": text.encode("utf-8")}
        files.update({name: body.encode("utf-8") for name, body in export_files(report).items()})
        write_artifacts(args.out, files, force=args.force)
        note(f"wrote {args.out}")
    return gate(report, args) if args.gate else EXIT_OK
