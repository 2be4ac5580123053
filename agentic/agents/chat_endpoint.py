"""One OpenAI-compatible endpoint, as the openai-chat agent talks to it through its cache.
It speaks JSON over HTTP with httpx2, the client the MCP SDK already brings. Every exchange goes
through the record/reuse cache.

What can go wrong between the agent and its model is classified here, once, as ``AgentStepError``
with a contract failure class and a code (the runner ends the pair with it):

- the endpoint cannot be reached: ``llm_endpoint_unreachable``, a ``ContractError`` that ends
  the run (exit 2), since every later pair would end the same way; a run with an output folder
  keeps its finished pairs in its journal, and ``--resume`` finishes it once the endpoint answers;
- it does not answer within the step deadline: ``agent_timeout``;
- it answers 429: waited out per ``Retry-After`` within ``RATE_LIMIT_BUDGET_S``, ``max_retries``
  and the step deadline, each wait noted; a wait past any of them is not begun:
  ``llm_rate_limited`` (the endpoint's refusal ended the step, not a slow model, so it is no
  ``agent_timeout`` even when the deadline is what the wait would pass);
- a 400 that says the request is longer than the model's context: ``agent_context_exceeded``,
  the agent's failure (the agent let its conversation grow past the model, or the model its own
  reply); recorded in the cache like an answer, so a rerun from it ends the pair the same way;
- any other status that is not 2xx: ``llm_endpoint_failed`` (4xx: the request was refused,
  usually a wrong model name, key or URL; 5xx: the endpoint broke);
- a body over ``MAX_RESPONSE_BYTES`` (the reply is streamed and reading stops at the cap, so a
  huge reply never sits in memory), or not a strict JSON object (``contract/strict_json.py``:
  duplicate keys, non-finite numbers and excessive nesting included): ``llm_response_invalid``.

All of these are harness errors but the timeout: a model that does not answer in time is the
agent's failure, as for every agent. Nothing is retried but a 429, and nothing is repaired.

The step deadline (``timeout_s``) is a wall clock over one whole exchange: every attempt, its
headers and its body, and every 429 wait between attempts. A per-read timeout cannot keep it: a
server sending one byte a second never trips one. So each request runs in an async client under
``anyio.fail_after`` with what is left of the deadline, and the cancellation ends a read blocked
at any point, headers included. Each request opens its own connection (about a millisecond to a
local server, nothing beside a model's answer); nothing is held between exchanges.

Secrets stay here. The settings carry every secret this endpoint holds (the key, the URL's
credentials): each body received, live or cached, has them replaced by ``<secret>`` before it is
cached or read (so no receipt, cache entry or message can hold them), every message names the URL
as ``recorded_url`` writes it, and an error response is never cached (but the context refusal
above, whose body the endpoint words from token counts, scrubbed like any other).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import anyio
import httpx2

from agentic.agents.base import AgentStepError
from agentic.agents.llm_cache import (
    MAX_RESPONSE_BYTES,
    EntryUse,
    Exchange,
    LlmCache,
    Response,
    is_context_refusal,
    is_recordable,
    is_success,
    uses_notes,
)
from agentic.contract.credentials import NO_SECRETS, Secrets, recorded_url, url_secrets
from agentic.contract.errors import ContractError
from agentic.contract.pair_notes import LlmUsage, RateLimited, encode, notes_of
from agentic.contract.strict_json import JsonObject, JsonValue, parse_strict
from agentic.contract.text import one_line

# MAX_RESPONSE_BYTES lives beside the cache, which holds its bodies to it; it is this module's cap.
__all__ = ["MAX_RESPONSE_BYTES", "Endpoint", "EndpointSettings", "Usage", "reported_tokens"]

RATE_LIMIT_BUDGET_S = 60.0  # the most one exchange waits out 429s in total
DEFAULT_RETRY_AFTER_S = 1.0
EXCERPT_CHARS = 200  # of a failed reply's body, in its one-line reason
ERROR_BODY_BYTES = 64 * 1024  # of a failed reply, read for its excerpt only


@dataclass(frozen=True)
class EndpointSettings:
    """How to reach one endpoint. ``secrets`` always holds the key and the URL's credentials;
    a caller may add more."""

    base_url: str
    api_key: str | None
    timeout_s: float
    max_retries: int
    secrets: Secrets = NO_SECRETS

    def __post_init__(self) -> None:
        held = Secrets.of([self.api_key]) | url_secrets(self.base_url)
        object.__setattr__(self, "secrets", self.secrets | held)

    @property
    def shown_url(self) -> str:
        """The URL as messages name it: without its credentials."""
        return recorded_url(self.base_url)


@dataclass(frozen=True)
class _Deadline:
    """One exchange's step deadline: ``seconds`` of wall clock from its start (monotonic)."""

    seconds: float
    ends: float

    @classmethod
    def start(cls, seconds: float) -> _Deadline:
        return cls(seconds, time.monotonic() + seconds)

    def remaining(self) -> float:
        return max(0.0, self.ends - time.monotonic())


@dataclass(frozen=True)
class _Answer:
    """A live answer: the response and, for a 429, how long it asks to wait."""

    response: Response
    retry_after_s: float = 0.0


