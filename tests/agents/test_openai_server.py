"""llama-cpp-python's OpenAI-compatible server over the pinned SmolLM2 GGUF: what it answers, and
how it treats function tools (the facts the ``openai-chat`` agent and its record/replay cache
build on).

One server for the module's session (``tests.support.openai_server.openai_server``), with the
lock's settings and the ``chatml-function-calling`` handler. Everything is greedy (temperature
0): that handler drops the request's ``seed``, so only greedy output repeats request by request.
Each test prints what it measured (run with ``-s`` to see it).
"""

from __future__ import annotations

import copy
import inspect
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from agentic.contract.json_access import object_at
from agentic.resources import schemas_dir
from agentic.tools import tool_definitions
from tests.support.openai_server import (
    RunningServer,
    ServerStartError,
    openai_server,
    requires_openai_server,
    start_pinned_server,
    start_server,
)
from tests.support.processes import group_gone, process_alive, processes_mentioning

pytestmark = [pytest.mark.real_process, pytest.mark.local_model, requires_openai_server]

__all__ = ["openai_server"]  # the session fixture, imported so pytest finds it here

REQUEST_TIMEOUT_S = 600.0
FALLBACK_LINE = "Failed to parse function body as JSON schema, falling back to default grammar"
GREEDY: dict[str, Any] = {"temperature": 0, "seed": 1}
WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
USE_TOOLS = {"role": "system", "content": "Use the tools."}
ASK_WEATHER = [USE_TOOLS, {"role": "user", "content": "What is the weather in Paris?"}]


@pytest.fixture(scope="module")
def client() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=REQUEST_TIMEOUT_S, trust_env=False) as session:
        yield session


def chat(
    server: RunningServer, client: httpx2.Client, body: dict[str, Any]
) -> tuple[httpx2.Response, str]:
    """POST /v1/chat/completions; the response and what the server logged meanwhile."""
    before = server.log_path.stat().st_size
    started = time.monotonic()
    response = client.post(
        f"{server.base_url}/chat/completions", json={"model": server.model_alias, **body}
    )
    elapsed = time.monotonic() - started
    print(f"\n[{elapsed:.2f}s] HTTP {response.status_code} {response.text}")
    return response, server.log_path.read_bytes()[before:].decode(errors="replace")


