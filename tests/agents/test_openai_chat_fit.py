"""The openai-chat agent fit for real models: a context budget kept through the contract's own
read arguments, an over-long request ending the pair as the agent's failure (never an
exclusion), only final_answer offered once the calls are spent, tool calls written as text,
a configurable tool_choice, the endpoint's token usage noted, and the config's step deadline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic.agents.base import AgentStepError, KeepsStepDeadline
from agentic.agents.chat_config import STEP_GRACE_S, load_agent_config
from agentic.agents.chat_endpoint import Endpoint, EndpointSettings, reported_tokens
from agentic.agents.llm_cache import LlmCache
from agentic.agents.openai_chat import (
    FINAL_ONLY_NOTE,
    FINAL_TOOL,
    OpenAIChatSession,
    function_tools,
    step_text,
    text_tool_call,
)
from agentic.contract.errors import ContractError
from agentic.contract.json_access import array_at, member, objects_at, str_at
from agentic.contract.pair_notes import LlmAnswers, LlmUsage, encode
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from agentic.tools import tool_definitions
from tests.support.fake_openai import (
    FakeEndpoint,
    Reply,
    config_text,
    json_reply,
    serving,
    tool_call_reply,
)


def config_file(tmp_path: Path, base_url: str = "http://127.0.0.1:1/v1", **keys: Any) -> Path:
    path = tmp_path / "agent.toml"
    path.write_text(config_text(base_url, **keys), encoding="utf-8")
    return path


def session(
    tmp_path: Path,
    fixture: Fixture,
    endpoint: FakeEndpoint,
    cache: LlmCache | None = None,
    **keys: Any,
) -> OpenAIChatSession:
    config = load_agent_config(config_file(tmp_path, endpoint.base_url, **keys))
    settings = EndpointSettings(
        base_url=endpoint.base_url, api_key=None, timeout_s=5.0, max_retries=0
    )
    task = fixture.tasks[0]
    tools = function_tools(tool_definitions(), task)
    return OpenAIChatSession(config, Endpoint(settings, cache), task, tools, 1)


def message_reply(content: str, usage: dict[str, int] | None = None) -> Reply:
    body: dict[str, Any] = {"choices": [{"index": 0, "message": {"content": content}}]}
    if usage is not None:
        body["usage"] = usage
    return json_reply(body)


def visible_calls(count: int) -> tuple[VisibleCall, ...]:
    result: dict[str, Any] = {
        "status": "ok", "resultRole": "candidates", "content": "", "evidence": [], "errorCode": None
    }  # fmt: skip
    return tuple(
        VisibleCall.model_validate(
            {"callIndex": n, "toolName": "search", "arguments": {"query": "x"}, "result": result}
        )
        for n in range(count)
    )


# --- the config ---------------------------------------------------------------------------------


def test_a_context_budget_names_tokens_or_bytes_not_both(tmp_path: Path) -> None:
    path = config_file(tmp_path, context_budget={"tokens": 4096, "bytes": 9000})
    with pytest.raises(ContractError, match="give tokens or bytes, not both"):
        load_agent_config(path)


def test_a_context_budget_must_leave_room_beside_the_output(tmp_path: Path) -> None:
    path = config_file(tmp_path, context_budget={"tokens": 256}, max_output_tokens=300)
    with pytest.raises(ContractError, match="leaves no room"):
        load_agent_config(path)


def test_keys_left_at_their_defaults_keep_an_older_configs_behaviour(tmp_path: Path) -> None:
    config = load_agent_config(config_file(tmp_path))
    assert set(config.behaviour()) == {
        "model", "temperature", "seed", "maxOutputTokens", "toolResults", "extraBody",
    }  # fmt: skip


# --- what the model is offered ------------------------------------------------------------------


def test_tool_choice_is_the_configs(tmp_path: Path, tiny_fixture: Fixture) -> None:
    chat = session(tmp_path, tiny_fixture, FakeEndpoint(), tool_choice="required")
    assert chat.request(())["tool_choice"] == "required"


def test_once_the_calls_are_spent_only_final_answer_is_offered(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    chat = session(tmp_path, tiny_fixture, FakeEndpoint())
    spent = tiny_fixture.tasks[0].budgets.maxAgentCalls
    body = chat.request(visible_calls(spent))
    assert [str_at(tool, "function", "name") for tool in objects_at(body, "tools")] == [FINAL_TOOL]
    assert member(body, "messages", -1) == {"role": "user", "content": FINAL_ONLY_NOTE}


def test_final_only_by_tool_choice_keeps_the_tool_list_and_names_final_answer(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    chat = session(tmp_path, tiny_fixture, FakeEndpoint(), final_only="tool_choice")
    spent = tiny_fixture.tasks[0].budgets.maxAgentCalls
    before, after = chat.request(visible_calls(spent - 1)), chat.request(visible_calls(spent))
    assert after["tools"] == before["tools"]
    assert after["tool_choice"] == {"type": "function", "function": {"name": FINAL_TOOL}}
    assert member(after, "messages", -1) == {"role": "user", "content": FINAL_ONLY_NOTE}


def test_final_only_by_tool_choice_is_part_of_the_configs_behaviour(tmp_path: Path) -> None:
    config = load_agent_config(
        config_file(tmp_path, "http://127.0.0.1:1/v1", final_only="tool_choice")
    )
    assert config.behaviour()["finalOnly"] == "tool_choice"


def test_before_the_calls_are_spent_every_allowed_tool_is_offered(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    chat = session(tmp_path, tiny_fixture, FakeEndpoint())
    body = chat.request(visible_calls(1))
    assert len(array_at(body, "tools")) > 1
    assert member(body, "messages", -1, "content") != FINAL_ONLY_NOTE


# --- the context budget -------------------------------------------------------------------------


def budgeted_step(
    tmp_path: Path, fixture: Fixture, tool: str, arguments: str
) -> tuple[dict[str, Any], OpenAIChatSession]:
    """The step a model's call of ``tool`` becomes under a 40,000-byte context budget."""
    fake = FakeEndpoint(policy=lambda body: tool_call_reply(tool, arguments))
    with serving(fake) as endpoint:
        chat = session(tmp_path, fixture, endpoint, context_budget={"bytes": 40000})
        return json.loads(chat.next_step(())), chat


