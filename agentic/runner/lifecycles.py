"""Cold and warm cohorts of one prepared adapter.

Cold: every pair attaches a fresh adapter session (a fresh process for MCP adapters) and a fresh
agent; startup is measured from attach through reset. Warm: one session and one agent serve the
whole cohort after exactly one discarded readiness probe; a failure that leaves the shared state
unknown excludes every remaining pair explicitly.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from functools import partial

from agentic.adapters.base import Adapter, AdapterSession, PreparedIndex, ResetInfo
from agentic.adapters.errors import AdapterError
from agentic.agents.base import Agent, AgentSession
from agentic.contract.canonical import ZERO_HASH, fingerprint
from agentic.contract.receipt import (
    Fingerprints,
    Lifecycle,
    PairIdentity,
    Timing,
    TrajectoryReceipt,
)
from agentic.contract.report import Trial
from agentic.contract.task import AgentTask
from agentic.runner.bounded import BoundedExecutor, DaemonPool
from agentic.runner.receipts import (
    PairTimings,
    build_receipt,
    harness_failure_receipt,
    with_retries,
)
from agentic.runner.trial import TrialBounds, TrialOutcome, run_trial
from agentic.tools import TOOL_NAMES, tool_definitions, tools_fingerprint

# Harness failures a retry may cure: the pair (or the warm cohort) never ran. A failure after
# the agent started, whatever its class, is the pair's result and is never retried.
RETRIED_SETUP = "cold_trial_setup_failed"
WARM_STATE_REASON = "completed before scored warm cohort"
NO_MODEL_REASON = "one or more model-load components unavailable"
LISTED_TOOLS = frozenset(TOOL_NAMES)


@dataclass(frozen=True)
class CohortContext:
    adapter: Adapter
    prepared: PreparedIndex
    agent_factory: Callable[[], Agent]
    agent_id: str
    tasks: tuple[AgentTask, ...]
    trials: tuple[Trial, ...]
    corpus_fingerprint: str
    runtime_fingerprint: str
    timeout_s: float
    preparation: Timing
    executor: BoundedExecutor
    # Cold pairs run at once (each on its own attach, agent session and step worker); the warm
    # cohort shares one session, so its pairs always run one after another.
    jobs: int = 1
    # The frozen contract's fingerprint, hashed once per cohort rather than once per receipt.
    tools_fingerprint: str = field(default_factory=tools_fingerprint)
    # Which of the cohort's pairs run (a shard's or a resumed run's); the others are skipped.
    # A warm cohort still probes with the schedule's first task, so a subset shares the probe
    # of the whole cohort.
    keep: Callable[[PairIdentity], bool] = field(default=lambda pair: True)
    retries: int = 0  # re-attempts of a pair (or a warm cohort) whose setup failed

    def pairs(self, lifecycle: Lifecycle) -> Iterator[tuple[PairIdentity, AgentTask]]:
        """Every pair of the cohort in schedule order, kept or not."""
        for trial in self.trials:
            for task in self.tasks:
                pair = PairIdentity(
                    taskId=task.taskId,
                    adapterId=self.adapter.adapter_id,
                    trialId=trial.trialId,
                    seed=trial.seed,
                    lifecycle=lifecycle,
                    agentId=self.agent_id,
                )
                yield pair, task

    def trial_bounds(self) -> TrialBounds:
        """The timeout, on this context's step worker, and the contract's tools."""
        return TrialBounds(self.timeout_s, LISTED_TOOLS, self.executor)

    def fingerprints(self, agent: Agent | None, task: AgentTask) -> Fingerprints:
        return Fingerprints(
            corpus=self.corpus_fingerprint,
            prompt=agent.prompt_fingerprint(task) if agent else ZERO_HASH,
            tools=self.tools_fingerprint,
            model=agent.model_fingerprint() if agent else ZERO_HASH,
            runtime=self.runtime_fingerprint,
            config=self.prepared.config_fingerprint,
            index=self.prepared.index_fingerprint,
        )

    def trial_receipt(
        self,
        pair: PairIdentity,
        task: AgentTask,
        agent: Agent,
        outcome: TrialOutcome,
        clock: tuple[Timing, Timing, float],
    ) -> TrajectoryReceipt:
        """The receipt of a trial that ran; ``clock`` is its startup and model-load timings and
        the ``perf_counter`` instant its end-to-end time runs from."""
        startup, model_load, started = clock
        timings = PairTimings(
            preparation=self.preparation,
            startup=startup,
            model_load=model_load,
            end_to_end=Timing.measured((time.perf_counter() - started) * 1000),
        )
        return build_receipt(
            pair,
            outcome,
            capabilities=self.adapter.capabilities,
            fingerprints=self.fingerprints(agent, task),
            timings=timings,
            temp_paths=(str(self.prepared.root),),
        )

    def harness_receipt(
        self, pair: PairIdentity, task: AgentTask, code: str, message: str
    ) -> TrajectoryReceipt:
        return harness_failure_receipt(
            pair,
            code=code,
            message=message,
            capabilities=self.adapter.capabilities,
            fingerprints=self.fingerprints(None, task),
            preparation=self.preparation,
        )


def _attach(ctx: CohortContext) -> AdapterSession:
    """Attach and re-verify the prepared identity and the frozen tool list."""
    if fingerprint(ctx.adapter.config) != ctx.prepared.config_fingerprint:
        raise AdapterError("adapter_identity_mismatch", "harness_error", "config changed")
    session = ctx.adapter.attach(ctx.prepared, timeout_s=ctx.timeout_s)
    try:
        if session.list_tools() != tool_definitions():
            raise AdapterError("tool_schema_mismatch", "harness_error", "tools differ")
    except BaseException:
        session.close()
        raise
    return session


def _model_load(ctx: CohortContext, reset: ResetInfo, agent: AgentSession) -> Timing:
    agent_ms = agent.model_load_ms()
    adapter_ms = reset.model_load_ms
    if agent_ms is None or (ctx.adapter.capabilities.modelLoadTiming and adapter_ms is None):
        return Timing.unavailable(NO_MODEL_REASON)
    return Timing.measured(agent_ms + (adapter_ms or 0.0))


def cold_receipts(ctx: CohortContext) -> Generator[TrajectoryReceipt, None, None]:
    """The cold cohort's receipts in schedule order, each as soon as it and those before it
    have finished. With ``jobs`` > 1, up to that many pairs run at once."""
    pairs = [(pair, task) for pair, task in ctx.pairs("cold") if ctx.keep(pair)]
    if ctx.jobs == 1:
        for pair, task in pairs:
            yield _retried_cold_pair(ctx, pair, task)
        return
    # Threads start with the pool, not with the work: no more of them than pairs to run.
    pool = DaemonPool(min(ctx.jobs, len(pairs)), "agentic-pair")
    running = [pool.submit(partial(_own_worker_pair, ctx, pair, task)) for pair, task in pairs]
    try:
        for future in running:
            yield future.result()
    finally:
        for future in running:
            future.cancel()
        pool.shutdown()


def _own_worker_pair(ctx: CohortContext, pair: PairIdentity, task: AgentTask) -> TrajectoryReceipt:
    """A cold pair with its own step worker: a timed-out step abandons only this pair's."""
    executor = BoundedExecutor()
    try:
        return _retried_cold_pair(replace(ctx, executor=executor), pair, task)
    finally:
        executor.close()


