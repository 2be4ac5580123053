"""The openai-chat agent against a real endpoint: llama-cpp-python's OpenAI-compatible server
over the pinned SmolLM2. One task is recorded over HTTP into an LLM cache (module fixture), then
replayed with the server stopped."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentic.cli import main
from tests.support.openai_server import requires_openai_server, start_pinned_server
from tests.support.openai_smoke import agent_config, lane_argv

pytestmark = [requires_openai_server, pytest.mark.real_process, pytest.mark.local_model,
              pytest.mark.slow]  # fmt: skip
TASKS = ("t0e10001",)


@dataclass(frozen=True)
class Recorded:
    config: Path
    cache: Path
    out: Path
    code: int


def run_cli(argv: list[str]) -> int:
    return main(argv[3:])  # lane_argv starts with python -m agentic


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    work = tmp_path_factory.mktemp("openai-lane")
    server = start_pinned_server(log_path=work / "server.log")
    try:
        config = work / "agent.toml"
        config.write_text(agent_config(server), encoding="utf-8")
        out, cache = work / "recorded", work / "cache"
        code = run_cli(lane_argv(config, cache, "record", out, TASKS))
    finally:
        server.stop()
    return Recorded(config, cache, out, code)


def test_the_recorded_lane_completes(recorded: Recorded) -> None:
    assert recorded.code == 0


def test_the_recorded_lane_has_schema_valid_receipts(recorded: Recorded) -> None:
    assert main(["validate", "report", str(recorded.out / "report.json")]) == 0


def test_the_report_names_the_endpoint_and_the_model_it_reported(recorded: Recorded) -> None:
    report = json.loads((recorded.out / "report.json").read_text(encoding="utf-8"))
    endpoint = report["environment"]["agentEndpoint"]
    assert endpoint["endpointModels"] == [endpoint["model"]]
    assert endpoint["answers"] == "content-addressed cache"
    assert [r["canonical"]["agentId"] for r in report["receipts"]] == ["smollm2-endpoint"]


def test_every_answer_was_recorded_with_its_hash(recorded: Recorded) -> None:
    entries = [json.loads(p.read_text(encoding="utf-8")) for p in recorded.cache.glob("*.json")]
    report = json.loads((recorded.out / "report.json").read_text(encoding="utf-8"))
    steps = report["receipts"][0]["canonical"]["agentCalls"] + 1  # tool calls, then the final
    assert len(entries) >= 2  # /models and at least one completion
    assert len(entries) <= steps + 1
    assert {e["format"] for e in entries} == {"agentic-llm-cache-entry/1"}


def test_the_replay_with_the_server_stopped_is_byte_identical(
    recorded: Recorded, tmp_path: Path
) -> None:
    out = tmp_path / "replayed"
    assert run_cli(lane_argv(recorded.config, recorded.cache, "reuse", out, TASKS)) == 0
    assert (out / "canonical.json").read_bytes() == (recorded.out / "canonical.json").read_bytes()
