"""The local executor: a lane's pairs in this process. Each adapter is prepared once, its cohorts
run, and the capsule replayed from a fresh preparation; the result holds everything the report
needs. Scoring happens afterwards, on the receipts alone. Worker processes and Ray tasks run
their units of pairs through it too (``units.py``)."""

from __future__ import annotations

import shutil
import tempfile
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters.base import Adapter, PreparedIndex
from agentic.contract.receipt import Timing, TrajectoryReceipt
from agentic.contract.report import Preparation
from agentic.contract.task import AgentTask
from agentic.lane.harness_records import never_ran, preparation_record
from agentic.lane.run_config import RunConfig, runtime_fingerprint
from agentic.lane.run_result import RunResult, combine_parts
from agentic.lane.work_dir import new_work_dir, sweep_orphaned_runs
from agentic.runner.bounded import BoundedExecutor
from agentic.runner.index_cache import prepare_cached
from agentic.runner.lifecycles import CohortContext, cold_receipts, warm_receipts
from agentic.runner.pairs import PairKey, Pass, planned_keys
from agentic.runner.redaction import redact_secrets


@dataclass(frozen=True)
class _AdapterPass:
    """One pass of one adapter (scored, or its replay): its preparation and its receipts."""

    preparation: Preparation
    receipts: list[TrajectoryReceipt]


def _failed_preparation(
    config: RunConfig, adapter: Adapter, tasks: tuple[AgentTask, ...], message: str, pass_: Pass
) -> list[TrajectoryReceipt]:
    keys = (
        PairKey(pass_, adapter.adapter_id, lifecycle, trial.trialId, task.taskId)
        for lifecycle in config.schedule.lifecycles
        for trial in config.schedule.trials
        for task in tasks
    )
    return [
        never_ran(
            config,
            adapter,
            key,
            code="adapter_preparation_failed",
            message=message,
            preparation="preparation failed",
        )
        for key in keys
        if config.wants(key)
    ]


def _prepare(config: RunConfig, adapter: Adapter, root: Path, *, fresh: bool) -> PreparedIndex:
    snapshot = config.fixture.snapshot
    if config.index_cache is None or fresh:
        return adapter.prepare(snapshot, root, timeout_s=config.prepare_timeout_s)
    return prepare_cached(
        adapter, snapshot, root, config.index_cache, timeout_s=config.prepare_timeout_s
    ).prepared


def _runs_any(config: RunConfig, adapter_id: str, pass_: Pass) -> bool:
    """Whether the adapter's pass has a selected pair (an adapter with none is not prepared)."""
    if config.selected is None:
        return True
    return any(k.pass_ == pass_ and k.adapter_id == adapter_id for k in config.selected)


def _run_adapter(
    config: RunConfig,
    adapter_id: str,
    work: Path,
    executor: BoundedExecutor,
    *,
    pass_: Pass = "scored",
) -> _AdapterPass:
    fresh = pass_ == "replay"
    snapshot = config.fixture.snapshot
    tasks = tuple(config.fixture.task(t) for t in config.schedule.task_ids)
    adapter = config.adapter_factory(adapter_id)
    root = Path(tempfile.mkdtemp(prefix=f"{adapter_id}-", dir=work))
    config.progress.note(f"prepare {adapter_id}")
    started = time.perf_counter()
    try:
        prepared = _prepare(config, adapter, root, fresh=fresh)
        if prepared.corpus_fingerprint != snapshot.fingerprint:
            raise ValueError("corpus_fingerprint_mismatch: index bound to another corpus")
    except Exception as exc:
        # Often a product's stderr: no credentials or names in the report, but the paths stay
        # (this reason is also the lane's one line on stderr, for the person fixing the setup).
        message = redact_secrets(f"{type(exc).__name__}: {exc}")
        failed = _failed_preparation(config, adapter, tasks, message, pass_)
        config.progress.advance(len(failed))
        return _AdapterPass(
            preparation_record(adapter_id, snapshot.fingerprint, None, message), failed
        )
    elapsed = (time.perf_counter() - started) * 1000
    preparation = Timing.measured(prepared.preparation_ms or elapsed)
    ctx = CohortContext(
        adapter=adapter,
        prepared=prepared,
        agent_factory=config.agent_factory,
        agent_id=config.agent_id,
        tasks=tasks,
        trials=config.schedule.trials,
        corpus_fingerprint=snapshot.fingerprint,
        runtime_fingerprint=runtime_fingerprint(),
        timeout_s=config.timeout_s,
        preparation=preparation,
        executor=executor,
        jobs=config.jobs,
        keep=lambda pair: config.wants(PairKey.of(pass_, pair)),
        retries=config.retries,
    )
    record = preparation_record(adapter_id, snapshot.fingerprint, prepared, None)
    if pass_ == "scored":
        config.recorder.preparation(record)
    receipts: list[TrajectoryReceipt] = []
    for lifecycle in config.schedule.lifecycles:
        if not any(ctx.keep(pair) for pair, _ in ctx.pairs(lifecycle)):
            continue
        config.progress.cohort(f"{adapter_id} {lifecycle} cohort")
        cohort = cold_receipts(ctx) if lifecycle == "cold" else warm_receipts(ctx)
        with closing(cohort):
            for receipt in cohort:
                receipts.append(receipt)
                config.recorder.receipt(PairKey.of(pass_, receipt.canonical), receipt)
                config.progress.advance()
        config.progress.cohort_done()
    return _AdapterPass(record, receipts)


def _planned_pairs(config: RunConfig) -> int:
    """Every pair this run will attempt: the schedule's, plus each replayed adapter's again."""
    if config.selected is not None:
        return len(config.selected)
    return len(planned_keys(config.schedule, config.replay_adapters))


def run_adapters(config: RunConfig) -> RunResult:
    """The selected pairs of ``config``, adapter by adapter in this process, as one result."""
    preparations: list[Preparation] = []
    receipts: list[TrajectoryReceipt] = []
    replay_receipts: list[TrajectoryReceipt] = []
    executor = BoundedExecutor()
    temp_dir = Path(tempfile.gettempdir())
    sweep_orphaned_runs(temp_dir)
    work = new_work_dir(temp_dir)
    try:
        config.progress.begin(_planned_pairs(config))
        for adapter_id in config.schedule.adapter_ids:
            if _runs_any(config, adapter_id, "scored"):
                scored = _run_adapter(config, adapter_id, work, executor)
                preparations.append(scored.preparation)
                receipts.extend(scored.receipts)
            if adapter_id in config.replay_adapters and _runs_any(config, adapter_id, "replay"):
                config.progress.note(f"{adapter_id} replay from a fresh preparation")
                # The replay never reuses a cached index: it proves preparation is stable.
                again = _run_adapter(config, adapter_id, work, executor, pass_="replay")
                replay_receipts.extend(again.receipts)
    finally:
        config.progress.close()
        executor.close()
        shutil.rmtree(work, ignore_errors=True)
    return combine_parts(preparations, receipts, replay_receipts)