def _retried_cold_pair(
    ctx: CohortContext, pair: PairIdentity, task: AgentTask
) -> TrajectoryReceipt:
    failures: list[str] = []
    while True:
        receipt = _cold_pair(ctx, pair, task)
        if receipt.canonical.failure.code != RETRIED_SETUP or len(failures) == ctx.retries:
            return with_retries(receipt, failures)
        failures.append(f"{RETRIED_SETUP}: {_first_diagnostic(receipt)}")


def _first_diagnostic(receipt: TrajectoryReceipt) -> str:
    return next(iter(receipt.observations.diagnostics), "no diagnostic")


def run_cold(ctx: CohortContext) -> list[TrajectoryReceipt]:
    return list(cold_receipts(ctx))


def _cold_pair(ctx: CohortContext, pair: PairIdentity, task: AgentTask) -> TrajectoryReceipt:
    started = time.perf_counter()
    session: AdapterSession | None = None
    agent_session: AgentSession | None = None
    try:
        try:
            session = _attach(ctx)
            reset = session.reset(task, readiness_probe=False, timeout_s=ctx.timeout_s)
            startup_ms = (time.perf_counter() - started) * 1000
            agent = ctx.agent_factory()
            agent_session = agent.open(task, tool_definitions(), seed=pair.seed)
        except Exception as exc:
            return ctx.harness_receipt(pair, task, "cold_trial_setup_failed", repr(exc))
        outcome = run_trial(agent_session, session, task, ctx.trial_bounds())
        model_load = _model_load(ctx, reset, agent_session)
        startup = Timing.measured(startup_ms)
        return ctx.trial_receipt(pair, task, agent, outcome, (startup, model_load, started))
    finally:
        if agent_session is not None:
            agent_session.close()
        if session is not None:
            session.close()


