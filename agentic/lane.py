"""A lane end to end: load and verify the fixture, validate the schedule, run, score, gate,
assemble the report, and stage its artifacts. The CLI and nox sessions call ``execute_lane``."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from agentic import __version__
from agentic.adapters import sandbox
from agentic.contract.canonical import fingerprint, sha256_hex
from agentic.contract.errors import EXIT_ERROR, EXIT_GATE_FAILED, EXIT_OK, ContractError
from agentic.contract.files import read_input_file
from agentic.contract.report import (
    BenchmarkReport,
    Environment,
    Isolation,
    Promotion,
    ScoreRecord,
    pair_identity,
)
from agentic.contract.schemas import parse_and_load
from agentic.contract.text import one_line
from agentic.fixture.loader import Fixture, load_fixture
from agentic.report.artifacts import render_artifacts, write_artifacts
from agentic.report.assemble import build_report
from agentic.report.environment import collect_environment
from agentic.report.markdown import render_beside
from agentic.report.output_dir import check_output, lane_identity
from agentic.resources import locks_dir, repo_root
from agentic.runner.catalog import (
    AUTHORITATIVE_LANE,
    OPTIONAL_FOLDER,
    AgentContext,
    AgentEntry,
    Catalog,
    OpenedAgent,
    load_catalog,
)
from agentic.runner.catalog_source import CatalogSource
from agentic.runner.journal import Journal, KeyRef, RunKey, journal_folder, with_resumed
from agentic.runner.plan import (
    AdapterIdentity,
    AgentIdentity,
    PairKey,
    RunIdentity,
    Shard,
    planned_keys,
    shard_keys,
)
from agentic.runner.progress import QUIET, Progress
from agentic.runner.run import (
    FORGET,
    Recorder,
    RunConfig,
    RunResult,
    run_adapters,
    runtime_fingerprint,
)
from agentic.runner.schedule import Schedule, build_schedule
from agentic.scoring.promotion import Gate, ScoredPair, evaluate_promotion
from agentic.scoring.score import score_receipt
from agentic.shards import ShardRecord, shard_identity, write_shard


@dataclass(frozen=True)
class Execution:
    """Where and how the pairs of a run execute; the report is the same bytes for every value.

    ``jobs``: cold pairs at once, in threads for an agent that allows it
    (``AgentEntry.concurrent``), else in worker processes (pool.py). ``executor``: this
    process, a local process pool, or Ray tasks (distributed.py) on the cluster at
    ``ray_address``. ``retries``: re-attempts of a pair after a harness failure (see
    ``RunConfig.retries``)."""

    jobs: int = 1
    executor: Literal["local", "processes", "ray"] = "local"
    ray_address: str | None = None
    retries: int = 0

    def __post_init__(self) -> None:
        # An address with another executor would be ignored: the user meant a cluster run.
        if self.ray_address is not None and self.executor != "ray":
            raise ContractError(
                "invalid_cli_option", "--ray-address needs --executor ray (the address is Ray's)"
            )


@dataclass(frozen=True)
class LaneRequest:
    """Everything ``agentic run`` was asked: what runs (fixture, agent, adapters, tasks,
    lifecycles, gate, replay), where its pairs execute, and where its report goes."""

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
    # Replace a previous report of another lane at the output (never other content).
    force: bool = False
    execution: Execution = Execution()
    catalog: Catalog | None = None  # None: the built-ins and installed plugins
    # Finish the interrupted run whose journal sits beside the output (runner/journal.py).
    resume: bool = False
    # Run only this slice of the pairs and write it as a shard (shards.py) for ``agentic merge``.
    shard: Shard | None = None
    # How ``catalog`` was built, for workers that rebuild it (None: built-ins and plugins).
    catalog_source: CatalogSource | None = None
    # The key that seals the journal and the shard (None: AGENTIC_KEY_FILE, else the state dir's
    # key of this run; runner/journal.KeyRef). Never part of the report.
    key_file: Path | None = None


@dataclass(frozen=True)
class LaneOutcome:
    report: BenchmarkReport
    markdown: str
    exit_code: int
    # The folder that holds this run's report: freshly staged, or (``reproduced``) the committed
    # baseline whose results this run reproduced, its artifacts kept byte for byte.
    written_to: Path | None
    failure: str | None = None  # why an adapter could not be prepared (then nothing is written)
    harness_error: str | None = None  # else: which adapter hit a harness error after preparing
    reproduced: bool = False  # --write found the committed baseline's resultsFingerprint


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


def promote(
    run: RunResult,
    scores: tuple[ScoreRecord, ...],
    gate: Gate | None,
) -> Promotion | None:
    if gate is None:
        return None
    records = [
        ScoredPair(receipt=r.canonical, score=s) for r, s in zip(run.receipts, scores, strict=True)
    ]
    return evaluate_promotion(
        records,
        run.replays,
        baseline_id=gate.baseline,
        candidate_id=gate.candidate,
        replay_required=gate.replay_required,
    )


def exit_code_for(report: BenchmarkReport) -> int:
    if any(r.canonical.failure.class_ == "harness_error" for r in report.receipts):
        return EXIT_ERROR
    if report.promotion is not None and not report.promotion.passed:
        return EXIT_GATE_FAILED
    return EXIT_OK


def _target(
    request: LaneRequest,
    catalog: Catalog,
    fixture: Fixture,
    schedule_tasks: tuple[str, ...],
    adapters: tuple[str, ...],
    *,
    agent_id: str,
) -> Path | None:
    target: Path | None = request.out
    if request.write:
        lane = catalog.baseline_lane(
            agent=request.agent,
            adapters=adapters,
            task_ids=schedule_tasks,
            all_task_ids=tuple(t.taskId for t in fixture.tasks),
            lifecycles=request.lifecycles,
        )
        root = repo_root()
        if root is None:
            raise ContractError("unsafe_baseline_write", "--write needs a source checkout")
        target = root / "baselines" / lane.folder
    if target is not None:
        # A link, a file, foreign content or another lane's report: refused before the run.
        check_output(target, lane_identity(agent_id, adapters), force=request.force)
    return target


def _gate(catalog: Catalog, pair: tuple[str, str] | None) -> Gate | None:
    """The requested promotion gate, its adapters checked; None when none is requested."""
    if pair is None:
        return None
    for adapter_id in pair:
        catalog.adapter(adapter_id)
    if pair[0] == pair[1]:
        raise ContractError("invalid_cli_option", "--promote needs two different adapters")
    candidate, baseline = pair
    return Gate(candidate, baseline, catalog.adapter(candidate).replayable_bundle)


NO_GATE_HEADING = "Promotion: not requested"


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


def _isolation(catalog: Catalog, adapter_ids: tuple[str, ...]) -> Isolation | None:
    """How this lane's backend children will be isolated (None: no adapter spawns one); a
    sandbox that is required but cannot run here is refused before any preparation."""
    if not any(catalog.adapter(a).spawns_processes for a in adapter_ids):
        return None
    try:
        return sandbox.isolation()
    except sandbox.SandboxError as exc:
        raise ContractError("sandbox_unavailable", str(exc)) from None


def _page(report: BenchmarkReport, fixture: Fixture) -> bytes:
    """report.html, written beside the artifacts. Imported here, not at the top: matplotlib is
    loaded only by a run that writes its report."""
    from agentic.report.html import render_html
    from agentic.scoring.task_facts import task_facts

    return render_html(report, task_facts(fixture))


def _agent_identity(request: LaneRequest, entry: AgentEntry, lane: OpenedAgent) -> AgentIdentity:
    cues = request.cues_path
    return AgentIdentity(
        id=lane.agent_id,
        kind=entry.kind,
        endpoint=lane.endpoint.to_json() if lane.endpoint is not None else None,
        cues=None if cues is None else _file_sha(cues),
        source=_file_sha(Path(entry.source)) if entry.origin == "config" else entry.source,
    )


def _file_sha(path: Path) -> str:
    return sha256_hex(read_input_file(path))


def run_identity(
    request: LaneRequest, fixture: Fixture, agent: AgentIdentity, config: RunConfig
) -> RunIdentity:
    schedule = config.schedule
    return RunIdentity(
        kit=__version__,
        runtime=runtime_fingerprint(),
        fixture=fixture.snapshot.fingerprint,
        agent=agent,
        adapters=tuple(
            AdapterIdentity(id=a, config=fingerprint(config.adapter_factory(a).config))
            for a in schedule.adapter_ids
        ),
        tasks=schedule.task_ids,
        lifecycles=schedule.lifecycles,
        trials=schedule.trials,
        replay=tuple(sorted(config.replay_adapters)),
        timeoutMs=round(request.timeout_s * 1000),
    )


@dataclass(frozen=True)
class LanePlan:
    """A lane checked and resolved, before anything is prepared: what the driver runs and what
    every worker of a distributed run rebuilds (and must find identical: ``identity``)."""

    request: LaneRequest
    catalog: Catalog
    fixture: Fixture
    lane: OpenedAgent
    config: RunConfig
    gate: Gate | None
    identity: RunIdentity
    # Whether one agent instance may serve pairs at once (threads); else --jobs means processes.
    concurrent_agent: bool = False

    @property
    def schedule(self) -> Schedule:
        return self.config.schedule


def plan_lane(request: LaneRequest, *, progress: Progress = QUIET) -> LanePlan:
    """Load and verify the fixture, open the agent, validate the schedule and the gate."""
    catalog = request.catalog or load_catalog()
    agent_entry = catalog.agent(request.agent)
    gate = _gate(catalog, request.promote)
    fixture = load_fixture(request.fixture_dir)
    all_tasks = tuple(t.taskId for t in fixture.tasks)
    adapter_ids = request.adapters if request.adapters is not None else catalog.default_adapters
    catalog.check_schedule(adapter_ids)
    lane = agent_entry.open(
        AgentContext(
            fixture_root=fixture.root,
            cues_path=request.cues_path,
            locks_dir=locks_dir(),
            environ=os.environ,
        )
    )
    schedule = build_schedule(
        task_ids=request.tasks if request.tasks is not None else all_tasks,
        known_task_ids=all_tasks,
        adapter_ids=adapter_ids,
        known_adapter_ids=catalog.adapter_ids,
        lifecycles=request.lifecycles,
        trials=lane.trials,
    )
    if lane.check_task is not None:
        for task_id in schedule.task_ids:
            lane.check_task(fixture.task(task_id))
    config = RunConfig(
        fixture=fixture,
        schedule=schedule,
        adapter_factory=lambda adapter_id: catalog.build_adapter(
            adapter_id, fixture.snapshot, fixture.oracles
        ),
        agent_factory=lane.factory,
        agent_id=lane.agent_id,
        timeout_s=request.timeout_s,
        replay_adapters=frozenset(
            a
            for a in schedule.adapter_ids
            if request.replay and catalog.adapter(a).replayable_bundle
        ),
        index_cache=request.index_cache,
        progress=progress,
        jobs=request.execution.jobs,
        retries=request.execution.retries,
    )
    identity = run_identity(request, fixture, _agent_identity(request, agent_entry, lane), config)
    return LanePlan(request, catalog, fixture, lane, config, gate, identity, agent_entry.concurrent)


def _checked_target(plan: LanePlan) -> Path | None:
    """Where the run writes, refused now if unsafe (before any preparation)."""
    request, schedule = plan.request, plan.schedule
    if request.shard is None:
        return _target(
            request,
            plan.catalog,
            plan.fixture,
            schedule.task_ids,
            schedule.adapter_ids,
            agent_id=plan.lane.agent_id,
        )
    if request.out is None:
        raise ContractError("invalid_cli_option", "--shard writes its part with --out DIR")
    identity = shard_identity(request.shard, plan.lane.agent_id, schedule.adapter_ids)
    check_output(request.out, identity, force=request.force)
    return request.out


def _run_pairs(plan: LanePlan, selected: frozenset[PairKey], recorder: Recorder) -> RunResult:
    """The selected pairs, on the requested executor: Ray tasks; worker processes (asked for,
    or --jobs for an agent that runs one pair at a time); or this process, --jobs cold pairs
    at once in threads."""
    execution = plan.request.execution
    if execution.executor == "ray":
        from agentic.distributed import RayOptions, run_on_ray

        options = RayOptions(address=execution.ray_address, retries=execution.retries)
        return run_on_ray(plan, selected, recorder, options)
    if execution.executor == "processes" or (execution.jobs > 1 and not plan.concurrent_agent):
        from agentic.pool import run_in_processes

        return run_in_processes(
            plan, selected, recorder, jobs=execution.jobs, retries=execution.retries
        )
    config = replace(plan.config, selected=selected, recorder=recorder)
    return run_adapters(config)


def execute_lane(request: LaneRequest, *, progress: Progress = QUIET) -> LaneOutcome:
    if request.resume and request.out is None and not request.write:
        raise ContractError("invalid_cli_option", "--resume needs the run's --out or --write")
    plan = plan_lane(request, progress=progress)
    target = _checked_target(plan)
    environment = collect_environment(
        fixture_version=plan.fixture.fixture_version,
        agent_id=plan.lane.agent_id,
        trials=plan.lane.trials,
        isolation=_isolation(plan.catalog, plan.schedule.adapter_ids),
        agent_endpoint=plan.lane.endpoint,
    )
    keys = planned_keys(plan.schedule, plan.config.replay_adapters)
    wanted = frozenset(keys if request.shard is None else shard_keys(keys, request.shard))
    if target is None:
        run = _run_pairs(plan, wanted, FORGET)
        _check_matrix(run, wanted)
        return _outcome(plan, run, environment, None, progress)
    shard = None if request.shard is None else str(request.shard)
    key = KeyRef.of(plan.identity.to_json(), request.key_file, os.environ)
    # A shard is worthless unless sealed: its key is settled before anything runs.
    shard_key = None if request.shard is None else key.load_or_create()
    journal_key = key if request.shard is not None else key.for_journal(journal_folder(target))
    identity = {**plan.identity.to_json(), "shard": shard}
    journal, resumed = Journal.open(
        target, identity, wanted, resume=request.resume, key=journal_key
    )
    try:
        if journal.unresumable is not None:
            progress.note(journal.unresumable)
        if resumed.receipts:
            progress.note(f"resuming: {len(resumed.receipts)} of {len(wanted)} pairs journaled")
        fresh = _run_pairs(plan, wanted - resumed.receipts.keys(), journal)
        run = with_resumed(fresh, resumed)
        _check_matrix(run, wanted)
        outcome = _outcome(plan, run, environment, target, progress, shard_key=shard_key)
        # The journal goes with a written report; one that holds nothing goes too.
        if outcome.written_to is not None or (not resumed.receipts and not journal.recorded):
            journal.finish()
        return outcome
    finally:
        journal.close()


def _outcome(
    plan: LanePlan,
    run: RunResult,
    environment: Environment,
    target: Path | None,
    progress: Progress,
    *,
    shard_key: RunKey | None = None,
) -> LaneOutcome:
    """The lane's report (written when there is a target), or a shard's part of it."""
    request = plan.request
    if request.shard is None or target is None:
        return report_lane(
            run,
            plan.fixture,
            environment=environment,
            gate=plan.gate,
            target=target,
            write=request.write,
            force=request.force,
            progress=progress,
        )
    record = ShardRecord(
        shard=request.shard,
        run=plan.identity,
        fixture_name=plan.fixture.root.name,
        environment=environment,
        gate=plan.gate,
        result=run,
    )
    assert shard_key is not None  # execute_lane settles a shard's key before it runs
    return _shard_outcome(record, plan.fixture, target, request.force, progress, key=shard_key)


def _check_matrix(run: RunResult, wanted: frozenset[PairKey]) -> None:
    scored = sum(1 for key in wanted if key.pass_ == "scored")
    if len(run.receipts) != scored:
        raise ContractError("unexpected_harness_error", "receipt matrix differs from the schedule")


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
        promotion=promote(run, scores, gate),
    )
    files = render_artifacts(
        report,
        promotion_heading=gate.heading if gate is not None else NO_GATE_HEADING,
        extra_markdown=_beside_authoritative(report, target),
    )
    failed = preparation_failure(report)
    reproduced = False
    if target is not None and failed is None:
        files["report.html"] = _page(report, fixture)  # rendered only when it will be written
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


def _shard_outcome(
    record: ShardRecord,
    fixture: Fixture,
    target: Path,
    force: bool,
    progress: Progress,
    *,
    key: RunKey,
) -> LaneOutcome:
    """A shard's own scores (never gated: the merge gates the whole lane), and its files."""
    scored = report_lane(
        record.result,
        fixture,
        environment=record.environment,
        gate=None,
        target=None,
        write=False,
        force=False,
    )
    if scored.failure is not None:
        return scored
    write_shard(record, target, scored.markdown, key=key, force=force, progress=progress)
    return replace(scored, written_to=target)
