"""``agentic export REPORT --format jsonl|csv [--out FILE] [--fixture DIR]``: one row per pair,
for a notebook.

The report is read as ``agentic validate report`` reads it (strict JSON, schema, model, stored
fingerprints). Rows follow the contract's pair order (adapter, task, trial, lifecycle, seed,
agent) and hold the pair's identity, its outcome (success, failure class and code, the missed
terms of the success condition), the score's terms and claim lists, its cost and, where the
run measured them, its timings. The same report always exports to the same bytes.

With ``--fixture DIR`` (the fixture the report ran on; another fixture is refused with
``fixture_fingerprint_mismatch``), each row also has ``evidenceDelivered`` (true, false, or null
where the task has no evidence to deliver) and ``verdict`` (``success``, ``retrieval``,
``model`` or ``excluded``): docs/reports.md, "Attribution". Without it those columns are absent.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers
    from agentic.contract.receipt import TrajectoryReceipt
    from agentic.contract.report import BenchmarkReport, ScoreRecord
    from agentic.scoring.attribution import Attribution
    from agentic.scoring.task_facts import TaskFacts

FORMATS = ("jsonl", "csv")
SCORE_TERMS = (
    "completed",
    "unnecessaryRead",
    "collectionCorrect",
    "filtersCorrect",
    "correctAbstention",
    "prematureStop",
)
CLAIM_LISTS = (
    "supportedClaims",
    "unsupportedClaims",
    "missingRequiredClaims",
    "forbiddenEvidenceClaims",
    "invalidOutputs",
)
TIMINGS = ("startup", "modelLoad", "tool", "driver", "endToEnd")


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "export", help="export a report's pairs as JSON lines or CSV", description=__doc__
    )
    parser.add_argument("report", type=Path, metavar="REPORT", help="a benchmark report.json")
    parser.add_argument("--format", choices=FORMATS, default="jsonl", help="jsonl (default) or csv")
    parser.add_argument("--out", type=Path, metavar="FILE", help="write here (default: stdout)")
    parser.add_argument(
        "--fixture",
        type=Path,
        metavar="DIR",
        help="the fixture the report ran on: adds the columns evidenceDelivered and verdict "
        "(retrieval or model failed); without it they are absent",
    )
    parser.set_defaults(func=handle)


def read_report(path: Path) -> BenchmarkReport:
    """What ``agentic validate report`` accepts, or one ContractError line."""
    from agentic.contract.files import read_input_file
    from agentic.contract.schemas import parse_and_load
    from agentic.report.assemble import check_fingerprints

    source = str(path)
    report = parse_and_load("benchmark-report", read_input_file(path), source=source)
    check_fingerprints(report, source)
    return report


def pair_row(
    receipt: TrajectoryReceipt, record: ScoreRecord, attribution: Attribution | None = None
) -> JsonObject:
    from agentic.report.outcomes import missed_terms

    canon, score = receipt.canonical, record.score
    timings = receipt.observations.timings
    # Attribution's columns sit beside the outcome they explain, and only when asked for.
    attributed: JsonObject = {} if attribution is None else attribution_columns(attribution)
    return {
        "taskId": canon.taskId,
        "adapterId": canon.adapterId,
        "trialId": canon.trialId,
        "seed": canon.seed,
        "lifecycle": canon.lifecycle,
        "agentId": canon.agentId,
        "success": bool(score.success),
        "scored": score.scored,
        "failureClass": canon.failure.class_,
        "failureCode": canon.failure.code,
        "missedTerms": list(missed_terms(canon, score)),
        **attributed,
        **{term: getattr(score, term) for term in SCORE_TERMS},
        **{name: list(getattr(score, name)) for name in CLAIM_LISTS},
        "agentCalls": canon.agentCalls,
        "backendInvocations": canon.backendInvocations,
        "modelVisibleUtf8Bytes": canon.modelVisibleUtf8Bytes,
        **{f"{name}Ms": getattr(timings, name).valueMs for name in TIMINGS},
    }


def attribution_columns(attribution: Attribution) -> JsonObject:
    return {"evidenceDelivered": attribution.evidence_delivered, "verdict": attribution.verdict}


def facts_of(report: BenchmarkReport, fixture_dir: Path) -> Mapping[str, TaskFacts]:
    """The task facts of ``fixture_dir``, which must be the fixture the report ran on."""
    from agentic.commands.view import facts_for

    facts = facts_for(report, fixture_dir)
    if facts is None:
        raise ContractError(
            "fixture_fingerprint_mismatch",
            f"{fixture_dir} is not the fixture this report ran on "
            f"({report.fixtureFingerprint[:12]})",
        )
    unknown = sorted({r.canonical.taskId for r in report.receipts} - facts.keys())
    if unknown:
        raise ContractError("invalid_report", f"task {unknown[0]} is not in {fixture_dir}")
    return facts


def rows(report: BenchmarkReport, facts: Mapping[str, TaskFacts] | None = None) -> list[JsonObject]:
    from agentic.contract.report import pair_sort_key
    from agentic.scoring.attribution import attribute

    if len(report.receipts) != len(report.scores):
        raise ContractError("invalid_report", "scores and receipts differ in number")
    scores = {pair_sort_key(s): s for s in report.scores}
    ordered = sorted(report.receipts, key=lambda r: pair_sort_key(r.canonical))
    found = []
    for receipt in ordered:
        score = scores.get(pair_sort_key(receipt.canonical))
        if score is None:
            name = "/".join(pair_sort_key(receipt.canonical))
            raise ContractError("invalid_report", f"receipt {name} has no score")
        attribution = (
            None
            if facts is None
            else attribute(receipt.canonical, score.score, facts[receipt.canonical.taskId])
        )
        found.append(pair_row(receipt, score, attribution))
    return found


def as_jsonl(table: list[JsonObject]) -> str:
    return "".join(
        json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n" for row in table
    )


def _csv_value(value: object) -> str:
    """Empty for null; JSON's spelling for booleans; a list joined with ``;``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ";".join(str(item) for item in value)
    return str(value)


def as_csv(table: list[JsonObject]) -> str:
    if not table:
        return ""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(list(table[0]))
    writer.writerows([_csv_value(value) for value in row.values()] for row in table)
    return out.getvalue()


def write_out(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ContractError("export_write_failed", f"{path}: {exc.strerror or exc}") from None


def handle(args: argparse.Namespace) -> int:
    report = read_report(args.report)
    facts = None if args.fixture is None else facts_of(report, args.fixture)
    table = rows(report, facts)
    text = as_jsonl(table) if args.format == "jsonl" else as_csv(table)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_out(args.out, text)
    return 0
