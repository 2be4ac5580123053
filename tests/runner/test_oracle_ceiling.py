"""Every task of the bundled fixture is solvable: under the oracle ceiling the fixture agent
succeeds on all of them. A failure here is a fixture bug, not a retrieval result."""

from __future__ import annotations

from agentic.lane import LaneRequest, execute_lane
from agentic.resources import default_fixture_dir


def test_the_fixture_agent_solves_every_bundled_task_under_the_oracle_ceiling() -> None:
    outcome = execute_lane(
        LaneRequest(fixture_dir=default_fixture_dir(), adapters=("oracle",), promote=None)
    )
    failed = sorted({s.taskId for s in outcome.report.scores if s.score.success != 1})
    assert failed == []
    assert outcome.exit_code == 0
