"""``agentic score REPORT.json``: re-score stored receipts with the current scorer.

Users re-score old runs after a scorer fix without re-running any backend. Every pair whose new
score differs from the stored one is printed; the exit code is 1 if any differ.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.contract.canonical import canonical_text
from agentic.contract.errors import ContractError
from agentic.contract.report import NamesAPair, pair_sort_key
from agentic.resources import default_fixture_dir

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("score", help="re-score the receipts of a stored report")
    parser.add_argument("report", type=Path, help="a stored benchmark report.json")
    parser.add_argument("--fixture", type=Path, help="the fixture it measured (default: bundled)")
    parser.set_defaults(func=handle)


def _identity(record: NamesAPair) -> str:
    return "/".join(pair_sort_key(record))


def rescore(report_path: Path, fixture_dir: Path) -> tuple[int, list[str]]:
    """Re-score a stored report's receipts with the current scorer: the number of pairs and one
    line per pair whose score changed. ``agentic verify`` re-scores committed baselines with it."""
    from agentic.contract.files import read_input_file
    from agentic.contract.schemas import parse_and_load
    from agentic.fixture.loader import load_fixture
    from agentic.scoring.score import score_receipt

    data = read_input_file(report_path, code="invalid_report")
    report = parse_and_load("benchmark-report", data, source=str(report_path))
    fixture = load_fixture(fixture_dir)
    if report.fixtureFingerprint != fixture.snapshot.fingerprint:
        raise ContractError(
            "fixture_fingerprint_mismatch",
            f"report fixture {report.fixtureFingerprint[:12]} is not the loaded fixture "
            f"{fixture.snapshot.fingerprint[:12]}",
        )
    if len(report.scores) != len(report.receipts):
        raise ContractError("invalid_report", "scores and receipts differ in number")
    changed = []
    for receipt, stored in zip(report.receipts, report.scores, strict=True):
        c = receipt.canonical
        if _identity(c) != _identity(stored):
            raise ContractError("invalid_report", f"score {_identity(stored)} is out of order")
        fresh = score_receipt(c, fixture.task(c.taskId), fixture.oracle(c.taskId))
        if canonical_text(fresh.to_json()) != canonical_text(stored.score.to_json()):
            changed.append(
                f"changed {_identity(c)}: success {stored.score.success} -> {fresh.success}"
            )
    return len(report.receipts), changed


def handle(args: argparse.Namespace) -> int:
    total, changed = rescore(args.report, args.fixture or default_fixture_dir())
    for line in changed:
        print(line)
    print(f"re-scored {total} pairs: {len(changed)} changed", file=sys.stderr)
    return 1 if changed else 0
