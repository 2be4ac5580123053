"""``agentic view REPORT_DIR``: (re)build report.html from a stored report.

Reads ``REPORT_DIR/report.json`` (strict JSON, the closed schema, its fingerprints re-derived)
and writes ``REPORT_DIR/report.html`` beside it, or ``--out FILE``. The page reads citations
against the oracle's lines when the fixture the report was run on is at hand (``--fixture``,
default: the bundled one); a fixture with another fingerprint is not used, and the page says so.
Runs nothing: no adapter, agent or model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.contract.errors import EXIT_OK, ContractError
from agentic.resources import default_fixture_dir

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers
    from agentic.contract.report import BenchmarkReport
    from agentic.scoring.task_facts import TaskFacts


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("view", help="build report.html from a stored report")
    parser.add_argument(
        "report_dir", type=Path, metavar="REPORT_DIR", help="a lane's report folder"
    )
    parser.add_argument(
        "--fixture",
        type=Path,
        help="the fixture the report ran on, for its oracle lines (default: bundled)",
    )
    parser.add_argument(
        "--out", type=Path, help="write the page here (default: REPORT_DIR/report.html)"
    )
    parser.set_defaults(func=handle)


def load_lane_report(path: Path) -> BenchmarkReport:
    """Strict JSON, the closed report model and its re-derived fingerprints. The JSON Schema
    pass is left to ``agentic validate``: on a 576-pair report it alone takes longer than the
    whole page (schemas.load_model)."""
    from agentic.contract.files import read_input_file
    from agentic.contract.report import BenchmarkReport
    from agentic.contract.schemas import load_model
    from agentic.contract.strict_json import parse_strict
    from agentic.report.assemble import check_fingerprints

    source = str(path)
    document = parse_strict(read_input_file(path, code="invalid_report"), source=source)
    if not isinstance(document, dict):
        raise ContractError("invalid_report", f"{source}: not a JSON object")
    report = load_model("benchmark-report", document, source=source)
    if not isinstance(report, BenchmarkReport):
        raise ContractError("invalid_report", f"{source}: not a lane report")
    check_fingerprints(report, source)
    return report


def facts_for(report: BenchmarkReport, fixture_dir: Path) -> dict[str, TaskFacts] | None:
    """The fixture's task facts when it is the fixture the report ran on; else None."""
    from agentic.fixture.loader import load_fixture
    from agentic.scoring.task_facts import task_facts

    fixture = load_fixture(fixture_dir)
    if fixture.snapshot.fingerprint != report.fixtureFingerprint:
        return None
    return task_facts(fixture)


def handle(args: argparse.Namespace) -> int:
    from agentic.output.page import check_page_target, write_page
    from agentic.report.html import render_html

    folder: Path = args.report_dir
    if not folder.is_dir():
        raise ContractError("invalid_report", f"{folder} is not a report folder")
    target: Path = args.out if args.out is not None else folder / "report.html"
    check_page_target(target)  # refused before any work, like every other input error
    report = load_lane_report(folder / "report.json")
    fixture_dir = args.fixture or default_fixture_dir()
    facts = facts_for(report, fixture_dir)
    if facts is None:
        print(
            f"agentic: {fixture_dir} is not the fixture this report ran on "
            f"({report.fixtureFingerprint[:12]}); the page shows no oracle lines",
            file=sys.stderr,
        )
    write_page(target, render_html(report, facts))
    print(f"agentic: wrote {target}", file=sys.stderr)
    return EXIT_OK
