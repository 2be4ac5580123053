"""A lane end to end: plan it, check where it writes, run its pairs, report it.
The pairs run on the requested executor, journaled and resumable, or as one shard. The CLI and
nox sessions call ``execute_lane``."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from agentic.adapters import sandbox
from agentic.catalog.table import Catalog
from agentic.contract.errors import ContractError
from agentic.contract.report import Environment, Isolation
from agentic.fixture.loader import Fixture
from agentic.lane.executors.local import run_adapters
from agentic.lane.journal import Journal, KeyRef, RunKey, journal_folder, with_resumed
from agentic.lane.plan import LanePlan, plan_lane
from agentic.lane.request import LaneOutcome, LaneRequest
from agentic.lane.results import report_lane
from agentic.lane.run_config import FORGET, Recorder
from agentic.lane.run_result import RunResult
from agentic.lane.shards import ShardRecord, shard_identity, write_shard
from agentic.output.folder import check_output, lane_identity
from agentic.report.environment import GitProbe, collect_environment
from agentic.resources import repo_root
from agentic.runner.pairs import PairKey, planned_keys, shard_keys
from agentic.runner.progress import QUIET, Progress


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


def _isolation(catalog: Catalog, adapter_ids: tuple[str, ...]) -> Isolation | None:
    """How this lane's backend children will be isolated (None: no adapter spawns one); a
    sandbox that is required but cannot run here is refused before any preparation."""
    spawning = [a for a in adapter_ids if catalog.adapter(a).spawns_processes]
    if not spawning:
        return None
    try:
        mode = sandbox.isolation()
    except sandbox.SandboxError as exc:
        raise ContractError("sandbox_unavailable", str(exc)) from None
    sandbox.warn_unsandboxed(spawning)
    return mode


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
        from agentic.lane.executors.ray_tasks import RayOptions, run_on_ray

        options = RayOptions(address=execution.ray_address, retries=execution.retries)
        return run_on_ray(plan, selected, recorder, options)
    if execution.executor == "processes" or (execution.jobs > 1 and not plan.concurrent_agent):
        from agentic.lane.executors.processes import run_in_processes

        return run_in_processes(
            plan, selected, recorder, jobs=execution.jobs, retries=execution.retries
        )
    config = replace(plan.config, selected=selected, recorder=recorder)
    return run_adapters(config)


def execute_lane(request: LaneRequest, *, progress: Progress = QUIET) -> LaneOutcome:
    if request.resume and request.out is None and not request.write:
        raise ContractError("invalid_cli_option", "--resume needs the run's --out or --write")
    with GitProbe() as git:  # git answers while the fixture loads
        plan = plan_lane(request, progress=progress)
        git_state = git.result()
    target = _checked_target(plan)
    environment = collect_environment(
        fixture_version=plan.fixture.fixture_version,
        agent_id=plan.lane.agent_id,
        trials=plan.lane.trials,
        isolation=_isolation(plan.catalog, plan.schedule.adapter_ids),
        agent_endpoint=plan.lane.endpoint,
        git=git_state,
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
        if resumed.cut_short:
            progress.note(f"{resumed.cut_short} journal entries cut short by a crash: run again")
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