def _retry_after(response: httpx2.Response) -> float:
    value = response.headers.get("retry-after", "")
    try:
        seconds = float(value)
    except ValueError:
        return DEFAULT_RETRY_AFTER_S
    return max(0.0, seconds)


def _excerpt(text: str) -> str:
    return one_line(text, EXCERPT_CHARS)


def _client_base(base_url: str) -> tuple[str, str]:
    """The client's base URL (path ending in ``/``, no query) and the query every request
    carries (``?api-key=`` and the like stay parameters of each request, not part of a path)."""
    split = urlsplit(base_url)
    base = urlunsplit((split.scheme, split.netloc, split.path.rstrip("/") + "/", "", ""))
    return base, split.query


async def _read(response: httpx2.Response, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of the (decoded) body, and whether there was more: reading stops
    at the cap, so a reply of any size costs at most about ``limit`` bytes of memory."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        if size + len(chunk) > limit:
            chunks.append(chunk[: limit - size])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


def _too_large(exchange: Exchange, detail: str) -> AgentStepError:
    return AgentStepError(
        "harness_error",
        "llm_response_invalid",
        f"{exchange.path}: the reply is over the {MAX_RESPONSE_BYTES}-byte cap ({detail})",
    )


async def _received(exchange: Exchange, response: httpx2.Response) -> _Answer:
    """The answer of a streamed ``response``, its body read only as far as it may go."""
    status = response.status_code
    if status == 429:
        return _Answer(Response(status, ""), _retry_after(response))
    ok = is_success(status)
    declared = response.headers.get("content-length", "")
    if ok and declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
        raise _too_large(exchange, f"it announces {declared} bytes; none were read")
    data, more = await _read(response, MAX_RESPONSE_BYTES if ok else ERROR_BODY_BYTES)
    if ok and more:
        raise _too_large(exchange, f"reading stopped at {len(data)} bytes")
    # As httpx2 decodes ``.text``: the declared charset, else UTF-8, undecodable bytes replaced.
    text = data.decode(response.encoding or "utf-8", errors="replace")
    if ok and len(text.encode("utf-8")) > MAX_RESPONSE_BYTES:
        raise _too_large(exchange, "once decoded")
    return _Answer(Response(status, text))


@dataclass
class Endpoint:
    """Requests to one endpoint; ``notes`` collects what a caller should record (429 waits);
    ``cache_uses`` the cache entries recorded or reused, in order. ``transport`` is what every
    request goes through, closed with its client (tests inject ``httpx2.MockTransport``, whose
    closing is a no-op); None is httpx2's own, a new connection per request."""

    settings: EndpointSettings
    cache: LlmCache | None
    transport: httpx2.AsyncBaseTransport | None = None
    sleep: Callable[[float], None] = time.sleep
    notes: list[str] = field(default_factory=list)
    cache_uses: list[EntryUse] = field(default_factory=list)

    def _client(self) -> httpx2.AsyncClient:
        # identity: a compressed reply could inflate far past the cap within one chunk.
        headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
        if self.settings.api_key is not None:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        base, query = _client_base(self.settings.base_url)
        # trust_env off: no proxy or netrc from this machine's environment shapes a request.
        # No timeout of httpx2's own: the step deadline around the request is the one clock.
        return httpx2.AsyncClient(
            base_url=base,
            params=query,
            headers=headers,
            timeout=None,
            trust_env=False,
            transport=self.transport,
        )

    def close(self) -> None:
        """Nothing is held between exchanges (each request opens and closes its own client);
        callers close an endpoint all the same, so one that comes to hold something needs no
        caller changed."""

    def get_json(self, path: str) -> JsonObject:
        return self.exchange(Exchange("GET", path, None))

    def post_json(self, path: str, body: JsonObject) -> JsonObject:
        return self.exchange(Exchange("POST", path, body))

    def exchange(self, exchange: Exchange) -> JsonObject:
        """The JSON object the endpoint answers (from the cache in reuse mode)."""
        if self.cache is not None and (
            self.cache.mode == "reuse" or self.cache.path(exchange).is_file()
        ):
            # Recording is resumable: an exchange recorded by an earlier, interrupted recording
            # is answered from its entry, not asked again.
            stored = self.cache.load(exchange)
            self.cache_uses.append(EntryUse.of(exchange, stored))
            response = self._scrubbed(stored)
        else:
            response = self._scrubbed(self._live(exchange))
            # An error answer is the run's failure, not an answer to reuse; a refusal of an
            # over-long request is the agent's failure, reused as it happened.
            if self.cache is not None and is_recordable(response.status, response.body):
                self.cache.store(exchange, response)
                self.cache_uses.append(EntryUse.of(exchange, response))
        return _decoded(exchange, response)

    def cache_notes(self) -> list[str]:
        """What the pair's observations record of the cache entries it used."""
        if self.cache is None or not self.cache_uses:
            return []
        return uses_notes(self.cache.mode, self.cache_uses)

    def _scrubbed(self, response: Response) -> Response:
        return Response(response.status, self.settings.secrets.scrub(response.body))

    def _live(self, exchange: Exchange) -> Response:
        deadline = _Deadline.start(self.settings.timeout_s)
        waited = 0.0
        for attempt in range(self.settings.max_retries + 1):
            answer = self._send(exchange, deadline)
            if answer.response.status != 429:
                return answer.response
            pause = answer.retry_after_s
            if attempt == self.settings.max_retries or waited + pause > RATE_LIMIT_BUDGET_S:
                break
            if pause >= deadline.remaining():  # no time would be left for the retry
                raise AgentStepError(
                    "harness_error",
                    "llm_rate_limited",
                    f"{exchange.path}: 429 asks for a wait of {pause:g} s, past the step "
                    f"deadline of {deadline.seconds:g} s (retries and waits included)",
                )
            self.notes.append(encode(RateLimited(waitedS=pause, attempt=attempt + 1)))
            self.sleep(pause)
            waited += pause
        raise AgentStepError(
            "harness_error",
            "llm_rate_limited",
            f"{exchange.path}: still 429 after {self.settings.max_retries} retries and "
            f"{waited:g} s of waiting",
        )

    def _send(self, exchange: Exchange, deadline: _Deadline) -> _Answer:
        """One attempt, ended by the deadline wherever it is (connecting, headers, body)."""
        try:
            return anyio.run(self._attempt, exchange, deadline.remaining())
        except (TimeoutError, httpx2.TimeoutException):
            raise AgentStepError(
                "agent_error",
                "agent_timeout",
                f"{exchange.path}: no answer within {deadline.seconds:g} s (the step deadline, "
                "retries and waits included)",
            ) from None
        except httpx2.HTTPError as exc:
            scrub = self.settings.secrets.scrub
            raise ContractError(
                "llm_endpoint_unreachable",
                scrub(f"{self.settings.shown_url}: {type(exc).__name__}: {exc}"),
            ) from None

    async def _attempt(self, exchange: Exchange, seconds: float) -> _Answer:
        path = exchange.path.lstrip("/")
        with anyio.fail_after(seconds):
            async with (
                self._client() as client,
                client.stream(exchange.method, path, json=exchange.body) as response,
            ):
                return await _received(exchange, response)


def _decoded(exchange: Exchange, response: Response) -> JsonObject:
    """The body as a JSON object, read by the strict parser (never ``json.loads``: a deeply
    nested reply must be a failure code, not a RecursionError)."""
    if is_context_refusal(response.status, response.body):
        # The model's context, not the endpoint, is what failed: the agent's request grew past
        # it. That is the agent's failure (an excluded pair would flatter the backends whose
        # results are longest).
        raise AgentStepError(
            "agent_error",
            "agent_context_exceeded",
            f"{exchange.path}: the endpoint refused the request as longer than the model's "
            f"context: {_excerpt(response.body)}",
        )
    if not is_success(response.status):
        raise AgentStepError(
            "harness_error",
            "llm_endpoint_failed",
            f"{exchange.method} {exchange.path}: HTTP {response.status}: {_excerpt(response.body)}",
        )
    try:
        value = parse_strict(response.body, source="the reply")
    except ContractError as exc:
        raise AgentStepError(
            "harness_error",
            "llm_response_invalid",
            f"{exchange.path}: the body is not strict JSON ({exc.message}): "
            f"{_excerpt(response.body)}",
        ) from None
    if not isinstance(value, dict):
        raise AgentStepError(
            "harness_error",
            "llm_response_invalid",
            f"{exchange.path}: the body is not a JSON object: {_excerpt(response.body)}",
        )
    return value


def first_message(reply: Mapping[str, JsonValue]) -> Mapping[str, JsonValue]:
    """The message of a chat reply's first choice; ``llm_response_invalid`` when there is none."""
    choices = reply.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise AgentStepError("harness_error", "llm_response_invalid", "the reply has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise AgentStepError(
            "harness_error", "llm_response_invalid", "the reply's first choice has no message"
        )
    return message


# --- what the endpoint reports ------------------------------------------------------------------


@dataclass
class Usage:
    """The tokens an endpoint reported for a pair's requests (OpenAI ``usage``), if it did."""

    requests: int = 0
    reported: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    last_prompt_tokens: int | None = None

    def add(self, reply: Mapping[str, JsonValue]) -> None:
        self.requests += 1
        self.last_prompt_tokens = None
        usage = reply.get("usage")
        if not isinstance(usage, dict):
            return
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if isinstance(prompt, int) and isinstance(completion, int):
            self.reported += 1
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.last_prompt_tokens = prompt

    def note(self) -> list[str]:
        if not self.reported:
            return []
        usage = LlmUsage(
            requests=self.requests,
            reported=self.reported,
            prompt=self.prompt_tokens,
            completion=self.completion_tokens,
        )
        return [encode(usage)]


def reported_tokens(notes: Iterable[str]) -> tuple[int, int] | None:
    """The prompt and completion tokens a pair's notes say its endpoint reported; None when
    the endpoint reported none."""
    for usage in notes_of(notes, LlmUsage):
        return usage.prompt, usage.completion
    return None
