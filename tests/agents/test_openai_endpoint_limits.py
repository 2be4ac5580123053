"""What the openai-chat agent reads from its endpoint, and from its LLM cache, is bounded the same
way: a reply is streamed and reading stops at the 4 MiB cap; every reply goes through the strict,
depth-bounded JSON reader; a replayed entry is a regular file (never a link) held to the live
caps; each pair's observations name the cache entries it used, so replays from different caches
never look the same."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from agentic.agents.base import AgentStepError
from agentic.agents.chat_endpoint import MAX_RESPONSE_BYTES
from agentic.agents.llm_cache import (
    ENTRY_FORMAT,
    MAX_ENTRY_BYTES,
    Exchange,
    LlmCache,
    Response,
    unused_entries,
    used_keys,
)
from agentic.contract.canonical import canonical_bytes, sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.pair_notes import LlmAnswers, notes_of
from agentic.fixture.loader import Fixture
from tests.agents.test_openai_chat import mock_endpoint, run_lane, write_config
from tests.support.fake_openai import FakeEndpoint, Reply, scripted_reply, serving

CHUNK = 1024 * 1024
DEEP = 100_000  # far past the strict reader's depth and Python's recursion limit
EXCHANGE = Exchange("POST", "chat/completions", {"model": "m", "messages": []})


def _failure(endpoint: Any, path: str = "chat/completions") -> AgentStepError:
    with pytest.raises(AgentStepError) as caught:
        if path == "models":
            endpoint.get_json("models")
        else:
            endpoint.post_json(path, {"model": "m"})
    return caught.value


# --- the reply cap: streamed, reading stops there ----------------------------------------------


def test_a_reply_over_the_cap_is_read_no_further_than_the_cap() -> None:
    sent: list[int] = []

    async def endless() -> AsyncIterator[bytes]:
        for _ in range(64):  # 64 MiB on offer
            sent.append(CHUNK)
            yield b" " * CHUNK

    failure = _failure(mock_endpoint(lambda request: httpx2.Response(200, content=endless())))
    assert failure.code == "llm_response_invalid"
    assert "cap" in str(failure)
    assert sum(sent) <= MAX_RESPONSE_BYTES + CHUNK


def test_a_reply_announcing_more_than_the_cap_is_refused_unread() -> None:
    sent: list[int] = []

    async def body() -> AsyncIterator[bytes]:
        sent.append(CHUNK)
        yield b"{}"

    headers = {"Content-Length": str(MAX_RESPONSE_BYTES + 1)}
    failure = _failure(
        mock_endpoint(lambda request: httpx2.Response(200, headers=headers, content=body()))
    )
    assert failure.code == "llm_response_invalid"
    assert sent == []


def test_a_reply_at_the_cap_is_read_whole() -> None:
    padding = " " * (MAX_RESPONSE_BYTES - len('{"a":1}'))
    endpoint = mock_endpoint(lambda request: httpx2.Response(200, text='{"a":1}' + padding))
    assert endpoint.post_json("chat/completions", {}) == {"a": 1}


# --- strict, depth-bounded JSON ----------------------------------------------------------------


def _deep() -> str:
    return '{"data": ' + "[" * DEEP + "]" * DEEP + "}"


def test_a_deeply_nested_models_listing_is_an_invalid_response_not_a_recursion_error() -> None:
    failure = _failure(mock_endpoint(lambda request: httpx2.Response(200, text=_deep())), "models")
    assert (failure.failure_class, failure.code) == ("harness_error", "llm_response_invalid")


def test_a_reply_with_a_duplicate_key_is_an_invalid_response() -> None:
    body = '{"choices": [], "choices": [{"message": {"content": "x"}}]}'
    failure = _failure(mock_endpoint(lambda request: httpx2.Response(200, text=body)))
    assert failure.code == "llm_response_invalid"
    assert "duplicate key" in str(failure)


def test_a_deeply_nested_models_listing_ends_the_run_with_one_line_and_exit_2(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep: Reply = (200, {"Content-Type": "application/json"}, _deep().encode())
    with serving(FakeEndpoint(models_reply=deep)) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        code, err = run_lane(capsys, tiny_fixture, config, tmp_path / "out")
    assert code == 2
    assert err.startswith("agentic: llm_response_invalid: ")
    assert err.count("\n") == 1


# --- replay holds an entry to what live mode accepts --------------------------------------------


def _write_entry(folder: Path, status: int, body: str) -> Path:
    """An intact entry (key, request and body hash all right) that ``store`` would not write."""
    entry = {
        "format": ENTRY_FORMAT,
        "key": EXCHANGE.key(),
        "request": EXCHANGE.keyed(),
        "status": status,
        "body": body,
        "bodySha256": sha256_hex(body.encode("utf-8")),
    }
    path = folder / f"{EXCHANGE.key()}.json"
    path.write_bytes(canonical_bytes(entry))
    return path


def _replay_failure(folder: Path) -> ContractError:
    with pytest.raises(ContractError) as caught:
        LlmCache(folder, "reuse").load(EXCHANGE)
    return caught.value


def test_a_symlinked_cache_entry_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (cache := tmp_path / "cache").mkdir()
    target = _write_entry(elsewhere, 200, "{}")
    (cache / target.name).symlink_to(target)
    failure = _replay_failure(cache)
    assert failure.code == "llm_cache_corrupt"
    assert "link" in failure.message


def test_a_replayed_body_over_the_live_cap_is_refused(tmp_path: Path) -> None:
    _write_entry(tmp_path, 200, '{"a":"' + "x" * MAX_RESPONSE_BYTES + '"}')
    failure = _replay_failure(tmp_path)
    assert failure.code == "llm_cache_corrupt"
    assert "cap" in failure.message


def test_an_entry_over_the_entry_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / f"{EXCHANGE.key()}.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_ENTRY_BYTES + 1)  # sparse: no disk, and never read
    assert _replay_failure(tmp_path).code == "input_too_large"


def test_a_recorded_error_response_is_refused_on_replay(tmp_path: Path) -> None:
    _write_entry(tmp_path, 401, '{"error": "bad key"}')
    failure = _replay_failure(tmp_path)
    assert failure.code == "llm_cache_corrupt"
    assert "HTTP 401" in failure.message


def test_a_recorded_context_refusal_replays_as_it_was_answered(tmp_path: Path) -> None:
    body = '{"error": {"code": "context_length_exceeded"}}'
    _write_entry(tmp_path, 400, body)
    assert LlmCache(tmp_path, "reuse").load(EXCHANGE) == Response(400, body)


def test_a_recorded_400_that_is_no_context_refusal_is_refused_on_replay(tmp_path: Path) -> None:
    _write_entry(tmp_path, 400, '{"error": "unknown model"}')
    assert _replay_failure(tmp_path).code == "llm_cache_corrupt"


def test_storing_an_error_response_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="never recorded"):
        LlmCache(tmp_path, "record").store(EXCHANGE, Response(500, "{}"))


# --- which entries a pair used ------------------------------------------------------------------


def _tagged(tag: str) -> Any:
    """The scripted policy, its replies carrying ``tag`` where no step looks (the reply id)."""

    def policy(body: dict[str, Any]) -> Reply:
        status, headers, data = scripted_reply(body)
        return status, headers, json.dumps({**json.loads(data), "id": tag}).encode()

    return policy


def _record_then_replay(
    capsys: pytest.CaptureFixture[str], fixture: Fixture, tmp_path: Path, tag: str
) -> tuple[Path, Path]:
    cache = tmp_path / f"cache-{tag}"
    task = fixture.tasks[0].taskId
    with serving(FakeEndpoint(policy=_tagged(tag))) as endpoint:
        config = write_config(tmp_path, endpoint.base_url)
        run_lane(
            capsys, fixture, config, tmp_path / f"rec-{tag}", "--task", task,
            "--llm-cache", str(cache), "--llm-cache-mode", "record",
        )  # fmt: skip
    run_lane(
        capsys, fixture, config, tmp_path / f"rep-{tag}", "--task", task,
        "--llm-cache", str(cache), "--llm-cache-mode", "reuse",
    )  # fmt: skip
    return tmp_path / f"rec-{tag}", tmp_path / f"rep-{tag}"


def _results(out: Path) -> str:
    return str(json.loads((out / "report.json").read_text(encoding="utf-8"))["resultsFingerprint"])


def _cache_notes(out: Path) -> list[str]:
    """The digest of each pair's cache entries, from its ``llm_answers`` note."""
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    diagnostics = [n for r in report["receipts"] for n in r["observations"]["diagnostics"]]
    return [summary.digest for summary in notes_of(diagnostics, LlmAnswers)]


