"""``agentic catalog --agent-config FILE --check``: an openai-chat endpoint tried before a long run
(its models, one timed chat request, the grammar or the tool call its protocol needs), against a
scripted endpoint over real HTTP on 127.0.0.1. Exit 0 when all is well, else 2 with one line."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic.cli import main
from agentic.contract.json_access import objects_at, str_at
from agentic.contract.strict_json import JsonObject
from tests.support.fake_openai import (
    MODEL_ID,
    FakeEndpoint,
    Reply,
    config_text,
    json_reply,
    serving,
    tool_call_reply,
)


def text_reply(text: str) -> Reply:
    message = {"role": "assistant", "content": text}
    return json_reply({"id": "x", "choices": [{"index": 0, "message": message}]})


def obedient(body: JsonObject) -> Reply:
    """A server that applies the grammar and calls an offered tool."""
    if "grammar" in body:
        return text_reply("yes")
    if "tools" in body:
        return tool_call_reply("ping", "{}")
    return text_reply("OK")


def plain(body: JsonObject) -> Reply:
    """A server that ignores both the grammar and the tools: text, always."""
    return text_reply("OK")


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    with serving(FakeEndpoint(policy=obedient)) as served:
        yield served


def check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base_url: str, **overrides: Any
) -> tuple[int, str, str]:
    path = tmp_path / "agent.toml"
    path.write_text(config_text(base_url, **overrides), encoding="utf-8")
    code = main(["catalog", "--agent-config", str(path), "--check"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_an_endpoint_that_serves_the_model_and_obeys_the_grammar_checks_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], endpoint: FakeEndpoint
) -> None:
    code, out, err = check(tmp_path, capsys, endpoint.base_url, protocol="rendered")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:4] == [
        "agent test-endpoint (" + str(tmp_path / "agent.toml") + "):",
        f"  endpoint: {endpoint.base_url}",
        f"  models: {MODEL_ID}",
        f"  model {MODEL_ID}: served",
    ]
    assert lines[4].startswith("  chat request: ")
    assert lines[4].endswith(" s round trip, reply 'OK'")
    assert lines[5].startswith('  grammar root ::= "yes" | "no": obeyed (')
    assert lines[6] == "  ok"


def test_the_grammar_request_is_tiny_and_carries_the_grammar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], endpoint: FakeEndpoint
) -> None:
    check(tmp_path, capsys, endpoint.base_url, protocol="rendered")
    chat, grammar = endpoint.requests
    assert grammar["grammar"] == 'root ::= "yes" | "no"'
    assert (chat["max_tokens"], grammar["max_tokens"]) == (8, 8)
    assert "grammar" not in chat and "tools" not in grammar


def test_a_model_the_endpoint_does_not_serve_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], endpoint: FakeEndpoint
) -> None:
    code, out, err = check(tmp_path, capsys, endpoint.base_url, model="another-model")
    assert code == 2
    assert "  model another-model: not served\n" in out
    assert err == (
        f"agentic: agent test-endpoint failed its check: model not served: {endpoint.base_url} "
        f"serves {MODEL_ID}, not 'another-model' (the config's model)\n"
    )
    assert endpoint.requests == []  # no chat request to a model that is not there


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_endpoint_fails_the_check_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base_url = f"http://127.0.0.1:{free_port()}/v1"
    code, _, err = check(tmp_path, capsys, base_url)
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith(
        "agentic: agent test-endpoint failed its check: endpoint unreachable (listing its "
        f"models): {base_url}: "
    )


def test_an_endpoint_that_ignores_the_grammar_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint(policy=plain)) as endpoint:
        code, out, err = check(tmp_path, capsys, endpoint.base_url, protocol="rendered")
    assert code == 2
    assert "obeyed" not in out and '  grammar root ::= "yes" | "no": ignored (' in out
    assert err.startswith(
        "agentic: agent test-endpoint failed its check: grammar ignored: a request whose "
        "grammar admits only yes or no got 'OK'; "
    )


def test_a_functions_endpoint_that_calls_the_offered_tool_checks_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], endpoint: FakeEndpoint
) -> None:
    code, out, _ = check(tmp_path, capsys, endpoint.base_url)
    assert code == 0
    assert "  tool call (one function offered): made (" in out
    offered = objects_at(endpoint.requests[-1], "tools")
    assert [str_at(tool, "function", "name") for tool in offered] == ["ping"]


def test_a_functions_endpoint_that_answers_the_tool_with_text_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint(policy=plain)) as endpoint:
        code, _, err = check(tmp_path, capsys, endpoint.base_url)
    assert code == 2
    assert err.startswith(
        "agentic: agent test-endpoint failed its check: no tool call: offered one function, "
        "the model answered 'OK'; "
    )


def test_the_endpoint_is_shown_without_its_credentials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], endpoint: FakeEndpoint
) -> None:
    base_url = endpoint.base_url.replace("http://", "http://user:hunter2secret@")
    code, out, _ = check(tmp_path, capsys, base_url)
    assert code == 0
    assert "hunter2secret" not in out


def test_without_check_a_configured_agent_is_listed_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "agent.toml"
    path.write_text(config_text("http://127.0.0.1:9/v1"), encoding="utf-8")
    assert main(["catalog", "--agent-config", str(path)]) == 0
    assert f"  test-endpoint (config: {path}) not checked\n" in capsys.readouterr().out
