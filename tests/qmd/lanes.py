"""Running one qmd lane through the real runner (schedule, cohorts, receipts) without the CLI."""

from __future__ import annotations

from collections.abc import Callable

from agentic.adapters.base import Adapter
from agentic.contract.receipt import TrajectoryReceipt
from agentic.fixture.loader import Fixture
from agentic.runner.agents import open_fixture_agent
from agentic.runner.run import RunConfig, run_adapters
from agentic.runner.schedule import build_schedule

TIMEOUT_S = 30.0


def run_lane(
    fixture: Fixture, adapter_id: str, factory: Callable[[], Adapter]
) -> tuple[TrajectoryReceipt, ...]:
    """Every task of ``fixture``, cold and warm, with the fixture agent."""
    lane = open_fixture_agent(fixture.root, None)
    task_ids = tuple(task.taskId for task in fixture.tasks)
    schedule = build_schedule(
        task_ids=task_ids,
        known_task_ids=task_ids,
        adapter_ids=(adapter_id,),
        known_adapter_ids=(adapter_id,),
        lifecycles=("cold", "warm"),
        trials=lane.trials,
    )
    config = RunConfig(
        fixture=fixture,
        schedule=schedule,
        adapter_factory=lambda _: factory(),
        agent_factory=lane.factory,
        agent_id=lane.agent_id,
        timeout_s=TIMEOUT_S,
    )
    return run_adapters(config).receipts
