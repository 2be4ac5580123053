"""The local-model lane with the real pinned GGUF and real llama.cpp, on the tiny fixture.

Skipped only when llama_cpp cannot be imported. Everything else (a missing model package, a
corrupted file, a lock that does not match) fails loudly, like the lane itself does."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp", reason="the local-model extra is not installed")

from agentic.adapters.base import Adapter, PreparedIndex
from agentic.adapters.lexical import LexicalAdapter
from agentic.agents.local_model import LocalModelAgent
from agentic.catalog.agent_openers import open_local_model_agent
from agentic.catalog.entries import OpenedAgent
from agentic.contract.canonical import ZERO_HASH, canonical_text
from agentic.contract.errors import ContractError
from agentic.contract.receipt import Fingerprints, Timing, TrajectoryReceipt
from agentic.contract.report import Trial
from agentic.contract.schemas import schema_errors
from agentic.fixture.loader import Fixture, load_fixture
from agentic.locks import (
    AGENT_MODEL_LOCK,
    MODEL_PATH_ENV,
    THREADS_ENV,
    load_agent_model_lock,
    resolve_model_path,
)
from agentic.resources import locks_dir
from agentic.runner.bounded import BoundedExecutor
from agentic.runner.receipts import PairTimings, build_receipt
from agentic.runner.trial import TrialBounds, run_trial
from agentic.tools import tool_definitions, tools_fingerprint
from tests.support.receipts import identity
from tests.support.tiny_fixture import TASK_IDS, write_tiny_fixture

pytestmark = pytest.mark.local_model

TIMEOUT_S = 120.0
LOCK_PATH = locks_dir() / AGENT_MODEL_LOCK
LISTED = frozenset(str(tool["name"]) for tool in tool_definitions())


@dataclass(frozen=True)
class World:
    fixture: Fixture
    lane: OpenedAgent
    adapter: Adapter
    prepared: PreparedIndex
    executor: BoundedExecutor

    def agent(self) -> LocalModelAgent:
        agent = self.lane.factory()
        assert isinstance(agent, LocalModelAgent)
        return agent

    def pair(self, agent: LocalModelAgent, task_id: str, trial: Trial) -> TrajectoryReceipt:
        """One pair through the real trial loop, recorded as the runner records it."""
        task = self.fixture.task(task_id)
        session = self.adapter.attach(self.prepared, timeout_s=TIMEOUT_S)
        try:
            session.reset(task, readiness_probe=False, timeout_s=TIMEOUT_S)
            agent_session = agent.open(task, tool_definitions(), seed=trial.seed)
            bounds = TrialBounds(TIMEOUT_S, LISTED, self.executor)
            outcome = run_trial(agent_session, session, task, bounds)
            load = agent_session.model_load_ms()
        finally:
            session.close()
        pair = identity(task_id, "lexical", trial.trialId, trial.seed, agent.agent_id)
        unmeasured = Timing.unavailable("not measured in this test")
        fingerprints = Fingerprints(
            corpus=self.fixture.corpus_fingerprint,
            prompt=agent.prompt_fingerprint(task),
            tools=tools_fingerprint(),
            model=agent.model_fingerprint(),
            runtime=ZERO_HASH,
            config=self.prepared.config_fingerprint,
            index=self.prepared.index_fingerprint,
        )
        model_load = Timing.unavailable("no load") if load is None else Timing.measured(load)
        return build_receipt(
            pair,
            outcome,
            capabilities=self.adapter.capabilities,
            fingerprints=fingerprints,
            timings=PairTimings(unmeasured, unmeasured, model_load, unmeasured),
        )


def build_world(tmp_path_factory: pytest.TempPathFactory, environ: dict[str, str]) -> World:
    fixture = load_fixture(write_tiny_fixture(tmp_path_factory.mktemp("tiny")))
    lane = open_local_model_agent(LOCK_PATH, environ)
    adapter = LexicalAdapter(fixture.snapshot)
    prepared = adapter.prepare(fixture.snapshot, tmp_path_factory.mktemp("index"), timeout_s=60)
    return World(fixture, lane, adapter, prepared, BoundedExecutor())


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    built = build_world(tmp_path_factory, dict(os.environ))
    yield built
    built.executor.close()


@dataclass(frozen=True)
class Runs:
    fresh: list[TrajectoryReceipt]  # a newly loaded model per pair, as in a cold cohort
    shared: list[TrajectoryReceipt]  # one model for every pair, as in a warm cohort


@pytest.fixture(scope="module")
def runs(world: World) -> Runs:
    trial = world.lane.trials[0]
    fresh = [world.pair(world.agent(), task_id, trial) for task_id in TASK_IDS]
    shared_agent = world.agent()
    shared = [world.pair(shared_agent, task_id, trial) for task_id in TASK_IDS]
    return Runs(fresh, shared)


def canonical(receipts: list[TrajectoryReceipt]) -> list[str]:
    return [canonical_text(r.canonical.to_json()) for r in receipts]


# --- preflight --------------------------------------------------------------------------------


def test_lane_pins_the_locks_agent_and_three_trials(world: World) -> None:
    lock = load_agent_model_lock(LOCK_PATH)
    assert world.lane.agent_id == lock.agentId
    assert world.lane.trials == tuple(Trial(trialId=t.trialId, seed=t.seed) for t in lock.trials)


def test_corrupted_copy_named_by_the_variable_fails_before_loading(tmp_path: Path) -> None:
    lock = load_agent_model_lock(LOCK_PATH)
    original = resolve_model_path(lock.model, dict(os.environ))
    copy = tmp_path / lock.model.fileName
    shutil.copyfile(original, copy)
    with copy.open("r+b") as handle:
        handle.seek(lock.model.sizeBytes // 2)
        byte = handle.read(1)
        handle.seek(lock.model.sizeBytes // 2)
        handle.write(bytes([byte[0] ^ 0x01]))
    with pytest.raises(ContractError) as caught:
        open_local_model_agent(LOCK_PATH, {MODEL_PATH_ENV: str(copy)})
    assert caught.value.code == "model_sha256_mismatch"


# --- sessions ---------------------------------------------------------------------------------


def test_a_session_needs_the_trial_seed(world: World) -> None:
    with pytest.raises(ContractError) as caught:
        world.agent().open(world.fixture.tasks[0], tool_definitions())
    assert caught.value.code == "trial_seed_required"


def test_model_load_is_reported_by_the_first_session_after_a_load_only(world: World) -> None:
    agent = world.agent()
    task = world.fixture.tasks[0]
    first = agent.open(task, tool_definitions(), seed=1)
    second = agent.open(task, tool_definitions(), seed=1)
    assert first.model_load_ms() is not None
    assert second.model_load_ms() is None


def test_tokens_are_counted_with_the_models_own_tokenizer(world: World) -> None:
    session = world.agent().open(world.fixture.tasks[0], tool_definitions(), seed=1)
    counted = session.count_tokens(
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
    )
    assert counted.tokens == 61  # SmolLM2's BPE splits hex into short pieces


# --- trials -----------------------------------------------------------------------------------


def test_every_pair_yields_a_schema_valid_receipt_without_harness_errors(runs: Runs) -> None:
    for receipt in [*runs.fresh, *runs.shared]:
        assert schema_errors("trajectory-receipt", receipt.to_json()) == []
        assert receipt.canonical.failure.class_ in ("none", "agent_error")


def test_every_delivered_result_is_counted_with_the_tokenizer_fingerprint(runs: Runs) -> None:
    delivered = [c for r in runs.fresh for c in r.canonical.calls if c.deliveredToAgent]
    assert delivered, "the model made no call on any task"
    assert all(c.measuredTokens is not None for c in delivered)
    assert len({c.tokenizerFingerprint for c in delivered}) == 1


def test_fresh_and_reused_models_write_identical_canonical_receipts(runs: Runs) -> None:
    assert canonical(runs.fresh) == canonical(runs.shared)


def test_a_restored_preamble_writes_the_same_receipt_as_an_evaluated_one(
    world: World, runs: Runs, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # runs.fresh[1] restored the preamble its lane saved on the first load; a new lane has
    # nothing saved, so its first agent evaluates the preamble itself.
    other = build_world(tmp_path_factory, dict(os.environ))
    try:
        receipt = other.pair(other.agent(), TASK_IDS[1], world.lane.trials[0])
    finally:
        other.executor.close()
    assert canonical([receipt]) == canonical(runs.fresh[1:2])


def test_thread_count_does_not_change_the_receipt(
    world: World, runs: Runs, tmp_path_factory: pytest.TempPathFactory
) -> None:
    threads = runs_threads(world)
    other = build_world(tmp_path_factory, {**os.environ, THREADS_ENV: "2" if threads == 1 else "1"})
    try:
        agent = other.agent()
        receipt = other.pair(agent, TASK_IDS[0], world.lane.trials[0])
    finally:
        other.executor.close()
    assert agent.settings.threads != threads
    assert canonical([receipt]) == canonical(runs.fresh[:1])


def runs_threads(world: World) -> int:
    return world.agent().settings.threads
