"""``agentic compare BASE NEW [--tolerance 0.02] [--accept] [--receipts]``: the regression gate.

Boots nothing (no fixture, adapter or model), so CI can run it against a committed baseline.
Exit 0 when no metric regressed beyond the tolerance, 1 when one did (or vanished), 2 when the
reports cannot be compared (different kinds, fixture fingerprints, goldens or settings).

``--receipts`` (lane reports) asks a stricter question: is every canonical receipt of NEW the one
BASE holds for the same pair? NEW may be a short rerun of a long committed lane; exit 1 names
each differing pair and its first difference, exit 2 a pair BASE never ran.

``--accept`` accepts NEW as the committed baseline of its fixture once the comparison passes:
it files NEW as ``<baselines>/ranking/<fingerprint>/ranking.json`` or ``<baselines>/generation/
<fingerprint>/<model>.json``. With a single report, ``--accept`` files a first baseline and
refuses to replace an existing one (remove it explicitly to re-baseline). Its former name,
``--promote``, is refused with a hint (``cli.COMMANDS``): "promotion" is only the contract's
adapter gate (``agentic run --promote``).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.commands.argtypes import baselines_root
from agentic.contract.errors import EXIT_GATE_FAILED, EXIT_OK, ContractError
from agentic.contract.json_access import as_array

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers
    from agentic.commands.regression import LoadedReport


def tolerance(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not math.isfinite(number) or number < 0:
        raise argparse.ArgumentTypeError(f"{value!r} must be a finite number >= 0")
    return number


def register(subparsers: Subparsers) -> None:
    from agentic.commands.regression import DEFAULT_TOLERANCE

    parser = subparsers.add_parser("compare", help="gate a report against a baseline")
    parser.add_argument(
        "reports",
        nargs="+",
        type=Path,
        metavar="BASE NEW",
        help="the baseline report and the new one (NEW alone with --accept)",
    )
    parser.add_argument(
        "--tolerance",
        type=tolerance,
        default=DEFAULT_TOLERANCE,
        help=f"allowed worsening: absolute for rates, relative for costs (default "
        f"{DEFAULT_TOLERANCE:g}); lane reports also get an exact noise test, informational",
    )
    parser.add_argument(
        "--accept",
        action="store_true",
        help="once the comparison passes, file NEW as its fixture's baseline",
    )
    parser.add_argument(
        "--receipts",
        action="store_true",
        help="require every receipt of NEW to equal BASE's receipt of the same pair",
    )
    parser.add_argument("--baselines", type=Path, help="baselines root (default: checkout's)")
    parser.add_argument(
        "--html",
        type=Path,
        metavar="OUT",
        help="also write an HTML page of the comparison: flipped pairs, noise tests, metrics",
    )
    parser.set_defaults(func=handle)


def _compare_receipts(base: LoadedReport, new: LoadedReport, *, accept: bool) -> int:
    from agentic.commands.regression import receipt_differences

    if accept:
        raise ContractError("invalid_cli_option", "--receipts never files a baseline (--accept)")
    differences = receipt_differences(base, new)
    for line in differences:
        print(line)
    pairs = len(as_array(new.document["receipts"], "receipts"))
    print(f"{pairs - len(differences)}/{pairs} receipts of {new.label} equal {base.label}'s")
    return EXIT_GATE_FAILED if differences else EXIT_OK


def _baselines_root(args: argparse.Namespace) -> Path:
    """Where ``--accept`` files a baseline."""
    return baselines_root(args.baselines, code="unsafe_baseline_write", needs="--accept")


def handle(args: argparse.Namespace) -> int:
    from agentic.commands.regression import (
        accept_first,
        baseline_target,
        compare_page,
        compare_reports,
        failed,
        load_report,
        render_changes,
        write_baseline,
    )
    from agentic.output.page import check_page_target, write_page
    from agentic.report.compare_page import render_compare_html

    paths: list[Path] = args.reports
    if len(paths) > 2:
        raise ContractError("invalid_cli_option", "compare takes BASE NEW (or NEW with --accept)")
    if len(paths) == 1:
        if not args.accept:
            raise ContractError(
                "invalid_cli_option", "NEW alone is filed as a first baseline only with --accept"
            )
        first = accept_first(load_report(paths[0]), _baselines_root(args))
        print(f"agentic: accepted {paths[0]} as the baseline {first}", file=sys.stderr)
        return EXIT_OK
    base, new = load_report(paths[0]), load_report(paths[1])
    if args.receipts:
        return _compare_receipts(base, new, accept=args.accept)
    # A baseline --accept cannot file is refused before comparing, like any other input error.
    target = baseline_target(new, _baselines_root(args)) if args.accept else None
    if args.html is not None:
        check_page_target(args.html)
    changes = compare_reports(base, new, args.tolerance)
    sys.stdout.write(render_changes(base, new, changes, args.tolerance))
    if args.html is not None:
        write_page(args.html, render_compare_html(compare_page(base, new, changes, args.tolerance)))
        print(f"agentic: wrote {args.html}", file=sys.stderr)
    if failed(changes):
        return EXIT_GATE_FAILED
    if target is not None:
        write_baseline(new, target)
        print(f"agentic: accepted {paths[1]} as the baseline {target}", file=sys.stderr)
    return EXIT_OK
