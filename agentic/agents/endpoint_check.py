"""``agentic catalog --agent-config FILE --check``: an openai-chat endpoint tried before a long run.

Three tiny live requests (never through a cache): the endpoint's model list, which must hold the
config's ``model``; one short chat request, timed; and the one thing the config's protocol needs
of the server. For ``protocol = "rendered"`` that is llama.cpp's ``grammar`` field: a request
whose grammar admits only ``yes`` or ``no`` must get one of them back. For ``"functions"`` it is
the chat template's tool-call support: a request offering one trivial function must get a tool
call back (written as text counts when the config reads such calls, ``text_tool_calls``).

Each step adds a line; the first that fails ends the check with one line naming what failed.
Every request carries the config's model, temperature, seed and ``extra_body``, as a run's would,
under the config's step deadline (a busy local server may answer only after the request it is on).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from agentic.agents.base import AgentStepError
from agentic.agents.chat_config import OpenAIChatConfig, api_key
from agentic.agents.chat_endpoint import Endpoint, EndpointSettings, first_message
from agentic.agents.openai_chat import endpoint_models, text_tool_call
from agentic.contract.credentials import recorded_url
from agentic.contract.errors import AgenticError, ContractError
from agentic.contract.strict_json import JsonObject, JsonValue
from agentic.contract.text import one_line

CHECK_GRAMMAR = 'root ::= "yes" | "no"'
GRAMMAR_WORDS = ("yes", "no")
# A prompt whose natural answer the grammar does not admit: "yes" or "no" back means it held.
GRAMMAR_PROMPT = "Reply with the single word OK."
CHAT_PROMPT = "Reply with OK."
TOOL_PROMPT = "Call the ping tool."
PING_TOOL: JsonObject = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Answers pong. Takes no arguments.",
        "parameters": {"type": "object", "properties": {}},
    },
}
REPLY_TOKENS = 8
CALL_TOKENS = 64  # room for a call written as text (``<tool_call>{...}</tool_call>``)
SHOWN_CHARS = 60  # of a reply, in its line
_FAILURES = {"llm_endpoint_unreachable": "endpoint unreachable", "agent_timeout": "no answer"}


class AgentCheckError(AgenticError):
    """The step that failed, in one line."""


@dataclass
class AgentCheck:
    """What the check found, line by line; ``problem`` is None when every step passed."""

    lines: list[str] = field(default_factory=list)
    problem: str | None = None


def check_agent(config: OpenAIChatConfig, environ: Mapping[str, str]) -> AgentCheck:
    """List the models, send one chat request, try the protocol's need; stop at a failure."""
    check = AgentCheck([f"  endpoint: {recorded_url(config.base_url)}"])
    endpoint = _endpoint(config, environ)
    try:
        _models(config, endpoint, check.lines)
        _chat(config, endpoint, check.lines)
        if config.protocol == "rendered":
            _grammar(config, endpoint, check.lines)
        else:
            _tool_call(config, endpoint, check.lines)
    except AgentCheckError as exc:
        check.problem = str(exc)
    finally:
        endpoint.close()
    return check


def _endpoint(config: OpenAIChatConfig, environ: Mapping[str, str]) -> Endpoint:
    settings = EndpointSettings(
        base_url=config.base_url,
        api_key=api_key(config, environ),
        timeout_s=config.timeout_s,
        max_retries=config.max_retries,
    )
    return Endpoint(settings, None)


def _failure(what: str, exc: AgentStepError | ContractError) -> AgentCheckError:
    kind = _FAILURES.get(exc.code, exc.code)
    message = exc.message if isinstance(exc, ContractError) else str(exc)
    return AgentCheckError(f"{kind} ({what}): {message}")


