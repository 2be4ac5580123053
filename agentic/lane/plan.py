"""A lane checked and resolved before anything is prepared (``plan_lane`` -> ``LanePlan``).
The plan holds the verified fixture, the opened agent, the schedule, the gate and the run's
identity. Every worker of a distributed run rebuilds that identity and must find it identical."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agentic import __version__
from agentic.catalog.entries import AgentContext, AgentEntry, OpenedAgent
from agentic.catalog.table import Catalog
from agentic.contract.canonical import fingerprint, sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file
from agentic.fixture.loader import Fixture, load_fixture
from agentic.lane.request import LaneRequest
from agentic.lane.run_config import RunConfig, runtime_fingerprint
from agentic.resources import locks_dir
from agentic.runner.pairs import AdapterIdentity, AgentIdentity, RunIdentity
from agentic.runner.progress import QUIET, Progress
from agentic.runner.schedule import Schedule, build_schedule
from agentic.scoring.promotion import Gate


def _gate(catalog: Catalog, pair: tuple[str, str] | None) -> Gate | None:
    """The requested promotion gate, its adapters checked; None when none is requested."""
    if pair is None:
        return None
    for adapter_id in pair:
        catalog.adapter(adapter_id)
    if pair[0] == pair[1]:
        raise ContractError("invalid_cli_option", "--promote needs two different adapters")
    candidate, baseline_adapter = pair
    return Gate(candidate, baseline_adapter, catalog.adapter(candidate).replayable_bundle)


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
    catalog, _ = request.catalog_source.load()
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
        prepare_timeout_s=request.prepare_timeout_s,
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
