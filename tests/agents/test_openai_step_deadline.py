"""The openai-chat agent's step deadline is a wall clock over the whole exchange: every attempt,
its headers and its body, and every 429 wait. A server trickling a valid reply one byte at a time
(tests/support/programs/trickling_http.py) never trips a per-read timeout; the deadline still
ends the step, as the agent's ``agent_timeout``, and a 429 wait that would pass it is not
begun."""

from __future__ import annotations

import time

import httpx2
import pytest

from agentic.agents.base import AgentStepError
from agentic.agents.chat_endpoint import Endpoint
from tests.agents.test_openai_chat import mock_endpoint, settings
from tests.support.fake_openai import FakeEndpoint, serving
from tests.support.programs.trickling_http import Trickle, trickling

DEADLINE_S = 1.5
# Far more than the deadline needs, far less than a trickle would hold a per-read timeout:
# a bound on the step's wall time, not a measure of it.
WITHIN_S = 4.0
BYTE_EVERY_S = 0.3


def _timed_failure(endpoint: Endpoint) -> tuple[AgentStepError, float]:
    started = time.monotonic()
    with pytest.raises(AgentStepError) as caught:
        endpoint.get_json("models")
    return caught.value, time.monotonic() - started


def _trickled(trickle_head: bool) -> tuple[AgentStepError, float]:
    with trickling(Trickle(BYTE_EVERY_S, trickle_head=trickle_head)) as server:
        endpoint = Endpoint(settings(server.base_url, timeout_s=DEADLINE_S), None)
        return _timed_failure(endpoint)


def test_a_body_trickled_a_byte_at_a_time_ends_the_step_at_its_deadline() -> None:
    failure, took = _trickled(trickle_head=False)
    assert (failure.failure_class, failure.code) == ("agent_error", "agent_timeout")
    assert took < WITHIN_S


def test_headers_trickled_a_byte_at_a_time_end_the_step_at_its_deadline() -> None:
    failure, took = _trickled(trickle_head=True)
    assert (failure.failure_class, failure.code) == ("agent_error", "agent_timeout")
    assert took < WITHIN_S


def test_a_step_past_its_deadline_names_the_deadline_with_retries_and_waits_included() -> None:
    failure, _ = _trickled(trickle_head=False)
    assert str(failure) == (
        "models: no answer within 1.5 s (the step deadline, retries and waits included)"
    )


def test_a_step_past_its_deadline_closes_its_connection() -> None:
    with trickling(Trickle(BYTE_EVERY_S)) as server:
        _timed_failure(Endpoint(settings(server.base_url, timeout_s=DEADLINE_S), None))
        assert server.closed.wait(timeout=WITHIN_S)


def _always_429(retry_after: str) -> Endpoint:
    return mock_endpoint(
        lambda request: httpx2.Response(429, headers={"Retry-After": retry_after}),
        timeout_s=DEADLINE_S,
    )


def test_a_rate_limit_wait_that_would_pass_the_deadline_is_not_begun() -> None:
    endpoint = _always_429("2")
    waits: list[float] = []
    endpoint.sleep = waits.append
    failure, _ = _timed_failure(endpoint)
    assert (failure.failure_class, failure.code) == ("harness_error", "llm_rate_limited")
    assert "past the step deadline of 1.5 s" in str(failure)
    assert waits == []


def test_rate_limit_waits_count_against_the_deadline() -> None:
    endpoint = _always_429("1")
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    endpoint.sleep = sleep
    failure, took = _timed_failure(endpoint)
    assert failure.code == "llm_rate_limited"
    assert waits == [1.0]  # the second would end past 1.5 s
    assert took < DEADLINE_S


def test_an_answer_within_the_deadline_is_read() -> None:
    with serving(FakeEndpoint()) as fake:
        endpoint = Endpoint(settings(fake.base_url, timeout_s=DEADLINE_S), None)
        listing = endpoint.get_json("models")
    assert listing["data"] == [{"id": "fake-model", "object": "model"}]