def test_replays_from_caches_differing_only_where_no_receipt_looks_record_different_digests(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, first = _record_then_replay(capsys, tiny_fixture, tmp_path, "one")
    _, second = _record_then_replay(capsys, tiny_fixture, tmp_path, "two")
    assert _results(first) == _results(second)  # the receipts cannot tell them apart ...
    assert _cache_notes(first) != _cache_notes(second)  # ... the observations can


def test_a_replay_records_the_digest_its_recording_recorded(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded, replayed = _record_then_replay(capsys, tiny_fixture, tmp_path, "one")
    assert _cache_notes(recorded) == _cache_notes(replayed)
    assert len(_cache_notes(replayed)) == 1


def _diagnostics(out: Path) -> list[str]:
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return [note for r in report["receipts"] for note in r["observations"]["diagnostics"]]


def test_a_lanes_notes_name_every_turn_it_used_and_only_stale_turns_are_unused(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded, replayed = _record_then_replay(capsys, tiny_fixture, tmp_path, "one")
    cache = tmp_path / "cache-one"
    turns = {p.stem for p in cache.glob("*.json") if json.loads(p.read_bytes())["request"]["body"]}
    unasked = Exchange("POST", "chat/completions", {"messages": []})  # asked by no pair
    LlmCache(cache, "record").store(unasked, Response(200, "{}"))

    assert used_keys(_diagnostics(recorded)) == used_keys(_diagnostics(replayed)) == turns
    assert unused_entries(cache, turns) == [cache / f"{unasked.key()}.json"]
