"""The openai-chat agent against a scripted endpoint over real HTTP (tests/support/fake_openai):
its config, how a reply becomes a step, how the endpoint's failures end a pair, and the
record/replay cache. The same agent against llama.cpp's real server: test_openai_lane.py."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from agentic.agents.base import AgentStepError
from agentic.agents.chat_config import api_key, load_agent_config
from agentic.agents.chat_endpoint import MAX_RESPONSE_BYTES, Endpoint, EndpointSettings
from agentic.agents.llm_cache import Exchange, LlmCache, Response, open_cache
from agentic.agents.openai_chat import FINAL_TOOL, function_tools, step_text
from agentic.cli import main
from agentic.contract.errors import ContractError
from agentic.contract.json_access import array_at, object_at, str_at
from agentic.contract.pair_notes import RateLimited, decode
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from agentic.lane.journal import PAIRS, journal_folder
from agentic.runner.steps import StepError, parse_step
from agentic.tools import tool_definitions
from tests.support.fake_openai import (
    FakeEndpoint,
    Reply,
    config_text,
    json_reply,
    scripted_reply,
    serving,
    tool_call_reply,
)

LISTED = frozenset(str_at(t, "name") for t in tool_definitions())


def settings(base_url: str, **overrides: Any) -> EndpointSettings:
    values: dict[str, Any] = {
        "base_url": base_url,
        "api_key": None,
        "timeout_s": 5.0,
        "max_retries": 2,
    }
    values.update(overrides)
    return EndpointSettings(**values)


def mock_endpoint(handler: Any, **overrides: Any) -> Endpoint:
    transport = httpx2.MockTransport(handler)
    return Endpoint(settings("http://endpoint.test/v1", **overrides), None, transport=transport)


def reply(message: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": message}]}


def write_config(tmp_path: Path, base_url: str = "http://127.0.0.1:1/v1", **overrides: Any) -> Path:
    path = tmp_path / "agent.toml"
    path.write_text(config_text(base_url, **overrides), encoding="utf-8")
    return path


# --- the config --------------------------------------------------------------------------------


def test_a_config_with_the_documented_keys_loads(tmp_path: Path) -> None:
    path = write_config(tmp_path, "http://127.0.0.1:8080/v1", api_key_env="OPENAI_API_KEY")
    config = load_agent_config(path)
    assert (config.id, config.model, config.seed) == ("test-endpoint", "fake-model", 1)


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"colour": "blue"}, "colour"),
        ({"max_output_tokens": "many"}, "max_output_tokens"),
        ({"kind": "anthropic"}, "kind"),
        ({"base_url": "ftp://x"}, "base_url"),
        ({"extra_body": {"messages": []}}, "extra_body may not set messages"),
    ],
)
def test_a_bad_config_is_one_line_naming_the_key(
    tmp_path: Path, overrides: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(ContractError) as caught:
        values = {"base_url": "http://127.0.0.1:1/v1", **overrides}
        load_agent_config(write_config(tmp_path, **values))
    assert caught.value.code == "invalid_agent_config"
    assert fragment in caught.value.message
    assert "\n" not in caught.value.message


def test_a_config_that_is_not_toml_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "agent.toml"
    path.write_text("id = [unclosed\n", encoding="utf-8")
    with pytest.raises(ContractError) as caught:
        load_agent_config(path)
    assert caught.value.code == "invalid_agent_config"


def test_a_missing_api_key_variable_is_refused_naming_the_variable(tmp_path: Path) -> None:
    config = load_agent_config(write_config(tmp_path, "http://x/v1", api_key_env="MY_KEY"))
    with pytest.raises(ContractError) as caught:
        api_key(config, {})
    assert caught.value.code == "llm_api_key_missing"
    assert "MY_KEY" in caught.value.message


def test_the_key_is_read_from_the_named_variable(tmp_path: Path) -> None:
    config = load_agent_config(write_config(tmp_path, "http://x/v1", api_key_env="MY_KEY"))
    assert api_key(config, {"MY_KEY": "secret"}) == "secret"


# --- what the model is offered -----------------------------------------------------------------


def test_the_offered_functions_are_the_allowed_tools_then_final_answer(
    tiny_fixture: Fixture,
) -> None:
    task = tiny_fixture.tasks[0]
    names = [str_at(f, "function", "name") for f in function_tools(tool_definitions(), task)]
    assert names == [*[t for t in task.allowedTools if t in LISTED], FINAL_TOOL]


def test_final_answer_takes_the_final_envelope_schema(tiny_fixture: Fixture) -> None:
    final = object_at(function_tools(tool_definitions(), tiny_fixture.tasks[0])[-1], "function")
    assert array_at(final, "parameters", "required") == [
        "schemaVersion",
        "claims",
        "gaps",
        "abstained",
        "stopReason",
    ]


# --- what a reply becomes ----------------------------------------------------------------------


def _tool_message(name: str, arguments: str) -> dict[str, Any]:
    call = {"id": "c", "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def test_a_tool_call_becomes_a_tool_step(tiny_fixture: Fixture) -> None:
    text = step_text(reply(_tool_message("search", '{"query": "alpha"}')))
    step = parse_step(text, tiny_fixture.tasks[0], LISTED)
    assert (step.kind, getattr(step, "toolName", None)) == ("tool", "search")


def test_a_final_answer_call_becomes_the_final_step() -> None:
    envelope = (
        '{"schemaVersion":"1.0","claims":[],"gaps":[],"abstained":true,"stopReason":"abstained"}'
    )
    assert json.loads(step_text(reply(_tool_message(FINAL_TOOL, envelope))))["kind"] == "final"


def test_plain_json_content_is_taken_as_the_envelope() -> None:
    content = (
        '{"schemaVersion":"1.0","claims":[],"gaps":[],"abstained":true,"stopReason":"abstained"}'
    )
    step = json.loads(step_text(reply({"role": "assistant", "content": content})))
    assert step == {"kind": "final", "envelope": json.loads(content)}


def test_arguments_that_are_not_json_are_scored_malformed(tiny_fixture: Fixture) -> None:
    text = step_text(reply(_tool_message("search", '{"query": "alpha"')))
    with pytest.raises(StepError) as caught:
        parse_step(text, tiny_fixture.tasks[0], LISTED)
    assert caught.value.code == "malformed_agent_json"


def test_arguments_failing_the_tool_schema_are_an_invalid_action(tiny_fixture: Fixture) -> None:
    text = step_text(reply(_tool_message("search", '{"query": 7}')))
    with pytest.raises(StepError) as caught:
        parse_step(text, tiny_fixture.tasks[0], LISTED)
    assert caught.value.code == "invalid_agent_action"


def test_a_call_of_a_tool_not_offered_is_disallowed(tiny_fixture: Fixture) -> None:
    text = step_text(reply(_tool_message("delete_everything", "{}")))
    with pytest.raises(StepError) as caught:
        parse_step(text, tiny_fixture.tasks[0], LISTED)
    assert caught.value.code == "disallowed_tool"


def test_two_tool_calls_in_one_reply_are_no_step(tiny_fixture: Fixture) -> None:
    message = _tool_message("search", '{"query": "a"}')
    message["tool_calls"] = message["tool_calls"] * 2
    with pytest.raises(StepError) as caught:
        parse_step(step_text(reply(message)), tiny_fixture.tasks[0], LISTED)
    assert caught.value.code == "invalid_agent_step"


@pytest.mark.parametrize(
    "body",
    [{}, {"choices": []}, {"choices": [{"index": 0}]}, reply({"role": "assistant"})],
    ids=["no-choices-key", "empty-choices", "no-message", "neither-calls-nor-content"],
)
def test_a_reply_without_a_usable_message_is_an_invalid_response(body: dict[str, Any]) -> None:
    with pytest.raises(AgentStepError) as caught:
        step_text(body)
    assert (caught.value.failure_class, caught.value.code) == (
        "harness_error",
        "llm_response_invalid",
    )


# --- the endpoint's failures -------------------------------------------------------------------


def _failure(endpoint: Endpoint) -> AgentStepError:
    with pytest.raises(AgentStepError) as caught:
        endpoint.post_json("chat/completions", {"model": "m"})
    return caught.value


@pytest.mark.parametrize("status", [400, 401, 404, 500, 503])
def test_a_status_that_is_not_2xx_is_an_endpoint_failure(status: int) -> None:
    failure = _failure(mock_endpoint(lambda request: httpx2.Response(status, text="nope")))
    assert (failure.failure_class, failure.code) == ("harness_error", "llm_endpoint_failed")
    assert f"HTTP {status}" in str(failure)


def test_a_body_that_is_not_json_is_an_invalid_response() -> None:
    failure = _failure(mock_endpoint(lambda request: httpx2.Response(200, text="<html>")))
    assert failure.code == "llm_response_invalid"


def test_an_oversized_body_is_an_invalid_response() -> None:
    big = b"[" + b"0," * MAX_RESPONSE_BYTES + b"0]"
    failure = _failure(mock_endpoint(lambda request: httpx2.Response(200, content=big)))
    assert failure.code == "llm_response_invalid"
    assert "cap" in str(failure)


def test_an_endpoint_that_does_not_answer_in_time_is_an_agent_timeout() -> None:
    def hang(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("read timed out", request=request)

    failure = _failure(mock_endpoint(hang))
    assert (failure.failure_class, failure.code) == ("agent_error", "agent_timeout")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_endpoint_that_is_down_ends_the_run() -> None:
    # Every later pair would end the same way: the run stops (exit 2) and --resume finishes it.
    endpoint = Endpoint(settings(f"http://127.0.0.1:{_closed_port()}/v1"), None)
    try:
        with pytest.raises(ContractError) as stopped:
            endpoint.post_json("chat/completions", {"model": "m", "messages": []})
    finally:
        endpoint.close()
    assert stopped.value.code == "llm_endpoint_unreachable"


def test_a_rate_limit_is_waited_out_and_noted() -> None:
    answers = iter(
        [httpx2.Response(429, headers={"Retry-After": "2"}), httpx2.Response(200, json={"a": 1})]
    )
    waits: list[float] = []
    endpoint = mock_endpoint(lambda request: next(answers))
    endpoint.sleep = waits.append
    assert endpoint.post_json("chat/completions", {}) == {"a": 1}
    assert waits == [2.0]
    assert [decode(note) for note in endpoint.notes] == [RateLimited(waitedS=2.0, attempt=1)]


def test_a_rate_limit_beyond_the_retries_ends_the_pair() -> None:
    endpoint = mock_endpoint(lambda request: httpx2.Response(429, headers={"Retry-After": "0"}))
    endpoint.sleep = lambda seconds: None
    assert _failure(endpoint).code == "llm_rate_limited"


def test_a_rate_limit_longer_than_the_wait_budget_is_not_waited() -> None:
    endpoint = mock_endpoint(lambda request: httpx2.Response(429, headers={"Retry-After": "3600"}))
    waits: list[float] = []
    endpoint.sleep = waits.append
    assert _failure(endpoint).code == "llm_rate_limited"
    assert waits == []


# --- the record/replay cache -------------------------------------------------------------------

EXCHANGE = Exchange("POST", "chat/completions", {"model": "m", "messages": [], "stream": False})


def test_transport_only_fields_do_not_change_the_key() -> None:
    assert (
        EXCHANGE.key() == Exchange("POST", "chat/completions", {"model": "m", "messages": []}).key()
    )


def test_what_decides_the_answer_changes_the_key() -> None:
    other = Exchange("POST", "chat/completions", {"model": "n", "messages": []})
    assert EXCHANGE.key() != other.key()


def test_a_recorded_response_replays_as_it_was(tmp_path: Path) -> None:
    LlmCache(tmp_path, "record").store(EXCHANGE, Response(200, '{"x": 1}'))
    assert LlmCache(tmp_path, "reuse").load(EXCHANGE) == Response(200, '{"x": 1}')


def test_replay_answers_without_a_connection(tmp_path: Path) -> None:
    LlmCache(tmp_path, "record").store(EXCHANGE, Response(200, '{"x": 1}'))

    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise AssertionError("replay opened a connection")

    transport = httpx2.MockTransport(refuse)
    endpoint = Endpoint(settings("http://e/v1"), LlmCache(tmp_path, "reuse"), transport=transport)
    assert endpoint.exchange(EXCHANGE) == {"x": 1}


def test_a_request_missing_in_replay_is_a_cache_miss(tmp_path: Path) -> None:
    with pytest.raises(ContractError) as caught:
        LlmCache(tmp_path, "reuse").load(EXCHANGE)
    assert caught.value.code == "llm_cache_miss"


def test_an_entry_whose_body_fails_its_hash_is_refused(tmp_path: Path) -> None:
    cache = LlmCache(tmp_path, "record")
    cache.store(EXCHANGE, Response(200, '{"x": 1}'))
    path = cache.path(EXCHANGE)
    path.write_bytes(path.read_bytes().replace(b'{\\"x\\": 1}', b'{\\"x\\": 2}'))
    with pytest.raises(ContractError) as caught:
        LlmCache(tmp_path, "reuse").load(EXCHANGE)
    assert caught.value.code == "llm_cache_corrupt"
    assert "sha256" in caught.value.message


def test_an_entry_with_a_duplicate_key_is_refused(tmp_path: Path) -> None:
    cache = LlmCache(tmp_path, "record")
    cache.store(EXCHANGE, Response(200, "{}"))
    path = cache.path(EXCHANGE)
    path.write_bytes(path.read_bytes().replace(b'{"body"', b'{"status":200,"body"', 1))
    with pytest.raises(ContractError) as caught:
        LlmCache(tmp_path, "reuse").load(EXCHANGE)
    assert caught.value.code == "duplicate_key"  # the strict parser's code, as for every input


def test_replay_of_a_missing_cache_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ContractError) as caught:
        open_cache(tmp_path / "nowhere", "reuse")
    assert caught.value.code == "llm_cache_miss"


# --- whole lanes through the CLI ---------------------------------------------------------------


def run_lane(
    capsys: pytest.CaptureFixture[str], fixture: Fixture, config: Path, out: Path, *extra: str
) -> tuple[int, str]:
    code = main(
        [
            "run",
            "--fixture",
            str(fixture.root),
            "--agent-config",
            str(config),
            "--adapter",
            "lexical",
            "--lifecycle",
            "cold",
            "--promote",
            "none",
            "--quiet",
            "--out",
            str(out),
            *extra,
        ]
    )
    return code, capsys.readouterr().err


def test_a_lane_runs_over_http_to_schema_valid_receipts(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint()) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        code, _ = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 0
    assert main(["validate", "report", str(tmp_path / "out" / "report.json")]) == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert report["environment"]["agentId"] == "test-endpoint"
    assert report["environment"]["agentEndpoint"]["endpointModels"] == ["fake-model"]
    assert {r["canonical"]["agentCalls"] for r in report["receipts"]} == {1}


def test_the_replayed_lane_is_byte_identical_to_the_recorded_one_with_the_endpoint_down(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    with serving(FakeEndpoint()) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        recorded, _ = run_lane(
            capsys, tiny_fixture, config, tmp_path / "a", "--llm-cache", str(cache),
            "--llm-cache-mode", "record",
        )  # fmt: skip
    replayed, _ = run_lane(
        capsys, tiny_fixture, config, tmp_path / "b", "--llm-cache", str(cache),
        "--llm-cache-mode", "reuse",
    )  # fmt: skip
    assert (recorded, replayed) == (0, 0)
    first = (tmp_path / "a" / "canonical.json").read_bytes()
    assert (tmp_path / "b" / "canonical.json").read_bytes() == first


def live_and_cached(
    capsys: pytest.CaptureFixture[str], fixture: Fixture, tmp_path: Path
) -> tuple[Path, Path]:
    """The same lane twice: live (``live/``), then recorded into a cache (``cached/``)."""
    with serving(FakeEndpoint()) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        run_lane(capsys, fixture, config, tmp_path / "live")
        run_lane(
            capsys, fixture, config, tmp_path / "cached", "--llm-cache",
            str(tmp_path / "cache"), "--llm-cache-mode", "record",
        )  # fmt: skip
    return tmp_path / "live", tmp_path / "cached"


def test_a_live_run_and_a_cached_run_have_different_agent_fingerprints(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    live_and_cached(capsys, tiny_fixture, tmp_path)

    def model_fingerprint(folder: str) -> str:
        report = json.loads((tmp_path / folder / "report.json").read_text(encoding="utf-8"))
        return str(report["receipts"][0]["canonical"]["fingerprints"]["model"])

    assert model_fingerprint("live") != model_fingerprint("cached")


def test_replay_of_an_unrecorded_request_is_exit_2_with_one_line(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cache").mkdir()
    config = write_config(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1")
    code, err = run_lane(
        capsys, tiny_fixture, config, tmp_path / "out", "--llm-cache", str(tmp_path / "cache"),
        "--llm-cache-mode", "reuse",
    )  # fmt: skip
    assert code == 2
    assert err.startswith("agentic: llm_cache_miss: ")
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_an_endpoint_gone_mid_run_stops_it_and_resume_finishes_it(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No pair is run against an endpoint that is gone: the run ends at the first request that
    cannot reach it, its finished pairs journaled, and --resume runs only the others."""
    answered: list[JsonObject] = []
    gone = threading.Event()

    def until_gone(body: JsonObject) -> Reply:
        if gone.is_set() or len(answered) == 2:  # the first pair's search and answer
            gone.set()
            raise ConnectionAbortedError("the endpoint went away")  # the connection drops
        answered.append(body)
        return scripted_reply(body)

    out = tmp_path / "out"
    with serving(FakeEndpoint(policy=until_gone)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        code, err = run_lane(capsys, tiny_fixture, config, out)
        assert code == 2
        assert err.splitlines()[-1].startswith("agentic: llm_endpoint_unreachable: ")
        assert not (out / "report.json").exists()
        assert len(list((journal_folder(out) / PAIRS).glob("*.json"))) == 1
        gone.clear()
        answered.append({})  # from now on every request is answered
        code, _ = run_lane(capsys, tiny_fixture, config, out, "--resume")
    assert code == 0
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert len(report["receipts"]) == len(tiny_fixture.tasks)
    codes = {(r["canonical"]["failure"] or {}).get("code") for r in report["receipts"]}
    assert "llm_endpoint_unreachable" not in codes


def test_an_endpoint_down_before_the_lane_is_exit_2_with_one_line(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1")
    code, err = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 2
    assert err.startswith("agentic: llm_endpoint_unreachable: ")
    assert err.count("\n") == 1


def _failing_after_models(status: int) -> Any:
    def policy(body: dict[str, Any]) -> Reply:
        return json_reply({"error": {"message": "boom"}}, status)

    return policy


def test_an_endpoint_failing_mid_lane_ends_each_pair_as_a_harness_error(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint(policy=_failing_after_models(500))) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        code, err = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 2
    assert "llm_endpoint_failed" in err
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    failures = {(r["canonical"]["failure"]["class"], r["canonical"]["failure"]["code"])
                for r in report["receipts"]}  # fmt: skip
    assert failures == {("harness_error", "llm_endpoint_failed")}


def test_a_model_writing_prose_instead_of_a_step_is_an_agent_error(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def prose(body: dict[str, Any]) -> Reply:
        return json_reply(reply({"role": "assistant", "content": "I think the answer is 42."}))

    with serving(FakeEndpoint(policy=prose)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        code, _ = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    codes = {r["canonical"]["failure"]["code"] for r in report["receipts"]}
    assert codes == {"malformed_agent_json"}


def test_the_request_carries_the_configured_sampling_and_the_public_task_only(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeEndpoint(policy=scripted_reply)
    with serving(fake) as endpoint:
        config = write_config(tmp_path, endpoint.base_url, extra_body={"top_k": 1})
        run_lane(
            capsys, tiny_fixture, config, tmp_path / "out", "--task", tiny_fixture.tasks[0].taskId
        )
    first = fake.requests[0]
    assert (first["temperature"], first["seed"], first["max_tokens"], first["top_k"]) == (
        0.0, 1, 256, 1,
    )  # fmt: skip
    text = json.dumps(fake.requests)
    oracle = tiny_fixture.oracle(tiny_fixture.tasks[0].taskId)
    assert all(canary not in text for canary in oracle.leakCanaries)


def test_a_tool_call_reply_over_http_reaches_the_adapter(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = iter([tool_call_reply("search", '{"query": "x"}')])

    def once_then_prose(body: dict[str, Any]) -> Reply:
        return next(calls, json_reply(reply({"role": "assistant", "content": "done"})))

    with serving(FakeEndpoint(policy=once_then_prose)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        run_lane(
            capsys, tiny_fixture, config, tmp_path / "out", "--task", tiny_fixture.tasks[0].taskId
        )
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert report["receipts"][0]["canonical"]["calls"][0]["toolName"] == "search"


def test_report_md_says_a_cached_run_is_reproducible_and_a_live_one_how_to_make_it_so(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    live_folder, cached_folder = live_and_cached(capsys, tiny_fixture, tmp_path)
    live = (live_folder / "report.md").read_text(encoding="utf-8")
    cached = (cached_folder / "report.md").read_text(encoding="utf-8")
    assert "Reproducibility: live, local endpoint" in live
    assert "Reproducibility: reproducible: every answer is in the content-addressed" in cached


def test_a_missing_key_variable_stops_the_run_before_any_pair(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.delenv("AGENTIC_TEST_KEY", raising=False)
    with serving(FakeEndpoint()) as endpoint:
        config = write_config(tmp_path, endpoint.base_url, api_key_env="AGENTIC_TEST_KEY")
        code, err = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
        assert endpoint.requests == []
    assert code == 2
    assert err == (
        "agentic: llm_api_key_missing: agent test-endpoint: the variable AGENTIC_TEST_KEY "
        "(api_key_env) is not set\n"
    )


def test_the_key_travels_as_a_bearer_header_and_nowhere_in_the_report(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("AGENTIC_TEST_KEY", "sk-test-0123456789")
    fake = FakeEndpoint()
    with serving(fake) as endpoint:
        config = write_config(tmp_path, endpoint.base_url, api_key_env="AGENTIC_TEST_KEY")
        code, _ = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 0
    assert set(fake.authorizations) == {"Bearer sk-test-0123456789"}
    for path in (tmp_path / "out").iterdir():
        assert b"sk-test-0123456789" not in path.read_bytes()


def _agent_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("agentic-")]


def test_a_hung_endpoint_times_the_pair_out_and_leaves_no_thread_behind(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def hang(body: dict[str, Any]) -> Reply:
        time.sleep(2.0)
        return scripted_reply(body)

    before = _agent_threads()
    with serving(FakeEndpoint(policy=hang)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url, timeout_s=0.3)
        code, _ = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert {r["canonical"]["failure"]["code"] for r in report["receipts"]} == {"agent_timeout"}
    deadline = time.monotonic() + 10
    while _agent_threads() != before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _agent_threads() == before


def test_naming_the_openai_chat_kind_beside_its_config_runs_the_configs_agent(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint()) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        code, _ = run_lane(capsys, tiny_fixture, config, tmp_path / "out", "--agent", "openai-chat")
    assert code == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert report["environment"]["agentId"] == "test-endpoint"
