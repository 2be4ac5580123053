"""Cold and warm use of MCP adapters: a fresh process per cold attach, one process and exactly
one discarded readiness probe for a warm cohort, and nothing left running afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from agentic.adapters.base import PreparedIndex
from agentic.adapters.errors import AdapterError
from agentic.adapters.mcp.adapter import McpAdapter, McpSession
from agentic.contract.receipt import Timing, TrajectoryReceipt
from agentic.contract.report import Trial
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from agentic.runner.bounded import BoundedExecutor
from agentic.runner.lifecycles import CohortContext, run_cold, run_warm
from tests.support.fakes import RecordingAdapter, SearchThenAbstain
from tests.support.mcp import TASK_B, TIMEOUT_S, canned_responses, fake_profile
from tests.support.processes import group_gone

pytestmark = pytest.mark.real_process


def _attach(adapter: McpAdapter, prepared: PreparedIndex) -> McpSession:
    return adapter.attach(prepared, timeout_s=TIMEOUT_S)


def test_each_attach_runs_its_own_process(
    reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> None:
    first = _attach(reference_adapter, reference_prepared)
    second = _attach(reference_adapter, reference_prepared)
    try:
        assert first.pid is not None and second.pid is not None
        assert first.pid != second.pid
    finally:
        first.close()
        second.close()
    assert group_gone(first.pid) and group_gone(second.pid)


def test_a_closing_session_keeps_the_runs_folder_a_starting_one_needs(
    reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> None:
    # With --jobs, one cold pair closes while the next starts; removing the emptied runs folder
    # on close made the starting pair's mkdtemp fail with FileNotFoundError.
    runs = reference_prepared.root / "runs"
    _attach(reference_adapter, reference_prepared).close()
    assert runs.is_dir() and not any(runs.iterdir())
    _attach(reference_adapter, reference_prepared).close()


def test_one_session_serves_successive_tasks_from_one_process(
    tiny_fixture: Fixture, reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> None:
    session = _attach(reference_adapter, reference_prepared)
    try:
        pid = session.pid
        collections = []
        for task_id, query in (("t0000a01", "gateway"), ("t0000b02", "launch")):
            session.reset(tiny_fixture.task(task_id), readiness_probe=False, timeout_s=TIMEOUT_S)
            outcome = session.call("search", {"query": query}, timeout_s=TIMEOUT_S)
            collections.append({e.uri.split("/")[2] for e in outcome.result.evidence})
            assert session.pid == pid
    finally:
        session.close()
    assert collections == [{"c0a1"}, {"c0b2"}]
    assert pid is not None and group_gone(pid)


def test_only_the_first_reset_reports_the_process_startup(
    tiny_fixture: Fixture, reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> None:
    session = _attach(reference_adapter, reference_prepared)
    try:
        first = session.reset(tiny_fixture.task(TASK_B), readiness_probe=False, timeout_s=TIMEOUT_S)
        second = session.reset(
            tiny_fixture.task(TASK_B), readiness_probe=False, timeout_s=TIMEOUT_S
        )
    finally:
        session.close()
    assert first.startup_ms is not None and first.startup_ms > 0
    assert second.startup_ms is None


@pytest.fixture
def logged_session(
    tiny_fixture: Fixture, tmp_path: Path, unsandboxed: None
) -> Iterator[tuple[McpSession, Path]]:
    """A session on the fake server that logs every product tool call it receives (to a file
    outside its run root, so without the sandbox)."""
    log = tmp_path / "calls.log"
    profile = fake_profile(
        tmp_path / "fake", "ok", responses=canned_responses(), extra=("--log", str(log))
    )
    adapter = McpAdapter(profile, tiny_fixture.snapshot)
    prepared = adapter.prepare(tiny_fixture.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)
    session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    yield session, log
    session.close()
    assert session.pid is not None and group_gone(session.pid)


def _logged_calls(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").split() if log.exists() else []


def test_readiness_probe_is_exactly_one_product_call(
    tiny_fixture: Fixture, logged_session: tuple[McpSession, Path]
) -> None:
    session, log = logged_session
    session.reset(tiny_fixture.task(TASK_B), readiness_probe=True, timeout_s=TIMEOUT_S)
    assert _logged_calls(log) == ["kb_search"]


def test_reset_without_probe_sends_nothing_to_the_product(
    tiny_fixture: Fixture, logged_session: tuple[McpSession, Path]
) -> None:
    session, log = logged_session
    session.reset(tiny_fixture.task(TASK_B), readiness_probe=False, timeout_s=TIMEOUT_S)
    assert _logged_calls(log) == []


def _cohort(
    tiny_fixture: Fixture,
    adapter: RecordingAdapter,
    prepared: PreparedIndex,
    agent: SearchThenAbstain,
) -> CohortContext:
    return CohortContext(
        adapter=adapter,
        prepared=prepared,
        agent_factory=lambda: agent,
        agent_id=agent.agent_id,
        tasks=tiny_fixture.tasks,
        trials=(Trial(trialId="t-01", seed=0),),
        corpus_fingerprint=tiny_fixture.snapshot.fingerprint,
        runtime_fingerprint="1" * 64,
        timeout_s=TIMEOUT_S,
        preparation=Timing.measured(prepared.preparation_ms),
        executor=BoundedExecutor(),
    )


def _all_clean(receipts: list[TrajectoryReceipt]) -> bool:
    return all(
        r.canonical.failure.class_ == "none" and r.canonical.agentCalls == 1 for r in receipts
    )


def test_cold_cohort_runs_every_pair_in_a_fresh_process(
    tiny_fixture: Fixture, reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> None:
    adapter = RecordingAdapter(reference_adapter)
    receipts = run_cold(_cohort(tiny_fixture, adapter, reference_prepared, SearchThenAbstain()))
    pids = [session.pid for session in adapter.sessions]
    assert _all_clean(receipts)
    assert len(pids) == len(tiny_fixture.tasks) == len(set(pids))
    assert all(pid is not None and group_gone(pid) for pid in pids)


def test_warm_cohort_runs_every_pair_in_one_process(
    tiny_fixture: Fixture, reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> None:
    adapter = RecordingAdapter(reference_adapter)
    receipts = run_warm(_cohort(tiny_fixture, adapter, reference_prepared, SearchThenAbstain()))
    assert _all_clean(receipts) and len(receipts) == len(tiny_fixture.tasks)
    assert len(adapter.sessions) == 1
    pid = adapter.sessions[0].pid
    assert pid is not None and group_gone(pid)


class FlakyAttach(RecordingAdapter):
    """Its first ``failures`` attaches fail as a product start would; then it delegates."""

    def __init__(self, inner: McpAdapter, failures: int) -> None:
        super().__init__(inner)
        self.failures = failures
        self.attempts = 0

    def attach(self, prepared: PreparedIndex, *, timeout_s: float) -> McpSession:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise AdapterError("adapter_attach_failed", "harness_error", "did not start")
        return super().attach(prepared, timeout_s=timeout_s)


def _canonical(receipts: list[TrajectoryReceipt]) -> list[JsonObject]:
    return [r.canonical.to_json() for r in receipts]


@pytest.mark.slow
def test_a_cold_pair_whose_setup_failed_is_retried_and_the_retry_recorded(
    tiny_fixture: Fixture, reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> None:
    clean = run_cold(_cohort(tiny_fixture, RecordingAdapter(reference_adapter),
                             reference_prepared, SearchThenAbstain()))  # fmt: skip
    flaky = FlakyAttach(reference_adapter, failures=1)
    ctx = replace(_cohort(tiny_fixture, flaky, reference_prepared, SearchThenAbstain()), retries=1)
    receipts = run_cold(ctx)
    assert _canonical(receipts) == _canonical(clean)
    assert flaky.attempts == len(tiny_fixture.tasks) + 1
    (note, *_) = receipts[0].observations.diagnostics
    assert note.startswith("retry 1 of the pair after a harness failure: cold_trial_setup_failed")
    assert not any(d.startswith("retry") for r in receipts[1:] for d in r.observations.diagnostics)


def test_without_retries_a_failed_setup_is_the_pairs_receipt(
    tiny_fixture: Fixture, reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> None:
    flaky = FlakyAttach(reference_adapter, failures=1)
    receipts = run_cold(_cohort(tiny_fixture, flaky, reference_prepared, SearchThenAbstain()))
    assert receipts[0].canonical.failure.code == "cold_trial_setup_failed"
    assert _all_clean(receipts[1:]) and flaky.attempts == len(tiny_fixture.tasks)


def test_retries_stop_after_k_attempts(
    tiny_fixture: Fixture, reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> None:
    flaky = FlakyAttach(reference_adapter, failures=3)
    ctx = replace(_cohort(tiny_fixture, flaky, reference_prepared, SearchThenAbstain()), retries=2)
    first = run_cold(ctx)[0]
    assert first.canonical.failure.code == "cold_trial_setup_failed"
    notes = [d for d in first.observations.diagnostics if d.startswith("retry")]
    assert [n.split(":")[0] for n in notes] == [
        "retry 1 of the pair after a harness failure",
        "retry 2 of the pair after a harness failure",
    ]


def test_a_warm_cohort_whose_setup_failed_is_retried_and_every_receipt_records_it(
    tiny_fixture: Fixture, reference_adapter: McpAdapter, reference_prepared: PreparedIndex
) -> None:
    flaky = FlakyAttach(reference_adapter, failures=1)
    ctx = replace(_cohort(tiny_fixture, flaky, reference_prepared, SearchThenAbstain()), retries=1)
    receipts = run_warm(ctx)
    assert _all_clean(receipts) and flaky.attempts == 2
    assert all(
        r.observations.diagnostics[0].startswith(
            "retry 1 of the pair after a harness failure: warm_cohort_setup_failed"
        )
        for r in receipts
    )
