"""A lane's run turned into its result (``report_lane``): scores, gate, report and exit code.
It also writes the one line that says why a lane measured nothing."""

from __future__ import annotations

from pathlib import Path

from agentic.catalog.builtins import AUTHORITATIVE_LANE, OPTIONAL_FOLDER
from agentic.contract.errors import EXIT_ERROR, EXIT_GATE_FAILED, EXIT_OK
from agentic.contract.report import (
    BenchmarkReport,
    Environment,
    Promotion,
    ScoreRecord,
    pair_identity,
)
from agentic.contract.schemas import parse_and_load
from agentic.contract.text import one_line
from agentic.fixture.loader import Fixture
from agentic.lane.request import LaneOutcome
from agentic.lane.run_result import RunResult
from agentic.output.staging import write_artifacts
from agentic.report.artifacts import render_artifacts
from agentic.report.assemble import build_report
from agentic.report.markdown import NO_GATE_HEADING, render_beside
from agentic.resources import repo_root
from agentic.runner.progress import QUIET, Progress
from agentic.scoring.promotion import Gate, ScoredPair, evaluate_promotion
from agentic.scoring.score import score_receipt
from agentic.scoring.task_facts import TaskFacts, task_facts


def preparation_failure(report: BenchmarkReport) -> str | None:
    """The first adapter that could not be prepared, with its reason. Such a lane measured
    nothing of that adapter: its harness-error matrix is printed, never staged over a report."""
    for preparation in report.preparations:
        reason = preparation.observations.preparationUnavailableReason
        if reason is not None:
            one_line = " ".join(reason.split())
            return f"adapter_preparation_failed: {preparation.adapterId}: {one_line}"
    return None


MAX_DIAGNOSTIC_CHARS = 200


def harness_failure(report: BenchmarkReport) -> str | None:
    """One line naming the first adapter with a harness_error receipt and why: its code, how
    many of the adapter's pairs failed so, and the first pair's (redacted) diagnostic. The exit
    code is 2 either way; without this line the reason sat only inside report.json."""
    failing = [r for r in report.receipts if r.canonical.failure.class_ == "harness_error"]
    if not failing:
        return None
    first = failing[0].canonical
    adapter = first.adapterId
    count = sum(1 for r in failing if r.canonical.adapterId == adapter)
    total = sum(1 for r in report.receipts if r.canonical.adapterId == adapter)
    others = sorted({r.canonical.adapterId for r in failing} - {adapter})
    diagnostic = one_line(
        next(iter(failing[0].observations.diagnostics), "no diagnostic"), MAX_DIAGNOSTIC_CHARS
    )
    also = f"; also {', '.join(others)}" if others else ""
    return (
        f"{first.failure.code or 'harness_error'}: {adapter}: {count} of {total} pairs hit a "
        f"harness error{also}; first {first.taskId}/{first.trialId}/{first.lifecycle}: "
        f"{diagnostic}"
    )


def score_run(fixture: Fixture, run: RunResult) -> tuple[ScoreRecord, ...]:
    records = []
    for receipt in run.receipts:
        c = receipt.canonical
        score = score_receipt(c, fixture.task(c.taskId), fixture.oracle(c.taskId))
        records.append(ScoreRecord(**pair_identity(c), score=score))
    return tuple(records)


def gate_verdict(
    run: RunResult,
    scores: tuple[ScoreRecord, ...],
    gate: Gate | None,
) -> Promotion | None:
    """The promotion gate's verdict over the run's scored pairs; None when no gate was asked."""
    if gate is None:
        return None
    records = [
        ScoredPair(receipt=r.canonical, score=s) for r, s in zip(run.receipts, scores, strict=True)
    ]
    return evaluate_promotion(
        records,
        run.replays,
        baseline_adapter=gate.baseline_adapter,
        candidate_adapter=gate.candidate_adapter,
        replay_required=gate.replay_required,
    )


def exit_code_for(report: BenchmarkReport) -> int:
    if any(r.canonical.failure.class_ == "harness_error" for r in report.receipts):
        return EXIT_ERROR
    if report.promotion is not None and not report.promotion.passed:
        return EXIT_GATE_FAILED
    return EXIT_OK


def _beside_authoritative(report: BenchmarkReport, target: Path | None) -> str:
    """For a run written as an optional baseline: its cohorts beside the committed authoritative
    baseline of the same fixture, so a comparator lane reads next to lexical and capsule."""
    root = repo_root()
    if target is None or root is None:
        return ""
    baselines = root / "baselines"
    if not target.is_relative_to(baselines / OPTIONAL_FOLDER):
        return ""
    path = baselines / AUTHORITATIVE_LANE / "report.json"
    if not path.is_file():
        return ""
    reference = parse_and_load("benchmark-report", path.read_bytes(), source=str(path))
    if reference.fixtureFingerprint != report.fixtureFingerprint:
        return ""
    return render_beside(report, reference, f"baselines/{AUTHORITATIVE_LANE}")


def _page(report: BenchmarkReport, facts: dict[str, TaskFacts]) -> bytes:
    """report.html, written beside the artifacts. Imported here, not at the top: the page's
    writer is loaded only by a run that writes its report."""
    from agentic.report.html import render_html

    return render_html(report, facts)


def report_lane(
    run: RunResult,
    fixture: Fixture,
    *,
    environment: Environment,
    gate: Gate | None,
    target: Path | None,
    write: bool,
    force: bool,
    progress: Progress = QUIET,
) -> LaneOutcome:
    """Score a whole lane's run, gate it, assemble its report and (with a target) stage it."""
    scores = score_run(fixture, run)
    report = build_report(
        fixture_fingerprint=fixture.snapshot.fingerprint,
        environment=environment,
        preparations=run.preparations,
        receipts=run.receipts,
        scores=scores,
        replays=run.replays,
        promotion=gate_verdict(run, scores, gate),
    )
    # The fixture's facts, for attribution in report.md, observations.json and the page.
    facts = task_facts(fixture)
    files = render_artifacts(
        report,
        promotion_heading=gate.heading if gate is not None else NO_GATE_HEADING,
        extra_markdown=_beside_authoritative(report, target),
        facts=facts,
    )
    failed = preparation_failure(report)
    reproduced = False
    if target is not None and failed is None:
        files["report.html"] = _page(report, facts)  # rendered only when it will be written
        # A baseline whose results reproduce the committed ones keeps those files untouched.
        written = write_artifacts(
            target,
            files,
            force=force,
            keep_reproduced=report.resultsFingerprint if write else None,
        )
        reproduced = written == "reproduced"
        progress.note(
            f"reproduced {report.resultsFingerprint}" if reproduced else f"wrote {target}"
        )
    return LaneOutcome(
        report=report,
        markdown=files["report.md"].decode("utf-8"),
        exit_code=exit_code_for(report),
        written_to=target if failed is None else None,
        failure=failed,
        harness_error=None if failed is not None else harness_failure(report),
        reproduced=reproduced,
    )
