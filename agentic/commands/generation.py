"""``agentic generation --model {mock|local:<lock>}``: answers in oracle / e2e / noretrieval mode.

Prints one row per mode (pass rate, correctness, refusal correctness, leakage, think-tag leaks,
numeric groundedness; over stable questions), the unstable questions and the decomposition
(oracle - e2e, e2e - noretrieval). ``--out DIR`` writes ``generation.json`` (canonical JSON)
and ``generation.txt``. Exit 0 when the run completes, 2 on bad input or a model that fails its
preflight; gating against a baseline is ``agentic compare``'s job.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.commands.argtypes import (
    add_force_option,
    add_quiet_option,
    positive_int,
    print_result,
    progress_printer,
)
from agentic.commands.argtypes import unique_csv_items as csv_list
from agentic.commands.ranking import add_fixture_options
from agentic.contract.errors import ContractError
from agentic.resources import default_fixture_dir

if TYPE_CHECKING:
    from agentic.catalog.table import Catalog
    from agentic.commands.argtypes import Subparsers
    from agentic.fixture.loader import Fixture
    from agentic.generation.runner import GenerationSettings
    from agentic.generation.schema import GenerationReport, Mode
    from agentic.ranking.goldens import GoldenSet

DEFAULT_GENERATION_TIMEOUT_MS = 120_000


def modes_list(value: str) -> tuple[Mode, ...]:
    from agentic.generation.runner import parse_modes

    try:
        return parse_modes(csv_list(value))
    except ContractError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def add_generation_options(parser: argparse.ArgumentParser) -> None:
    add_fixture_options(parser)
    parser.set_defaults(timeout_ms=DEFAULT_GENERATION_TIMEOUT_MS)
    parser.add_argument("--modes", type=modes_list, help="default: all three")
    parser.add_argument(
        "--repeats", type=positive_int, default=3, help="runs of each question (default 3)"
    )
    parser.add_argument("--adapter", default="lexical", help="retrieval adapter of e2e mode")
    parser.add_argument("--k", type=positive_int, default=5, help="chunks injected in e2e mode")
    parser.add_argument("--limit", type=positive_int, help="first N goldens by id")
    parser.add_argument("--out", type=Path, help="write the report(s) here")
    add_force_option(parser, other="another model (or kind)", where="--out")
    add_quiet_option(parser)


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("generation", help="score answers in oracle/e2e/noretrieval")
    parser.add_argument("--model", required=True, help="mock or local:<lock>")
    add_generation_options(parser)
    parser.add_argument("--verbose", action="store_true", help="show every failed answer")
    parser.set_defaults(func=handle)


def settings_from(args: argparse.Namespace) -> GenerationSettings:
    from agentic.generation.runner import MODES, GenerationSettings

    return GenerationSettings(
        modes=args.modes if args.modes is not None else MODES,
        repeats=args.repeats,
        adapter_id=args.adapter,
        k=args.k,
        tags=args.tag,
        limit=args.limit,
        timeout_s=args.timeout_ms / 1000,
        prepare_timeout_s=args.prepare_timeout_ms / 1000,
    )


def load_inputs(args: argparse.Namespace) -> tuple[Fixture, GoldenSet]:
    """The verified fixture and the selected goldens (``--tag``, ``--limit``)."""
    from agentic.fixture.loader import load_fixture
    from agentic.ranking.goldens import load_goldens

    fixture = load_fixture(args.fixture or default_fixture_dir())
    goldens = load_goldens(fixture, args.goldens).select(args.tag, args.limit)
    if not goldens.goldens:
        raise ContractError("golden_file_invalid", "no goldens selected")
    return fixture, goldens


def generation_report(
    fixture: Fixture,
    goldens: GoldenSet,
    spec: str,
    settings: GenerationSettings,
    progress: Callable[[str], None],
    *,
    catalog: Catalog,
) -> GenerationReport:
    """Open the model, run every mode, close the model, and build the report."""
    from agentic.generation import open_model
    from agentic.generation.report import build_report
    from agentic.generation.runner import run_generation

    model = open_model(spec)
    try:
        run = run_generation(fixture, goldens, model, settings, catalog=catalog, progress=progress)
    finally:
        model.close()
    return build_report(run)


def handle(args: argparse.Namespace) -> int:
    from agentic.catalog.load import load_catalog
    from agentic.generation.report import render_text, report_bytes
    from agentic.output.folder import check_output
    from agentic.output.staging import write_artifacts

    if args.out is not None:
        check_output(args.out)  # a link, a file or foreign content: refused before the run
    fixture, goldens = load_inputs(args)
    settings = settings_from(args)
    catalog = load_catalog(tuple(args.backend))
    note = progress_printer(args.quiet).note
    report = generation_report(fixture, goldens, args.model, settings, note, catalog=catalog)
    text = render_text(report, verbose=args.verbose)
    print_result(text, quiet=args.quiet)
    if args.out is not None:
        files = {"generation.json": report_bytes(report), "generation.txt": text.encode("utf-8")}
        write_artifacts(args.out, files, force=args.force)
        note(f"wrote {args.out}")
    return 0
