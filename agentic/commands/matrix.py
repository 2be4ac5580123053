"""``agentic matrix [--models mock,local:<lock>,...]``: the capability table across models.

One generation run per model (same goldens, modes, repeats and retrieval), then one row per
model: pass rate per mode, and refusal correctness, leakage and groundedness in e2e mode. When a
user reports a bad answer, look up their model: scoring at its row means the model is at its
ceiling; well below it means their configuration or our code.

Default rows: ``mock`` (the extractive ceiling) and every ``locks/agent-model*.lock.json``.
``--out DIR`` writes ``generation.<model>.json`` per model and ``matrix.txt``.
"""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING

from agentic.commands.argtypes import print_result, progress_printer
from agentic.commands.argtypes import unique_csv_items as csv_list
from agentic.commands.generation import (
    add_generation_options,
    generation_report,
    load_inputs,
    settings_from,
)

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers
    from agentic.generation.schema import GenerationReport, Mode


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("matrix", help="capability table across locked local models")
    parser.add_argument("--models", type=csv_list, help="default: mock + locks")
    add_generation_options(parser)
    parser.set_defaults(func=handle)


def default_models() -> tuple[str, ...]:
    from agentic.generation.local import LOCAL_PREFIX, default_lock_names

    return ("mock", *(f"{LOCAL_PREFIX}{name}" for name in default_lock_names()))


def file_slug(model_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", model_id)


def _mode_rate(report: GenerationReport, mode: Mode, name: str) -> float | None:
    found = report.modes.get(mode)
    return None if found is None else getattr(found.overall, name)


def matrix_text(reports: list[GenerationReport]) -> str:
    from agentic.generation.report import table

    def number(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    header = [
        "model",
        "oracle",
        "e2e",
        "noretrieval",
        "e2e refusal",
        "e2e leak",
        "e2e grounded",
        "unstable",
    ]
    rows = []
    for report in reports:
        unstable = sum(len(mode.unstable) for mode in report.modes.values())
        rows.append(
            [
                report.model.id,
                number(_mode_rate(report, "oracle", "passRate")),
                number(_mode_rate(report, "e2e", "passRate")),
                number(_mode_rate(report, "noretrieval", "passRate")),
                number(_mode_rate(report, "e2e", "refusalCorrectness")),
                number(_mode_rate(report, "e2e", "leakageRate")),
                number(_mode_rate(report, "e2e", "groundedness")),
                str(unstable),
            ]
        )
    first = reports[0] if reports else None
    title = "Capability table (pass rate over stable questions)"
    if first is not None:
        settings = first.settings
        title += (
            f": fixture {first.fixtureFingerprint[:12]}, {first.goldenCount} goldens, "
            f"repeats={settings.repeats}, e2e adapter={settings.adapter} k={settings.k}"
        )
    return "\n".join([title, "", *table(header, rows)]) + "\n"


def handle(args: argparse.Namespace) -> int:
    from agentic.catalog.load import load_catalog
    from agentic.generation.report import report_bytes
    from agentic.output.folder import check_output
    from agentic.output.staging import write_artifacts

    if args.out is not None:
        check_output(args.out)  # a link, a file or foreign content: refused before the run
    models = args.models if args.models is not None else default_models()
    progress = progress_printer(args.quiet).note
    fixture, goldens = load_inputs(args)
    settings = settings_from(args)
    catalog = load_catalog(tuple(args.backend))
    reports = [
        generation_report(fixture, goldens, spec, settings, progress, catalog=catalog)
        for spec in models
    ]
    text = matrix_text(reports)
    print_result(text, quiet=args.quiet)
    if args.out is not None:
        files = {"matrix.txt": text.encode("utf-8")}
        for report in reports:
            files[f"generation.{file_slug(report.model.id)}.json"] = report_bytes(report)
        write_artifacts(args.out, files, force=args.force)
        progress(f"wrote {args.out}")
    return 0