def ok(server: RunningServer, client: httpx2.Client, body: dict[str, Any]) -> dict[str, Any]:
    response, _ = chat(server, client, body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def function_tool(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def kit_tools() -> list[dict[str, Any]]:
    """The kit's tools as OpenAI function tools (a definition is name/description/inputSchema)."""
    return [
        function_tool(str(tool["name"]), str(tool["description"]), object_at(tool, "inputSchema"))
        for tool in tool_definitions()
    ]


def envelope_schema() -> dict[str, Any]:
    path = schemas_dir() / "final-envelope.schema.json"
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def anchored_envelope_schema() -> dict[str, Any]:
    """The envelope schema with its one unanchored pattern (``^gno://``) anchored at both ends."""
    schema = copy.deepcopy(envelope_schema())
    uri = schema["definitions"]["evidence"]["properties"]["uri"]
    assert uri["pattern"] == "^gno://"
    uri["pattern"] = "^gno://.*$"
    return schema


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


# --- (a) models ----------------------------------------------------------------------------------


def test_models_lists_the_alias(openai_server: RunningServer, client: httpx2.Client) -> None:
    print(f"\nstartup {openai_server.startup_s:.2f}s: {' '.join(openai_server.command)}")
    response = client.get(f"{openai_server.base_url}/models")
    print(response.text)
    assert response.status_code == 200
    assert response.json() == {
        "object": "list",
        "data": [
            {
                "id": openai_server.model_alias,
                "object": "model",
                "owned_by": "me",
                "permissions": [],
            }
        ],
    }


# --- (b) plain completions -----------------------------------------------------------------------


def test_greedy_completion_repeats_byte_for_byte(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    body = {
        "messages": [{"role": "user", "content": "Say hello in three words."}],
        **GREEDY,
        "max_tokens": 32,
    }
    replies = [ok(openai_server, client, body) for _ in range(3)]
    first = replies[0]
    assert set(first) == {"id", "object", "created", "model", "choices", "usage"}
    assert "system_fingerprint" not in first
    assert first["object"] == "chat.completion"
    assert first["model"] == openai_server.model_alias  # echoes the request's "model"
    assert isinstance(first["created"], int)  # unix seconds
    assert len(first["choices"]) == 1
    choice = first["choices"][0]
    assert set(choice) == {"index", "message", "logprobs", "finish_reason"}
    assert choice["finish_reason"] in {"stop", "length"}
    assert set(choice["message"]) == {"role", "content"}
    assert set(first["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    # Only the ids (a fresh uuid4 each) and, across a second boundary, "created" vary.
    for reply in replies[1:]:
        assert canonical(reply["choices"]) == canonical(first["choices"])
        assert reply["usage"] == first["usage"]
        assert reply["id"] != first["id"]
    assert all(reply["id"].startswith("chatcmpl-") for reply in replies)


def test_response_model_is_the_model_path_without_a_request_model(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    body = {"messages": [{"role": "user", "content": "Hi"}], **GREEDY, "max_tokens": 4}
    response = client.post(f"{openai_server.base_url}/chat/completions", json=body)
    assert response.status_code == 200
    model_path = openai_server.command[openai_server.command.index("--model") + 1]
    assert response.json()["model"] == model_path


def test_the_function_calling_handler_has_no_seed() -> None:
    """Why only greedy output repeats: the handler swallows ``seed`` in ``**kwargs``, so
    sampling continues the server's own seed chain (plain ``chatml`` does take the seed)."""
    from llama_cpp import llama_chat_format

    handler = llama_chat_format.get_chat_completion_handler("chatml-function-calling")
    assert "seed" not in inspect.signature(handler).parameters
    plain = llama_chat_format.get_chat_completion_handler("chatml")
    assert "seed" in inspect.signature(plain).parameters


# --- (c) a small function tool -------------------------------------------------------------------


def test_auto_tool_choice_returns_a_tool_call(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    body = {"messages": ASK_WEATHER, "tools": [WEATHER], "tool_choice": "auto", **GREEDY}
    first, second = ok(openai_server, client, body), ok(openai_server, client, body)
    choice = first["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    message = choice["message"]
    # A legacy "function_call" comes along. In auto mode its name is the *next* function the
    # model asked for, colon included ("get_weather:"): no tool has that name, which is also why
    # auto mode never returns a second call.
    assert set(message) == {"role", "content", "tool_calls", "function_call"}
    assert message["content"] is None
    (call,) = message["tool_calls"]
    assert set(call) == {"id", "type", "function"}
    assert call["type"] == "function"
    assert call["id"].startswith("call__0_get_weather_cmpl-")
    assert call["function"]["name"] == "get_weather"
    arguments = call["function"]["arguments"]
    assert isinstance(arguments, str)
    assert json.loads(arguments) == {"city": "Paris"}
    assert message["function_call"] == {"name": "get_weather:", "arguments": arguments}
    # The same request again: the same call, under a fresh call id.
    again = second["choices"][0]["message"]
    assert again["tool_calls"][0]["id"] != call["id"]
    assert again["tool_calls"][0]["function"] == call["function"]


def test_only_names_and_parameters_reach_the_prompt_with_a_system_message(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    """The handler lists each function's name and parameters (never its description) inside the
    system turn; with no system message the model sees no tools at all (only the grammar of
    function names does)."""
    described = copy.deepcopy(WEATHER)
    described["function"]["description"] = "Get the current weather for a city. " * 10
    extended = copy.deepcopy(WEATHER)
    extended["function"]["parameters"]["properties"]["units"] = {"enum": ["metric", "imperial"]}
    tools = {"base": WEATHER, "described": described, "extended": extended}
    body = {"tool_choice": "auto", **GREEDY}
    usage: dict[tuple[str, str], int] = {}
    for label, messages in (("user", ASK_WEATHER[1:]), ("system+user", ASK_WEATHER)):
        for name, tool in tools.items():
            reply = ok(openai_server, client, {"messages": messages, "tools": [tool], **body})
            usage[label, name] = reply["usage"]["prompt_tokens"]
    print(f"prompt tokens (messages, tool): {usage}")
    assert usage["user", "base"] == usage["user", "described"] == usage["user", "extended"]
    assert usage["system+user", "described"] == usage["system+user", "base"]
    assert usage["system+user", "extended"] > usage["system+user", "base"]
    assert usage["system+user", "base"] > usage["user", "base"] + 100  # the instructions


def test_auto_message_replies_are_empty(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    """When auto mode picks "message:", the follow-up grammar allows only a function name or the
    end of turn, so a content reply comes back as the empty string."""
    body = {
        "messages": [
            {"role": "system", "content": "You are a friendly assistant."},
            {"role": "user", "content": "Hi! How are you today?"},
        ],
        "tools": kit_tools()[:1],
        "tool_choice": "auto",
        **GREEDY,
        "max_tokens": 32,
    }
    choice = ok(openai_server, client, body)["choices"][0]
    assert choice["finish_reason"] == "stop"
    assert choice["message"] == {"role": "assistant", "content": ""}


def test_named_tool_choice_forces_the_call(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    named = {"type": "function", "function": {"name": "get_weather"}}
    body = {"messages": ASK_WEATHER, "tools": [WEATHER], "tool_choice": named, **GREEDY}
    reply = ok(openai_server, client, {**body, "max_tokens": 32})
    choice = reply["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    (call,) = choice["message"]["tool_calls"]
    # Forced: one completion, so the call id reuses the response id's uuid.
    assert call["id"] == "call__0_get_weather_" + reply["id"].removeprefix("chat")
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    assert choice["message"]["function_call"]["name"] == "get_weather"


def test_required_tool_choice_is_a_500(openai_server: RunningServer, client: httpx2.Client) -> None:
    body = {"messages": ASK_WEATHER, "tools": [WEATHER], "tool_choice": "required", **GREEDY}
    response, log = chat(openai_server, client, body)
    assert response.status_code == 500
    assert response.json() == {
        "error": {"message": "", "type": "internal_server_error", "param": None, "code": None}
    }
    assert "AssertionError" in log


def test_none_tool_choice_ignores_the_tools(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    body = {"messages": ASK_WEATHER, "tools": [WEATHER], **GREEDY, "max_tokens": 16}
    plain = ok(openai_server, client, {"messages": ASK_WEATHER, **GREEDY, "max_tokens": 16})
    for choice in ("none", None):
        request = body if choice is None else {**body, "tool_choice": choice}
        reply = ok(openai_server, client, request)
        assert canonical(reply["choices"]) == canonical(plain["choices"])
        assert set(reply["choices"][0]["message"]) == {"role", "content"}


# --- follow-up turns -----------------------------------------------------------------------------


def follow_up(tool_text: str, assistant: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        *ASK_WEATHER,
        assistant,
        {"role": "tool", "tool_call_id": "call_1", "content": tool_text},
    ]


CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}


def test_an_echoed_tool_call_message_needs_empty_content(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    """The server's own reply has ``"content": null``; sent back, null fails request validation
    and a missing content fails the template (both a 500). ``""`` works."""
    body = {"tools": [WEATHER], "tool_choice": "auto", **GREEDY}
    null = follow_up("sunny", {"role": "assistant", "content": None, "tool_calls": [CALL]})
    missing = follow_up("sunny", {"role": "assistant", "tool_calls": [CALL]})
    for messages, fragment in ((null, "validation error"), (missing, "has no attribute")):
        response, _ = chat(openai_server, client, {"messages": messages, **body})
        assert response.status_code == 500
        assert fragment in response.json()["error"]["message"]
    empty = follow_up("sunny", {"role": "assistant", "content": "", "tool_calls": [CALL]})
    ok(openai_server, client, {"messages": empty, **body})


def test_tool_results_never_reach_the_prompt(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    """A ``role: tool`` message renders as an empty turn: a long result costs no more prompt
    tokens than a short one."""
    assistant = {"role": "assistant", "content": "", "tool_calls": [CALL]}
    body = {"tools": [WEATHER], "tool_choice": "auto", **GREEDY}
    long_text = "sunny and warm with a light breeze from the west, 24 degrees, no rain today"
    short = ok(openai_server, client, {"messages": follow_up("sunny", assistant), **body})
    long = ok(openai_server, client, {"messages": follow_up(long_text, assistant), **body})
    assert short["usage"]["prompt_tokens"] == long["usage"]["prompt_tokens"]


# --- (d) real schemas ----------------------------------------------------------------------------


def test_grammar_conversion_rejects_only_the_unanchored_pattern() -> None:
    """llama.cpp's schema-to-grammar converter takes ``$ref`` (definitions and $defs), enum,
    const, oneOf, nested objects, format date; it asserts that a pattern is ``^...$``."""
    from llama_cpp import llama_grammar

    with pytest.raises(AssertionError, match="Pattern must start with"):
        llama_grammar.json_schema_to_gbnf(json.dumps(envelope_schema()))
    anchored = anchored_envelope_schema()
    grammar = llama_grammar.json_schema_to_gbnf(json.dumps(anchored))
    assert 'schemaVersion ::= "\\"1.0\\""' in grammar
    as_defs = json.loads(json.dumps(anchored).replace("#/definitions/", "#/$defs/"))
    as_defs["$defs"] = as_defs.pop("definitions")
    assert llama_grammar.json_schema_to_gbnf(json.dumps(as_defs)) == grammar
    for tool in tool_definitions():
        llama_grammar.json_schema_to_gbnf(json.dumps(tool["inputSchema"]))


@pytest.mark.slow
def test_the_envelope_schema_degrades_silently(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    """The raw envelope schema is accepted (200), but its grammar fails to build and the server
    falls back to any-JSON (only the log says so); anchored, the grammar holds. Truncation by
    max_tokens still reports ``finish_reason: tool_calls``."""
    named = {"type": "function", "function": {"name": "final_answer"}}
    question = {"role": "user", "content": "When is the Atlas launch date?"}
    for schema, falls_back in ((envelope_schema(), True), (anchored_envelope_schema(), False)):
        tools = [*kit_tools(), function_tool("final_answer", "Submit the answer.", schema)]
        body = {
            "messages": [USE_TOOLS, question],
            "tools": tools,
            "tool_choice": named,
            **GREEDY,
            "max_tokens": 48,
        }
        response, log = chat(openai_server, client, body)
        assert response.status_code == 200
        assert (FALLBACK_LINE in log) is falls_back
        reply = response.json()
        choice = reply["choices"][0]
        assert choice["finish_reason"] == "tool_calls"
        arguments = choice["message"]["tool_calls"][0]["function"]["arguments"]
        assert isinstance(arguments, str)
        print(f"usage {reply['usage']}")
        if not falls_back:
            assert arguments.startswith('{"schemaVersion": "1.0", "claims": [')
        if reply["usage"]["completion_tokens"] == 48:
            with pytest.raises(json.JSONDecodeError):
                json.loads(arguments)


@pytest.mark.slow
def test_auto_with_the_kit_tools_and_the_envelope(
    openai_server: RunningServer, client: httpx2.Client
) -> None:
    tools = [*kit_tools(), function_tool("final_answer", "Submit.", anchored_envelope_schema())]
    body = {
        "messages": [USE_TOOLS, {"role": "user", "content": "When is the Atlas launch date?"}],
        "tools": tools,
        "tool_choice": "auto",
        **GREEDY,
    }
    response, log = chat(openai_server, client, body)
    assert response.status_code == 200
    assert FALLBACK_LINE not in log
    (call,) = response.json()["choices"][0]["message"]["tool_calls"]
    assert call["function"]["name"] in {"get", "multi_get", "search", "final_answer"}
    assert isinstance(json.loads(call["function"]["arguments"]), dict)


# --- (e) lifecycle -------------------------------------------------------------------------------


def test_the_session_server_is_alive(openai_server: RunningServer) -> None:
    assert process_alive(openai_server.process.pid)
    assert processes_mentioning(f"--port {openai_server.port} ") == [openai_server.process.pid]


def test_stop_leaves_no_process(tmp_path: Path) -> None:
    server = start_pinned_server(log_path=tmp_path / "server.log")
    marker = f"--port {server.port} "
    assert processes_mentioning(marker) == [server.process.pid]
    server.stop()
    assert group_gone(server.pgid)
    assert processes_mentioning(marker) == []
    assert server.process.returncode is not None
    server.stop()  # idempotent


def test_an_early_exit_raises_with_the_log(tmp_path: Path) -> None:
    missing = tmp_path / "missing.gguf"
    log_path = tmp_path / "server.log"
    with pytest.raises(ServerStartError, match="exited with") as caught:
        start_server(missing, chat_format="chatml", n_ctx=512, threads=1, log_path=log_path)
    assert str(missing) in str(caught.value)
    assert processes_mentioning(str(missing)) == []


def test_a_startup_timeout_kills_the_server(tmp_path: Path) -> None:
    missing = tmp_path / "never.gguf"
    with pytest.raises(ServerStartError, match="did not answer"):
        start_server(
            missing,
            chat_format="chatml",
            n_ctx=512,
            threads=1,
            startup_timeout_s=0,
            log_path=tmp_path / "server.log",
        )
    assert processes_mentioning(str(missing)) == []


def test_a_server_ends_when_the_test_runner_that_started_it_is_killed(tmp_path: Path) -> None:
    """SIGKILL leaves no ``finally`` to run: the parent-death signal alone ends the server."""
    import subprocess
    import sys

    ready = tmp_path / "ready"
    runner = (
        "import pathlib, sys, time\n"
        "from tests.support.openai_server import start_pinned_server\n"
        "server = start_pinned_server()\n"
        f"pathlib.Path({str(ready)!r}).write_text(str(server.process.pid))\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", runner], cwd=Path(__file__).parents[2])
    try:
        deadline = time.monotonic() + 180
        while not ready.exists() and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.2)
        server_pid = int(ready.read_text())
        assert process_alive(server_pid)
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 10
    while process_alive(server_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not process_alive(server_pid)
