"""The fixture agent end to end: the tiny fixture, a real adapter, the real trial loop and the
real scorer. The oracle ceiling must give success on every task (a failure there is a bug in the
agent, the cue file or the fixture); the lexical adapter must run the contract's trajectories."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentic.adapters.base import Adapter
from agentic.adapters.lexical import LexicalAdapter
from agentic.adapters.oracle import OracleAdapter
from agentic.agents.cues import parse_cue_table
from agentic.agents.fixture_agent import FixtureAgent
from agentic.contract.canonical import ZERO_HASH, canonical_text, sha256_hex
from agentic.contract.json_access import as_strs, str_at
from agentic.contract.receipt import Fingerprints, Timing
from agentic.contract.report import TaskScore
from agentic.fixture.loader import Fixture
from agentic.runner.bounded import BoundedExecutor
from agentic.runner.receipts import PairTimings, build_receipt
from agentic.runner.trial import TrialBounds, TrialOutcome, run_trial
from agentic.scoring.score import score_receipt
from agentic.tools import tool_definitions
from tests.support.receipts import identity
from tests.support.tiny_fixture import CUES, TASK_A, TASK_B, TASK_C, TASK_IDS

TIMEOUT_S = 30.0


@dataclass(frozen=True)
class World:
    fixture: Fixture
    agent: FixtureAgent
    executor: BoundedExecutor
    root: Path

    def oracle(self) -> Adapter:
        return OracleAdapter(self.fixture.snapshot, self.fixture.oracles)

    def lexical(self) -> Adapter:
        return LexicalAdapter(self.fixture.snapshot)

    def trial(self, adapter: Adapter, task_id: str) -> tuple[TrialOutcome, TaskScore]:
        """One cold pair driven by the real trial loop, then scored on its receipt."""
        task = self.fixture.task(task_id)
        root = Path(tempfile.mkdtemp(dir=self.root))  # each preparation owns a fresh root
        prepared = adapter.prepare(self.fixture.snapshot, root, timeout_s=TIMEOUT_S)
        session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
        try:
            session.reset(task, readiness_probe=False, timeout_s=TIMEOUT_S)
            listed = frozenset(str_at(t, "name") for t in tool_definitions())
            agent_session = self.agent.open(task, tool_definitions())
            bounds = TrialBounds(TIMEOUT_S, listed, self.executor)
            outcome = run_trial(agent_session, session, task, bounds)
        finally:
            session.close()
        pair = identity(task_id, adapter.adapter_id, "fixture-01", 0, self.agent.agent_id)
        timing = Timing.unavailable("not measured in this test")
        fingerprints = Fingerprints(
            corpus=self.fixture.corpus_fingerprint,
            prompt=self.agent.prompt_fingerprint(task),
            tools=ZERO_HASH,
            model=self.agent.model_fingerprint(),
            runtime=ZERO_HASH,
            config=ZERO_HASH,
            index=prepared.index_fingerprint,
        )
        receipt = build_receipt(
            pair,
            outcome,
            capabilities=adapter.capabilities,
            fingerprints=fingerprints,
            timings=PairTimings(timing, timing, timing, timing),
        )
        return outcome, score_receipt(receipt.canonical, task, self.fixture.oracle(task_id))


@pytest.fixture
def world(tiny_fixture: Fixture, tmp_path: Path) -> Iterator[World]:
    data = json.dumps(CUES).encode("utf-8")
    agent = FixtureAgent(parse_cue_table(data), sha256_hex(data))
    executor = BoundedExecutor()
    yield World(tiny_fixture, agent, executor, tmp_path)
    executor.close()


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_the_oracle_ceiling_gives_success_on_every_tiny_task(world: World, task_id: str) -> None:
    outcome, score = world.trial(world.oracle(), task_id)
    assert outcome.failure is None
    assert [call.toolName for call in outcome.calls] == ["search"]
    assert score.success == 1, score


def test_the_oracle_comparison_task_cites_the_two_line_owner_span(world: World) -> None:
    outcome, _ = world.trial(world.oracle(), TASK_B)
    assert outcome.envelope is not None
    owner = outcome.envelope.claims[1]
    assert owner.value.to_json() == {"type": "string", "value": "Priya Raman"}
    assert [(c.startLine, c.endLine) for c in owner.citations] == [(6, 7)]


def test_the_oracle_abstention_task_abstains_with_a_missing_evidence_gap(world: World) -> None:
    outcome, score = world.trial(world.oracle(), TASK_C)
    assert outcome.envelope is not None
    assert outcome.envelope.to_json()["gaps"] == [
        {"claimKey": "budgetCode", "reason": "missing_evidence"}
    ]
    assert score.correctAbstention


def test_lexical_searches_then_reads_one_line_for_a_single_document_task(world: World) -> None:
    outcome, _ = world.trial(world.lexical(), TASK_A)
    assert outcome.failure is None
    assert [call.toolName for call in outcome.calls] == ["search", "get"]
    assert outcome.calls[0].arguments == {"query": "incident", "collection": "c0a1"}
    assert outcome.calls[1].arguments["lineCount"] == 1


def test_lexical_reads_every_cued_document_of_a_comparison_task_with_multi_get(
    world: World,
) -> None:
    outcome, _ = world.trial(world.lexical(), TASK_B)
    assert outcome.failure is None
    assert [call.toolName for call in outcome.calls] == ["search", "multi_get"]
    assert sorted(as_strs(outcome.calls[1].arguments["uris"], "uris")) == [
        "gno://c0b2/d001.md",
        "gno://c0b2/notes/d002.md",
    ]


def test_lexical_finalizes_a_one_call_task_from_its_candidates(world: World) -> None:
    outcome, score = world.trial(world.lexical(), TASK_C)
    assert outcome.failure is None
    assert [call.toolName for call in outcome.calls] == ["search"]
    assert outcome.envelope is not None and outcome.envelope.abstained
    # The candidates carried lines the oracle does not name: an unnecessary read.
    assert (score.correctAbstention, score.unnecessaryRead) == (True, True)


def test_two_runs_of_a_pair_give_identical_canonical_receipts_calls_and_envelopes(
    world: World,
) -> None:
    first, _ = world.trial(world.lexical(), TASK_B)
    second, _ = world.trial(world.lexical(), TASK_B)
    assert first.envelope is not None and second.envelope is not None
    assert canonical_text(first.envelope.to_json()) == canonical_text(second.envelope.to_json())
    assert [canonical_text(c.to_json()) for c in first.calls] == [
        canonical_text(c.to_json()) for c in second.calls
    ]
