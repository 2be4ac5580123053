"""The fixture agent as the runner's ``fixture`` lane loads it: the cue file beside the fixture,
or the one ``--cues`` names, with its raw bytes bound into the model fingerprint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic.agents.cues import parse_cue_table
from agentic.agents.fixture_agent import FixtureAgent
from agentic.catalog.agent_openers import CUES_FILE
from agentic.catalog.entries import AgentContext, OpenedAgent
from agentic.catalog.load import builtin_catalog
from agentic.contract.canonical import sha256_hex
from agentic.contract.errors import ContractError


def agent_lane(kind: str, fixture_root: Path, cues_path: Path | None) -> OpenedAgent:
    """Open an agent the way ``agentic run`` does: through the catalog."""
    context = AgentContext(fixture_root, cues_path, fixture_root, {})
    return builtin_catalog().agent(kind).open(context)


CUES = {"schemaVersion": "1.0", "agentId": "fixture-agent-v1", "claims": {"a": {"cues": ["x"]}}}


def write_cues(path: Path, indent: int | None = None) -> bytes:
    data = json.dumps(CUES, indent=indent).encode("utf-8")
    path.write_bytes(data)
    return data


def test_the_lane_reads_the_cue_file_at_the_fixture_root(tmp_path: Path) -> None:
    data = write_cues(tmp_path / CUES_FILE)
    lane = agent_lane("fixture", tmp_path, None)
    expected = FixtureAgent(parse_cue_table(data), sha256_hex(data)).model_fingerprint()
    assert (lane.agent_id, lane.factory().model_fingerprint()) == ("fixture-agent-v1", expected)


def test_a_cues_option_overrides_the_fixture_cue_file(tmp_path: Path) -> None:
    write_cues(tmp_path / CUES_FILE)
    override = tmp_path / "other.json"
    data = write_cues(override, indent=2)
    lane = agent_lane("fixture", tmp_path, override)
    expected = FixtureAgent(parse_cue_table(data), sha256_hex(data)).model_fingerprint()
    assert lane.factory().model_fingerprint() == expected


def test_the_same_table_in_other_bytes_is_another_model(tmp_path: Path) -> None:
    compact, pretty = tmp_path / "compact.json", tmp_path / "pretty.json"
    write_cues(compact)
    write_cues(pretty, indent=2)
    first = agent_lane("fixture", tmp_path, compact).factory().model_fingerprint()
    second = agent_lane("fixture", tmp_path, pretty).factory().model_fingerprint()
    assert first != second


def test_a_missing_cue_file_is_an_invalid_cue_table(tmp_path: Path) -> None:
    with pytest.raises(ContractError) as caught:
        agent_lane("fixture", tmp_path, None)
    assert caught.value.code == "invalid_cue_table"
