"""One OpenAI-compatible endpoint, as the openai-chat agent talks to it: JSON over HTTP with
httpx2 (the client the MCP SDK already brings), through the record/replay cache.

What can go wrong between the agent and its model is classified here, once, as ``AgentStepError``
with a contract failure class and a code (the runner ends the pair with it):

- the endpoint cannot be reached, or does not answer in time: ``llm_endpoint_unreachable`` /
  ``agent_timeout``;
- it answers 429: waited out per ``Retry-After`` within ``RATE_LIMIT_BUDGET_S`` and
  ``max_retries``, each wait noted; beyond that ``llm_rate_limited``;
- any other status that is not 2xx: ``llm_endpoint_failed`` (4xx: the request was refused,
  usually a wrong model name, key or URL; 5xx: the endpoint broke);
- a body over ``MAX_RESPONSE_BYTES``, or not a JSON object: ``llm_response_invalid``.

All of these are harness errors but the timeout: a model that does not answer in time is the
agent's failure, as for every agent. Nothing is retried but a 429, and nothing is repaired.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2

from agentic.agents.base import AgentStepError
from agentic.agents.llm_cache import Exchange, LlmCache, Response
from agentic.contract.text import one_line

MAX_RESPONSE_BYTES = 4 * 1024 * 1024
RATE_LIMIT_BUDGET_S = 60.0  # the most a pair waits out 429s in total
DEFAULT_RETRY_AFTER_S = 1.0
EXCERPT_CHARS = 200  # of a failed reply's body, in its one-line reason


@dataclass(frozen=True)
class EndpointSettings:
    base_url: str
    api_key: str | None
    timeout_s: float
    max_retries: int


def _retry_after(response: httpx2.Response) -> float:
    value = response.headers.get("retry-after", "")
    try:
        seconds = float(value)
    except ValueError:
        return DEFAULT_RETRY_AFTER_S
    return max(0.0, seconds)


def _excerpt(text: str) -> str:
    return one_line(text, EXCERPT_CHARS)


@dataclass
class Endpoint:
    """Requests to one endpoint; ``notes`` collects what a caller should record (429 waits)."""

    settings: EndpointSettings
    cache: LlmCache | None
    client: httpx2.Client | None = None
    sleep: Callable[[float], None] = time.sleep
    notes: list[str] = field(default_factory=list)

    def _client(self) -> httpx2.Client:
        if self.client is None:
            headers = {"Accept": "application/json"}
            if self.settings.api_key is not None:
                headers["Authorization"] = f"Bearer {self.settings.api_key}"
            # trust_env off: no proxy or netrc from this machine's environment shapes a request.
            self.client = httpx2.Client(
                base_url=self.settings.base_url.rstrip("/") + "/",
                headers=headers,
                timeout=self.settings.timeout_s,
                trust_env=False,
            )
        return self.client

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def get_json(self, path: str) -> dict[str, Any]:
        return self.exchange(Exchange("GET", path, None))

    def post_json(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.exchange(Exchange("POST", path, body))

    def exchange(self, exchange: Exchange) -> dict[str, Any]:
        """The JSON object the endpoint answers (from the cache in replay mode)."""
        if self.cache is not None and self.cache.mode == "replay":
            response = self.cache.load(exchange)
        else:
            response = self._live(exchange)
            if self.cache is not None:
                self.cache.store(exchange, response)
        return _decoded(exchange, response)

    def _live(self, exchange: Exchange) -> Response:
        waited = 0.0
        for attempt in range(self.settings.max_retries + 1):
            response = self._send(exchange)
            if response.status_code != 429:
                return _bounded(response)
            pause = _retry_after(response)
            if attempt == self.settings.max_retries or waited + pause > RATE_LIMIT_BUDGET_S:
                break
            self.notes.append(f"rate_limited: waited {pause:g} s (attempt {attempt + 1})")
            self.sleep(pause)
            waited += pause
        raise AgentStepError(
            "harness_error",
            "llm_rate_limited",
            f"{exchange.path}: still 429 after {self.settings.max_retries} retries and "
            f"{waited:g} s of waiting",
        )

    def _send(self, exchange: Exchange) -> httpx2.Response:
        path = exchange.path.lstrip("/")
        try:
            if exchange.body is None:
                return self._client().request(exchange.method, path)
            return self._client().request(exchange.method, path, json=exchange.body)
        except httpx2.TimeoutException as exc:
            raise AgentStepError(
                "agent_error",
                "agent_timeout",
                f"{exchange.path}: no answer within {self.settings.timeout_s:g} s ({exc!r})",
            ) from None
        except httpx2.HTTPError as exc:
            raise AgentStepError(
                "harness_error",
                "llm_endpoint_unreachable",
                f"{self.settings.base_url}: {type(exc).__name__}: {exc}",
            ) from None


def _bounded(response: httpx2.Response) -> Response:
    size = len(response.content)
    if size > MAX_RESPONSE_BYTES:
        raise AgentStepError(
            "harness_error",
            "llm_response_invalid",
            f"the reply is {size} bytes, over the {MAX_RESPONSE_BYTES}-byte cap",
        )
    return Response(response.status_code, response.text)


def _decoded(exchange: Exchange, response: Response) -> dict[str, Any]:
    if not 200 <= response.status < 300:
        raise AgentStepError(
            "harness_error",
            "llm_endpoint_failed",
            f"{exchange.method} {exchange.path}: HTTP {response.status}: {_excerpt(response.body)}",
        )
    try:
        value = json.loads(response.body)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise AgentStepError(
            "harness_error",
            "llm_response_invalid",
            f"{exchange.path}: the body is not a JSON object: {_excerpt(response.body)}",
        )
    return value