def _models(config: OpenAIChatConfig, endpoint: Endpoint, lines: list[str]) -> None:
    try:
        models = endpoint_models(endpoint)
    except (AgentStepError, ContractError) as exc:
        raise _failure("listing its models", exc) from None
    listed = ", ".join(models) or "(none)"
    served = config.model in models
    lines.append(f"  models: {listed}")
    lines.append(f"  model {config.model}: {'served' if served else 'not served'}")
    if not served:
        raise AgentCheckError(
            f"model not served: {recorded_url(config.base_url)} serves {listed}, not "
            f"{config.model!r} (the config's model)"
        )


def _body(config: OpenAIChatConfig, prompt: str, max_tokens: int) -> JsonObject:
    body: JsonObject = {
        "model": config.model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": config.temperature,
        "max_tokens": max_tokens,
        "stream": False,
    }
    if config.seed is not None:
        body["seed"] = config.seed
    return {**body, **config.extra_body}


def _ask(endpoint: Endpoint, body: JsonObject, what: str) -> tuple[Mapping[str, JsonValue], float]:
    """The reply's message and the request's round trip in seconds."""
    started = time.monotonic()
    try:
        message = first_message(endpoint.post_json("chat/completions", body))
    except (AgentStepError, ContractError) as exc:
        raise _failure(what, exc) from None
    return message, time.monotonic() - started


def _content(message: Mapping[str, JsonValue]) -> str | None:
    content = message.get("content")
    return content if isinstance(content, str) else None


def _shown(text: str | None) -> str:
    return "no text" if text is None else repr(one_line(text, SHOWN_CHARS))


def _chat(config: OpenAIChatConfig, endpoint: Endpoint, lines: list[str]) -> None:
    message, seconds = _ask(endpoint, _body(config, CHAT_PROMPT, REPLY_TOKENS), "a chat request")
    content = _content(message)
    came_back = content is not None or bool(message.get("tool_calls"))
    lines.append(
        f"  chat request: {seconds:.2f} s round trip, "
        + (f"reply {_shown(content)}" if came_back else "no reply")
    )
    if not came_back:
        raise AgentCheckError("no reply: a chat request's answer has neither text nor a tool call")


def _grammar(config: OpenAIChatConfig, endpoint: Endpoint, lines: list[str]) -> None:
    body = {**_body(config, GRAMMAR_PROMPT, REPLY_TOKENS), "grammar": CHECK_GRAMMAR}
    message, seconds = _ask(endpoint, body, "a request with a grammar")
    said = _content(message)
    obeyed = said is not None and said.strip() in GRAMMAR_WORDS
    verdict = "obeyed" if obeyed else "ignored"
    lines.append(f"  grammar {CHECK_GRAMMAR}: {verdict} ({seconds:.2f} s, reply {_shown(said)})")
    if not obeyed:
        raise AgentCheckError(
            f"grammar ignored: a request whose grammar admits only yes or no got {_shown(said)}; "
            'protocol "rendered" needs a server that applies llama.cpp\'s grammar field'
        )


def _called(message: Mapping[str, JsonValue], text_calls: bool) -> bool:
    if message.get("tool_calls"):
        return True
    content = _content(message)
    return text_calls and content is not None and text_tool_call(content) is not None


def _tool_call(config: OpenAIChatConfig, endpoint: Endpoint, lines: list[str]) -> None:
    body: JsonObject = {
        **_body(config, TOOL_PROMPT, CALL_TOKENS),
        "tools": [PING_TOOL],
        "tool_choice": config.tool_choice,
    }
    message, seconds = _ask(endpoint, body, "a request offering a function")
    called = _called(message, config.text_tool_calls)
    shown = "" if called else f", reply {_shown(_content(message))}"
    lines.append(
        f"  tool call (one function offered): {'made' if called else 'none'} "
        f"({seconds:.2f} s{shown})"
    )
    if not called:
        raise AgentCheckError(
            "no tool call: offered one function, the model answered "
            f"{_shown(_content(message))}; the chat template may not support tools "
            '(text_tool_calls = true reads calls written as text; protocol = "rendered" '
            "needs no template support)"
        )