def warm_receipts(ctx: CohortContext) -> Generator[TrajectoryReceipt, None, None]:
    """The warm cohort's receipts, each as soon as its pair has finished (or been excluded)."""
    pairs = [(pair, task) for pair, task in ctx.pairs("warm") if ctx.keep(pair)]
    failures: list[str] = []
    while True:
        try:
            session, agent = _open_warm(ctx)
            break
        except Exception as exc:
            if len(failures) == ctx.retries:
                yield from [
                    with_retries(
                        ctx.harness_receipt(p, t, "warm_cohort_setup_failed", repr(exc)), failures
                    )
                    for p, t in pairs
                ]
                return
            failures.append(f"warm_cohort_setup_failed: {exc!r}")
    try:
        corrupted: str | None = None
        warm_state = Timing.unavailable(WARM_STATE_REASON)
        for pair, task in pairs:
            if corrupted is not None:
                yield ctx.harness_receipt(pair, task, "warm_cohort_corrupted", f"after {corrupted}")
                continue
            try:
                session.reset(task, readiness_probe=False, timeout_s=ctx.timeout_s)
            except Exception as exc:
                corrupted = "reset_failed"
                yield ctx.harness_receipt(pair, task, "warm_cohort_corrupted", repr(exc))
                continue
            started = time.perf_counter()
            try:
                agent_session = agent.open(task, tool_definitions(), seed=pair.seed)
            except Exception as exc:
                yield ctx.harness_receipt(pair, task, "warm_trial_setup_failed", repr(exc))
                continue
            try:
                outcome = run_trial(agent_session, session, task, ctx.trial_bounds())
            finally:
                agent_session.close()
            receipt = ctx.trial_receipt(
                pair, task, agent, outcome, (warm_state, warm_state, started)
            )
            if outcome.corrupts_cohort and outcome.failure is not None:
                corrupted = outcome.failure.code
            yield with_retries(receipt, failures)
    finally:
        session.close()


def _open_warm(ctx: CohortContext) -> tuple[AdapterSession, Agent]:
    """The cohort's one session after its one discarded readiness probe, and its agent."""
    session = _attach(ctx)
    try:
        session.reset(ctx.tasks[0], readiness_probe=True, timeout_s=ctx.timeout_s)
        return session, ctx.agent_factory()
    except BaseException:
        session.close()
        raise


def run_warm(ctx: CohortContext) -> list[TrajectoryReceipt]:
    return list(warm_receipts(ctx))
