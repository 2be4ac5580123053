"""Agent lanes: which agent runs, with which trials."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentic.agents.base import Agent
from agentic.contract.canonical import sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.report import Trial

CUES_FILE = "fixture-agent.cues.json"
FIXTURE_TRIALS: tuple[Trial, ...] = (Trial(trialId="fixture-01", seed=0),)


@dataclass(frozen=True)
class AgentLane:
    kind: str
    agent_id: str
    factory: Callable[[], Agent]
    trials: tuple[Trial, ...]


def fixture_lane(fixture_root: Path, cues_path: Path | None) -> AgentLane:
    from agentic.agents.cues import parse_cue_table
    from agentic.agents.fixture_agent import FixtureAgent

    path = cues_path or fixture_root / CUES_FILE
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ContractError("invalid_cue_table", f"cannot read {path}: {exc.strerror}") from None
    table = parse_cue_table(data)
    digest = sha256_hex(data)
    agent = FixtureAgent(table, digest)
    # The fixture agent is stateless between sessions, so one instance serves every pair.
    return AgentLane("fixture", agent.agent_id, lambda: agent, FIXTURE_TRIALS)


def agent_lane(kind: str, fixture_root: Path, cues_path: Path | None) -> AgentLane:
    if kind == "fixture":
        return fixture_lane(fixture_root, cues_path)
    if kind == "local-model":
        raise ContractError(
            "agent_unavailable", "the local-model agent lane is not available in this build"
        )
    raise ContractError("invalid_cli_option", f"unknown agent {kind!r}")