def test_an_unbounded_get_is_bounded_by_a_line_count(tmp_path: Path, tiny_fixture: Fixture) -> None:
    step, chat = budgeted_step(tmp_path, tiny_fixture, "get", '{"uri": "gno://c0a1/d001.md"}')
    assert step["arguments"]["uri"] == "gno://c0a1/d001.md"
    assert step["arguments"]["lineCount"] >= 1
    assert any(note.startswith("context_budget: get bounded by") for note in chat.notes())


def test_a_bounded_read_is_left_as_the_model_wrote_it(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    arguments = '{"uri": "gno://c0a1/d001.md", "fromLine": 2, "lineCount": 3}'
    step, _ = budgeted_step(tmp_path, tiny_fixture, "get", arguments)
    assert step["arguments"] == json.loads(arguments)


def test_an_unbounded_multi_get_is_bounded_by_max_bytes(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    uris = '{"uris": ["gno://c0a1/d001.md", "gno://c0a1/d002.md"]}'
    step, _ = budgeted_step(tmp_path, tiny_fixture, "multi_get", uris)
    assert step["arguments"]["maxBytes"] >= 1


def test_a_request_over_the_budget_is_the_agents_failure_before_it_is_sent(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    fake = FakeEndpoint()
    with serving(fake) as endpoint:
        chat = session(tmp_path, tiny_fixture, endpoint, context_budget={"bytes": 1024})
        with pytest.raises(AgentStepError) as raised:
            chat.next_step(())
    assert (raised.value.failure_class, raised.value.code) == (
        "agent_error",
        "agent_context_exceeded",
    )
    assert fake.requests == []


def test_an_endpoint_refusing_a_long_request_is_the_agents_failure(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    error = {"error": {"code": "context_length_exceeded", "message": "Requested tokens exceed"}}
    fake = FakeEndpoint(policy=lambda body: json_reply(error, status=400))
    with serving(fake) as endpoint:
        chat = session(tmp_path, tiny_fixture, endpoint)
        with pytest.raises(AgentStepError) as raised:
            chat.next_step(())
    assert (raised.value.failure_class, raised.value.code) == (
        "agent_error",
        "agent_context_exceeded",
    )


def test_an_endpoints_refusal_of_a_long_request_is_recorded_and_replays_the_same_failure(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    error = {"error": {"code": "context_length_exceeded", "message": "Requested tokens exceed"}}
    fake = FakeEndpoint(policy=lambda body: json_reply(error, status=400))
    cache = tmp_path / "cache"
    codes = []
    with serving(fake) as endpoint:
        for mode in ("record", "reuse"):
            chat = session(tmp_path, tiny_fixture, endpoint, cache=LlmCache(cache, mode))
            with pytest.raises(AgentStepError) as raised:
                chat.next_step(())
            codes.append(raised.value.code)
    assert codes == ["agent_context_exceeded", "agent_context_exceeded"]
    assert len(fake.requests) == 1  # the replay asked nothing
    assert [json.loads(p.read_bytes())["status"] for p in cache.iterdir()] == [400]


# --- what the reply becomes ---------------------------------------------------------------------


def test_a_hermes_tool_call_in_text_is_a_tool_step() -> None:
    content = (
        'Let me look.\n<tool_call>\n{"name": "search", "arguments": {"query": "x"}}\n</tool_call>'
    )
    step = json.loads(text_tool_call(content) or "null")
    assert step == {"kind": "tool", "toolName": "search", "arguments": {"query": "x"}}


def test_a_fenced_json_tool_call_is_a_tool_step() -> None:
    content = '```json\n{"name": "get", "arguments": {"uri": "gno://c0a1/d001.md"}}\n```'
    step = json.loads(text_tool_call(content) or "null")
    assert step["toolName"] == "get"


def test_a_final_answer_written_as_text_is_the_final_step() -> None:
    envelope = {"schemaVersion": "1.0", "claims": [], "gaps": [], "abstained": True}
    content = json.dumps({"name": FINAL_TOOL, "arguments": envelope})
    step = json.loads(text_tool_call(content) or "null")
    assert step == {"kind": "final", "envelope": envelope}


def test_two_tagged_calls_in_one_reply_are_no_step() -> None:
    one = '<tool_call>{"name": "search", "arguments": {"query": "x"}}</tool_call>'
    assert isinstance(json.loads(text_tool_call(one + one) or "null"), list)


def test_text_that_is_no_tool_call_stays_a_final_answer() -> None:
    body: JsonObject = {"choices": [{"message": {"content": '{"claims": []}'}}]}
    assert json.loads(step_text(body, text_calls=True))["kind"] == "final"


def test_text_tool_calls_are_read_only_when_the_config_asks() -> None:
    content = '<tool_call>{"name": "search", "arguments": {"query": "x"}}</tool_call>'
    assert step_text({"choices": [{"message": {"content": content}}]}) == content


# --- what is recorded ---------------------------------------------------------------------------


def test_the_endpoints_token_usage_is_noted(tmp_path: Path, tiny_fixture: Fixture) -> None:
    usage = {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940}
    fake = FakeEndpoint(policy=lambda body: message_reply('{"x": 1}', usage))
    with serving(fake) as endpoint:
        chat = session(tmp_path, tiny_fixture, endpoint)
        chat.next_step(())
        chat.next_step(())
    usage_note = LlmUsage(requests=2, reported=2, prompt=1800, completion=80)
    assert encode(usage_note) in chat.notes()
    assert reported_tokens(chat.notes()) == (1800, 80)


def test_no_tokens_are_read_from_notes_of_an_endpoint_that_reported_none() -> None:
    summary = LlmAnswers(mode="reuse", count=0, digest="0" * 64)
    assert reported_tokens([encode(summary), "a free-text diagnostic"]) is None


def test_the_runners_step_deadline_is_the_configs_with_a_grace_for_the_endpoint_to_end_it(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    chat = session(tmp_path, tiny_fixture, FakeEndpoint(), timeout_s=90.0, max_retries=2)
    assert isinstance(chat, KeepsStepDeadline)
    assert chat.step_deadline_s == 90.0 + STEP_GRACE_S


def test_a_token_budget_counts_the_prompt_tokens_the_endpoint_reported(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    def search_reporting_usage(body: dict[str, Any]) -> Reply:
        status, _, raw = tool_call_reply("search", '{"query": "x"}')
        reply = json.loads(raw) | {"usage": {"prompt_tokens": 3700, "completion_tokens": 9}}
        return json_reply(reply, status)

    with serving(FakeEndpoint(policy=search_reporting_usage)) as endpoint:
        chat = session(tmp_path, tiny_fixture, endpoint, context_budget={"tokens": 4000})
        chat.next_step(())  # about 2,500 tokens by its bytes alone: within the budget
        with pytest.raises(AgentStepError) as raised:
            chat.next_step(visible_calls(1))  # 3,700 reported, plus the new bytes
    assert raised.value.code == "agent_context_exceeded"
