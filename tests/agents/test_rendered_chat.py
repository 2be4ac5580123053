"""The openai-chat agent's rendered protocol: what a request carries (the turn's grammar, tools
reduced to what a task can use, results as numbered lines without hashes), what a reply becomes,
and a lane run over HTTP against a scripted endpoint that writes Hermes-style calls."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentic.agents.call_grammar import FINAL_TOOL, call_grammar, call_text, read_call
from agentic.agents.chat_config import load_agent_config
from agentic.agents.chat_endpoint import Endpoint, EndpointSettings
from agentic.agents.grammar import Citable, StepShape
from agentic.agents.rendered_chat import EXAMPLE_TURNS, RenderedChatSession, prompt_bytes
from agentic.cli import main
from agentic.contract.canonical import sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.json_access import int_at, object_at, objects_at, str_at
from agentic.contract.report import BenchmarkReport
from agentic.contract.schemas import parse_and_load
from agentic.contract.strict_json import JsonArray, JsonObject
from agentic.contract.task import AgentTask
from agentic.fixture.loader import Fixture
from tests.support.fake_openai import FakeEndpoint, Reply, config_text, json_reply, serving

RENDERED = {"protocol": "rendered", "context_budget": {"tokens": 8192}}
TASK_TURN = 1 + len(EXAMPLE_TURNS)  # the system text, the examples, then the task
_ROW = re.compile(r"^(\d+): (.*)$")


def content_reply(text: str) -> Reply:
    return json_reply({"choices": [{"index": 0, "message": {"content": text}}]})


def shown_rows(text: str) -> list[tuple[str, int, str]]:
    """(uri, line, text) of each numbered line a rendered result shows."""
    rows: list[tuple[str, int, str]] = []
    uri = ""
    for line in text.splitlines():
        if line.startswith("gno://"):
            uri = line
        elif (row := _ROW.match(line)) is not None and uri:
            rows.append((uri, int(row.group(1)), row.group(2)))
    return rows


def launch_date_policy(body: JsonObject) -> Reply:
    """A scripted model: search for the launch date, then claim it from a shown line."""
    task_turn = str_at(body, "messages", TASK_TURN, "content")
    answered = objects_at(body, "messages")[TASK_TURN + 1 :]
    if not answered:
        collection = task_turn.split("Collections: ")[1].split(",")[0].split("\n")[0]
        query: JsonObject = {"query": "Atlas launch date", "collection": collection}
        return content_reply(call_text("search", query))
    rows = shown_rows(str_at(answered[-1], "content"))
    dated = [(uri, n, text) for uri, n, text in rows if text.startswith("Launch date: ")]
    gaps: JsonArray = [{"claimKey": "launchOwner", "reason": "missing_evidence"}]
    if not dated:
        gaps.append({"claimKey": "launchDate", "reason": "missing_evidence"})
        return content_reply(call_text(FINAL_TOOL, {"claims": [], "gaps": gaps}))
    uri, number, text = dated[0]
    citation: JsonObject = {"uri": uri, "startLine": number, "endLine": number}
    claim: JsonObject = {
        "claimKey": "launchDate",
        "value": text.split(": ")[1],
        "citations": [citation],
    }
    return content_reply(call_text(FINAL_TOOL, {"claims": [claim], "gaps": gaps}))


def write_config(tmp_path: Path, base_url: str, **keys: Any) -> Path:
    path = tmp_path / "agent.toml"
    path.write_text(config_text(base_url, **{**RENDERED, **keys}), encoding="utf-8")
    return path


def session(tmp_path: Path, fixture: Fixture, endpoint: FakeEndpoint) -> RenderedChatSession:
    config = load_agent_config(write_config(tmp_path, endpoint.base_url))
    settings = EndpointSettings(
        base_url=endpoint.base_url, api_key=None, timeout_s=5.0, max_retries=0
    )
    task = fixture.task("t0000b02")
    return RenderedChatSession(config, Endpoint(settings, None), task, 1)


def run_lane(
    capsys: pytest.CaptureFixture[str], fixture: Fixture, config: Path, out: Path
) -> tuple[int, BenchmarkReport]:
    code = main(
        [
            "run", "--fixture", str(fixture.root), "--agent-config", str(config),
            "--adapter", "lexical", "--lifecycle", "cold", "--task", "t0000b02",
            "--promote", "none", "--quiet", "--out", str(out),
        ]
    )  # fmt: skip
    capsys.readouterr()
    path = out / "report.json"
    return code, parse_and_load("benchmark-report", path.read_bytes(), source=str(path))


# --- the config ---------------------------------------------------------------------------------


def test_a_setting_of_the_functions_protocol_is_refused_with_the_rendered_one(
    tmp_path: Path,
) -> None:
    path = write_config(tmp_path, "http://127.0.0.1:1/v1", tool_choice="required")
    with pytest.raises(ContractError, match="tool_choice applies to protocol"):
        load_agent_config(path)


def test_the_protocol_is_part_of_the_agents_behaviour(tmp_path: Path) -> None:
    config = load_agent_config(write_config(tmp_path, "http://127.0.0.1:1/v1"))
    assert config.behaviour()["protocol"] == "rendered"


# --- a request ----------------------------------------------------------------------------------


def test_a_request_carries_the_turns_grammar_and_no_tool_choice(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with serving(FakeEndpoint(policy=launch_date_policy)) as endpoint:
        session(tmp_path, tiny_fixture, endpoint).next_step(())
    body = endpoint.requests[0]
    assert str_at(body, "grammar").startswith("root ::= ")
    assert "tool_choice" not in body


def test_the_tools_listed_take_only_what_a_task_can_use(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with serving(FakeEndpoint(policy=launch_date_policy)) as endpoint:
        session(tmp_path, tiny_fixture, endpoint).next_step(())
    search = object_at(endpoint.requests[0], "tools", 0, "function")
    assert search["name"] == "search"
    assert set(object_at(search, "parameters", "properties")) == {"query", "collection"}


def test_the_model_reads_numbered_lines_and_never_a_hash(
    tmp_path: Path, tiny_fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint(policy=launch_date_policy)) as endpoint:
        run_lane(capsys, tiny_fixture, write_config(tmp_path, endpoint.base_url), tmp_path / "o")
    shown = str_at(endpoint.requests[-1], "messages", -1, "content")
    assert shown.startswith("<tool_response>\nResult of search: ok")
    assert shown_rows(shown)
    assert not re.search(r"[0-9a-f]{64}", json.dumps(endpoint.requests[-1]["messages"]))


def test_the_models_own_text_is_shown_back_as_its_turn(
    tmp_path: Path, tiny_fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint(policy=launch_date_policy)) as endpoint:
        run_lane(capsys, tiny_fixture, write_config(tmp_path, endpoint.base_url), tmp_path / "o")
    turn = object_at(endpoint.requests[-1], "messages", TASK_TURN + 1)
    assert turn["role"] == "assistant"
    assert str_at(turn, "content").startswith(
        '<tool_call>\n{"name": "search", "arguments": {"query":'
    )


# --- a lane -------------------------------------------------------------------------------------


def test_a_rendered_lane_answers_with_the_hashes_of_the_lines_the_model_cited(
    tmp_path: Path, tiny_fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint(policy=launch_date_policy)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        code, report = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 0
    receipt = report.receipts[0].canonical
    assert receipt.failure.class_ == "none"
    assert receipt.finalEnvelope is not None
    (claim,) = receipt.finalEnvelope.claims
    assert claim.value.type == "date"
    cited = claim.citations[0]
    assert cited.spanHash == sha256_hex(f"Launch date: {claim.value.value}")
    assert report.scores[0].score.invalidOutputs == ()


def test_a_search_is_sent_with_a_limit_the_byte_budget_holds(
    tmp_path: Path, tiny_fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint(policy=launch_date_policy)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        _, report = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    search = report.receipts[0].canonical.calls[0]
    assert search.toolName == "search"
    assert int_at(search.arguments, "limit") >= 1


def test_a_reply_the_grammar_refuses_is_the_endpoints_failure_not_the_models(
    tmp_path: Path, tiny_fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    free_json = content_reply('{"kind": "final", "envelope": {}}')
    with serving(FakeEndpoint(policy=lambda body: free_json)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        code, report = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 2
    failure = report.receipts[0].canonical.failure
    assert (failure.class_, failure.code) == ("harness_error", "llm_grammar_ignored")


def test_a_reply_cut_short_is_the_models_malformed_output(
    tmp_path: Path, tiny_fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = content_reply('<tool_call>\n{"name": "search", "arguments": {"query":"Atl')
    with serving(FakeEndpoint(policy=lambda body: cut)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        _, report = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    failure = report.receipts[0].canonical.failure
    assert (failure.class_, failure.code) == ("agent_error", "malformed_agent_json")


# --- the worked examples --------------------------------------------------------------------------


def example_task() -> AgentTask:
    claims: JsonArray = [
        {"claimKey": "retryLimit", "valueType": "number", "substantive": True, "required": True},
        {
            "claimKey": "retrySetting",
            "valueType": "identifier",
            "substantive": True,
            "required": True,
        },
    ]
    return AgentTask.model_validate(
        {
            "schemaVersion": "1.0",
            "taskId": "t0000e01",
            "category": "exact_identifier",
            "brief": {"goal": "Kestrel retries", "instructions": ["Return only claims."]},
            "claims": claims,
            "allowedTools": ["search", "get", "multi_get"],
            "budgets": {"maxAgentCalls": 3, "maxModelVisibleBytes": 12000},
            "corpus": {"collections": ["c101"]},
        }
    )


def test_the_worked_examples_calls_are_what_the_grammar_admits() -> None:
    uri = "gno://c101/kestrel/uploads.md"
    lines = (Citable(uri, n, n, "a" * 64, "b" * 64) for n in (12, 14, 15))
    shape = StepShape(("search", "get", "multi_get"), ("c101",), (uri,), tuple(lines))
    grammar = call_grammar(example_task(), shape)
    calls = [text for role, text in EXAMPLE_TURNS[:6] if role == "assistant"]
    assert all(read_call(text, grammar) is not None for text in calls)


def test_the_grammar_a_request_carries_takes_no_room_in_the_context() -> None:
    body: JsonObject = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert prompt_bytes({**body, "grammar": "root ::= " + '"x" | ' * 5000 + '"y"'}) == (
        prompt_bytes(body)
    )
