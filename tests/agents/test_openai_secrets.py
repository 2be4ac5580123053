"""The openai-chat agent keeps its secrets: the key's value and the credentials of ``base_url``
reach no artifact (report.json, canonical.json, observations.json, report.md, report.html), no
cache entry and no stderr line, whatever the endpoint echoes and whatever shape the secret has;
an error response is never cached; a recorded URL holds no credentials (a URL with none is
recorded as written)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from agentic.agents.base import AgentStepError
from agentic.agents.chat_endpoint import Endpoint
from agentic.agents.llm_cache import LlmCache
from agentic.contract.credentials import SECRET
from agentic.contract.errors import ContractError
from agentic.fixture.loader import Fixture
from tests.agents.test_openai_chat import _closed_port, reply, run_lane, settings, write_config
from tests.support.fake_openai import FakeEndpoint, Reply, json_reply, serving, tool_call_reply

# No known token shape and no NAME=value around it: only its exact value can find it.
KEY = "Zq8xv7Lw0pN3mR5tQ2yK"
KEY_ENV = "AGENTIC_TEST_SECRET_KEY"
PASSWORD = "pw-Hq3ZtR8wLx"
QUERY_KEY = "qk-Vn4Jc9Tb2Ma"


def _echo_key(body: dict[str, Any]) -> Reply:
    return json_reply({"error": {"message": f"Incorrect API key provided: {KEY}"}}, 401)


def _everything_written(*folders: Path) -> bytes:
    return b"".join(
        p.read_bytes() for f in folders if f.exists() for p in f.rglob("*") if p.is_file()
    )


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY_ENV


def test_a_key_echoed_in_a_401_body_reaches_no_artifact_cache_entry_or_stderr(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str], key_env: str
) -> None:
    with serving(FakeEndpoint(policy=_echo_key)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url, api_key_env=key_env)
        code, err = run_lane(
            capsys, tiny_fixture, config, tmp_path / "out", "--llm-cache",
            str(tmp_path / "cache"), "--llm-cache-mode", "record",
        )  # fmt: skip
    assert code == 2  # every pair a harness error: llm_endpoint_failed
    assert "llm_endpoint_failed" in err
    assert KEY.encode() not in _everything_written(tmp_path / "out", tmp_path / "cache")
    assert KEY not in err


def test_the_echoed_key_is_named_as_a_placeholder_in_the_diagnostic(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str], key_env: str
) -> None:
    with serving(FakeEndpoint(policy=_echo_key)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url, api_key_env=key_env)
        run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    diagnostics = report["receipts"][0]["observations"]["diagnostics"]
    assert f"Incorrect API key provided: {SECRET}" in diagnostics[0]


def test_a_key_echoed_by_the_models_listing_is_not_on_stderr(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str], key_env: str
) -> None:
    with serving(FakeEndpoint(models_reply=_echo_key({}))) as endpoint:
        config = write_config(tmp_path, endpoint.base_url, api_key_env=key_env)
        code, err = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 2
    assert err.startswith("agentic: llm_endpoint_failed: ")
    assert KEY not in err


def test_a_key_quoted_in_a_model_reply_reaches_no_receipt(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str], key_env: str
) -> None:
    def quote_key(body: dict[str, Any]) -> Reply:
        return tool_call_reply("search", json.dumps({"query": f"is {KEY} valid"}))

    with serving(FakeEndpoint(policy=quote_key)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url, api_key_env=key_env)
        run_lane(
            capsys, tiny_fixture, config, tmp_path / "out", "--task", tiny_fixture.tasks[0].taskId
        )
    canonical = (tmp_path / "out" / "canonical.json").read_text(encoding="utf-8")
    assert KEY not in canonical
    assert f"is {SECRET} valid" in canonical


def test_an_error_response_is_never_written_to_the_cache(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(body: dict[str, Any]) -> Reply:
        return json_reply({"error": {"message": "boom"}}, 500)

    with serving(FakeEndpoint(policy=broken)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        run_lane(
            capsys, tiny_fixture, config, tmp_path / "out", "--llm-cache",
            str(tmp_path / "cache"), "--llm-cache-mode", "record",
        )  # fmt: skip
    recorded = [json.loads(p.read_bytes()) for p in (tmp_path / "cache").glob("*.json")]
    assert [entry["request"]["path"] for entry in recorded] == ["models"]  # the 200 listing only


def test_a_transport_failure_is_never_written_to_the_cache(tmp_path: Path) -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    transport = httpx2.MockTransport(refuse)
    endpoint = Endpoint(settings("http://e/v1"), LlmCache(tmp_path, "record"), transport=transport)
    with pytest.raises(ContractError):
        endpoint.post_json("chat/completions", {"model": "m"})
    assert list(tmp_path.iterdir()) == []


def test_a_key_echoed_in_an_error_excerpt_is_removed_before_the_excerpt_is_cut() -> None:
    # The key straddles the excerpt's end: cutting first would keep its first characters.
    text = "x" * 190 + KEY

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(401, text=text)

    transport = httpx2.MockTransport(handler)
    endpoint = Endpoint(settings("http://e/v1", api_key=KEY), None, transport=transport)
    with pytest.raises(AgentStepError) as caught:
        endpoint.post_json("chat/completions", {"model": "m"})
    assert KEY[:6] not in str(caught.value)


def test_a_key_echoed_base64_encoded_in_a_reply_is_cached_as_a_placeholder(
    tmp_path: Path,
) -> None:
    # A debugging endpoint echoes the credentials it was sent the way it decoded them.
    echoed = base64.b64encode(KEY.encode("utf-8")).decode("ascii")
    answer = reply({"role": "assistant", "content": f"you sent {echoed}"})

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=answer)

    transport = httpx2.MockTransport(handler)
    cache = LlmCache(tmp_path, "record")
    endpoint = Endpoint(settings("http://e/v1", api_key=KEY), cache, transport=transport)
    endpoint.post_json("chat/completions", {"model": "m"})
    [entry] = [p.read_text(encoding="utf-8") for p in tmp_path.glob("*.json")]
    assert echoed not in entry
    assert f"you sent {SECRET}" in entry


# --- credentials in base_url ----------------------------------------------------------------


def _with_password(base_url: str) -> str:
    return base_url.replace("http://", f"http://user:{PASSWORD}@", 1)


def test_a_base_url_with_userinfo_is_recorded_without_it_in_every_artifact(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint()) as endpoint:
        config = write_config(tmp_path, _with_password(endpoint.base_url))
        code, err = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
        plain = endpoint.base_url
    assert code == 0
    assert PASSWORD not in err
    assert PASSWORD.encode() not in _everything_written(tmp_path / "out")
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    recorded = report["environment"]["agentEndpoint"]["baseUrl"]
    assert recorded.startswith(plain.replace("http://", f"http://{SECRET}@") + "#sha256=")


def test_a_key_in_the_base_url_query_is_sent_with_every_request_and_recorded_nowhere(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeEndpoint()
    with serving(fake) as endpoint:
        config = write_config(tmp_path, f"{endpoint.base_url}?api-key={QUERY_KEY}")
        code, _ = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 0
    assert set(fake.queries) == {f"api-key={QUERY_KEY}"}
    assert QUERY_KEY.encode() not in _everything_written(tmp_path / "out")


def test_an_unreachable_endpoint_is_named_without_its_credentials(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, f"http://user:{PASSWORD}@127.0.0.1:{_closed_port()}/v1")
    code, err = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 2
    assert err.startswith("agentic: llm_endpoint_unreachable: ")
    assert PASSWORD not in err


def test_a_base_url_without_credentials_is_recorded_as_written(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint()) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        run_lane(capsys, tiny_fixture, config, tmp_path / "out")
        plain = endpoint.base_url
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert report["environment"]["agentEndpoint"]["baseUrl"] == plain


def test_a_plain_reply_is_unchanged_by_scrubbing() -> None:
    answer = reply({"role": "assistant", "content": "nothing secret here"})

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=answer)

    transport = httpx2.MockTransport(handler)
    endpoint = Endpoint(settings("http://e/v1", api_key=KEY), None, transport=transport)
    assert endpoint.post_json("chat/completions", {"model": "m"}) == answer
