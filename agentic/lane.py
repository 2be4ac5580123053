"""A lane end to end: load and verify the fixture, validate the schedule, run, score, gate,
assemble the report, and stage its artifacts. The CLI and nox sessions call ``execute_lane``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentic.contract.errors import ContractError
from agentic.contract.report import BenchmarkReport, Promotion, ScoreRecord
from agentic.contract.schemas import parse_and_load
from agentic.fixture.loader import Fixture, load_fixture
from agentic.report.artifacts import render_artifacts, write_artifacts
from agentic.report.assemble import build_report
from agentic.report.environment import collect_environment
from agentic.report.markdown import render_beside
from agentic.resources import repo_root
from agentic.runner.agents import agent_lane
from agentic.runner.benchmark import RunConfig, RunResult, run_benchmark
from agentic.runner.lanes import AUTHORITATIVE_FOLDER, OPTIONAL_FOLDER, baseline_folder
from agentic.runner.registry import ADAPTER_IDS, DEFAULT_ADAPTERS, create_adapter
from agentic.runner.schedule import build_schedule
from agentic.scoring.promotion import ScoredPair, evaluate_promotion
from agentic.scoring.score import score_receipt

EXIT_OK, EXIT_GATE_FAILED, EXIT_ERROR = 0, 1, 2
ORACLE_ADAPTER = "oracle"


@dataclass(frozen=True)
class LaneRequest:
    fixture_dir: Path
    cues_path: Path | None = None
    adapters: tuple[str, ...] | None = None
    tasks: tuple[str, ...] | None = None
    lifecycles: tuple[str, ...] = ("cold", "warm")
    agent: str = "fixture"
    timeout_s: float = 30.0
    promote: tuple[str, str] | None = ("capsule", "mcp-reference")
    replay: bool = True
    index_cache: Path | None = None
    out: Path | None = None
    write: bool = False


@dataclass(frozen=True)
class LaneOutcome:
    report: BenchmarkReport
    markdown: str
    exit_code: int
    written_to: Path | None


def score_run(fixture: Fixture, run: RunResult) -> tuple[ScoreRecord, ...]:
    records = []
    for receipt in run.receipts:
        c = receipt.canonical
        score = score_receipt(c, fixture.task(c.taskId), fixture.oracle(c.taskId))
        records.append(
            ScoreRecord(
                taskId=c.taskId,
                adapterId=c.adapterId,
                trialId=c.trialId,
                seed=c.seed,
                lifecycle=c.lifecycle,
                agentId=c.agentId,
                score=score,
            )
        )
    return tuple(records)


def promote(
    run: RunResult, scores: tuple[ScoreRecord, ...], pair: tuple[str, str] | None
) -> Promotion | None:
    if pair is None:
        return None
    candidate, baseline = pair
    records = [
        ScoredPair(receipt=r.canonical, score=s) for r, s in zip(run.receipts, scores, strict=True)
    ]
    return evaluate_promotion(records, run.replays, baseline_id=baseline, candidate_id=candidate)


def exit_code_for(report: BenchmarkReport) -> int:
    if any(r.canonical.failure.class_ == "harness_error" for r in report.receipts):
        return EXIT_ERROR
    if report.promotion is not None and not report.promotion.passed:
        return EXIT_GATE_FAILED
    return EXIT_OK


def _target(
    request: LaneRequest,
    fixture: Fixture,
    schedule_tasks: tuple[str, ...],
    adapters: tuple[str, ...],
) -> Path | None:
    if request.write:
        folder = baseline_folder(
            agent=request.agent,
            adapters=adapters,
            task_ids=schedule_tasks,
            all_task_ids=tuple(t.taskId for t in fixture.tasks),
            lifecycles=request.lifecycles,
        )
        root = repo_root()
        if root is None:
            raise ContractError("unsafe_baseline_write", "--write needs a source checkout")
        return root / "baselines" / folder
    return request.out


def _refuse_mixed_ceiling(adapter_ids: tuple[str, ...]) -> None:
    # The ceiling reads hidden oracles; beside a product it would blur what the lane measures.
    if ORACLE_ADAPTER in adapter_ids and len(adapter_ids) > 1:
        raise ContractError(
            "invalid_adapter_schedule", "the oracle ceiling runs alone, never beside other adapters"
        )


def _beside_authoritative(report: BenchmarkReport, target: Path | None) -> str:
    """For a run written as an optional baseline: its cohorts beside the committed authoritative
    baseline of the same fixture, so a comparator lane reads next to lexical and capsule."""
    root = repo_root()
    if target is None or root is None:
        return ""
    baselines = root / "baselines"
    if not target.is_relative_to(baselines / OPTIONAL_FOLDER):
        return ""
    path = baselines / AUTHORITATIVE_FOLDER / "report.json"
    if not path.is_file():
        return ""
    reference = parse_and_load("benchmark-report", path.read_bytes(), source=str(path))
    if reference.fixtureFingerprint != report.fixtureFingerprint:
        return ""
    return render_beside(report, reference, f"baselines/{AUTHORITATIVE_FOLDER}")


def execute_lane(
    request: LaneRequest, *, progress: Callable[[str], None] = lambda message: None
) -> LaneOutcome:
    fixture = load_fixture(request.fixture_dir)
    lane = agent_lane(request.agent, fixture.root, request.cues_path)
    all_tasks = tuple(t.taskId for t in fixture.tasks)
    schedule = build_schedule(
        task_ids=request.tasks if request.tasks is not None else all_tasks,
        known_task_ids=all_tasks,
        adapter_ids=request.adapters if request.adapters is not None else DEFAULT_ADAPTERS,
        known_adapter_ids=ADAPTER_IDS,
        lifecycles=request.lifecycles,
        trials=lane.trials,
    )
    _refuse_mixed_ceiling(schedule.adapter_ids)
    # Refuse an unsafe write before any preparation, like every other schedule error.
    target = _target(request, fixture, schedule.task_ids, schedule.adapter_ids)
    config = RunConfig(
        fixture=fixture,
        schedule=schedule,
        adapter_factory=lambda adapter_id: create_adapter(adapter_id, fixture),
        agent_factory=lane.factory,
        agent_id=lane.agent_id,
        timeout_s=request.timeout_s,
        replay_capsule=request.replay,
        index_cache=request.index_cache,
        progress=progress,
    )
    run = run_benchmark(config)
    if len(run.receipts) != schedule.attempted_pairs:
        raise ContractError("unexpected_harness_error", "receipt matrix differs from the schedule")
    scores = score_run(fixture, run)
    report = build_report(
        fixture_fingerprint=fixture.snapshot.fingerprint,
        environment=collect_environment(
            fixture_version=fixture.fixture_version, agent_id=lane.agent_id, trials=lane.trials
        ),
        preparations=run.preparations,
        receipts=run.receipts,
        scores=scores,
        replays=run.replays,
        promotion=promote(run, scores, request.promote),
    )
    files = render_artifacts(report, extra_markdown=_beside_authoritative(report, target))
    if target is not None:
        write_artifacts(target, files)
        progress(f"wrote {target}")
    return LaneOutcome(
        report=report,
        markdown=files["report.md"].decode("utf-8"),
        exit_code=exit_code_for(report),
        written_to=target,
    )
