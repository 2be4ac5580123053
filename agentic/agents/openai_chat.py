"""The openai-chat agent: any OpenAI-compatible chat-completions endpoint (llama.cpp's server,
vLLM, Ollama, a hosted API) as an agent, configured by a TOML file.

Each step is one non-streaming request. The model is offered the task's allowed tools as
function tools with the frozen contract's input schemas, and one more, ``final_answer``, whose
parameters are the final-envelope schema. It reads the public task (the same rendering the local
model reads) and, after each delivered call, that call's projected result as the tool message:
the RFC 8785 bytes of exactly what the runner charged against the byte budget.

The reply becomes one raw step for the runner, which validates it as it does every agent's:
a call of ``final_answer`` is the final step, a call of another tool a tool step, a plain
message's content the final envelope. Arguments (or content) that are not JSON are handed over
as they are, so the runner scores them as malformed; a reply with several tool calls is handed
over as a list, which no step is. Nothing is retried or repaired.

What decides the model's behaviour (the config minus transport and secrets, the model ids the
endpoint reports, this module's prompt and protocol versions, and whether answers come from the
content-addressed cache) is the agent's fingerprint; the API key is read from the variable the
config names and never recorded anywhere: its value, and the credentials of ``base_url``, are
removed from every reply and message (``chat_endpoint.py``), and the URL is recorded as
``contract/credentials.recorded_url`` writes it. Each pair's observations name the cache entries
it used (``llm_cache.entries_digest``).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentic.agents.base import AgentStepError, TokenCount
from agentic.agents.chat_endpoint import Endpoint, EndpointSettings
from agentic.agents.llm_cache import LlmCache
from agentic.agents.prompting import render_task
from agentic.contract.canonical import canonical_text, fingerprint
from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file
from agentic.contract.schemas import load_schemas
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonObject, JsonValue, parse_strict
from agentic.contract.task import AgentTask

AGENT_VERSION = "openai-chat-agent-v1"
PROMPT_VERSION = "openai-chat-prompt-v2"
FINAL_TOOL = "final_answer"
# How long after its deadline the runner still waits for a step (``step_deadline_s``): the
# endpoint ends it at the deadline, and a cancelled request takes milliseconds to close.
STEP_GRACE_S = 5.0
# Request fields the agent sets itself; extra_body may add others, never replace these.
OWN_FIELDS = frozenset(
    {"model", "messages", "tools", "tool_choice", "temperature", "seed", "max_tokens", "stream"}
)

SYSTEM_PROMPT = (
    "You are a retrieval agent answering one task from a document collection. Use the tools to "
    "find and read the evidence: search finds candidate lines, get reads one source or a line "
    "range, multi_get reads several sources. When you can answer, call final_answer once with "
    "the final envelope: one claim per declared claim key you can support, each citing the "
    "exact evidence (uri, startLine, endLine, sourceHash, spanHash and their provenances, "
    "copied from a tool result) that states it; every claim you cannot support is a gap. If "
    "nothing is supported, set abstained to true and stopReason to abstained. Never repeat a "
    "call: its result would not change."
)

Identifier = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][\w.-]*$")]
# A token budget is kept by estimating a request's tokens from its bytes. Once the endpoint has
# reported a request's prompt tokens (OpenAI ``usage``), the next request is that count plus its
# new bytes at ``INCREMENT_BYTES_PER_TOKEN``: results are JSON full of hex hashes (a projected
# search result measured 1.9 bytes per token under Qwen2.5's tokenizer, more once escaped into a
# message). Before any report (or from an endpoint that gives none), all of it is counted at
# ``BYTES_PER_TOKEN``. An endpoint that still finds a request too long ends the pair
# the same way (``agent_context_exceeded``).
BYTES_PER_TOKEN = 2.5
INCREMENT_BYTES_PER_TOKEN = 1.5
# What a read the model left unbounded is expected to cost per line once projected (the line's
# text plus its uri, hashes and provenances): the cap the agent adds is an estimate, and the
# request is measured again before it is sent.
PROJECTED_BYTES_PER_LINE = 320
PROJECTED_BYTES_PER_TEXT_BYTE = 6


class ContextBudget(BaseModel):
    """How large a request may grow, the model's reply (``max_output_tokens``) set aside:
    ``tokens`` (estimated from bytes, calibrated by the endpoint's reported usage) or ``bytes``
    of request JSON."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    tokens: Annotated[int, Field(ge=256)] | None = None
    bytes: Annotated[int, Field(ge=1024)] | None = None

    def described(self) -> str:
        return f"{self.bytes} bytes" if self.bytes is not None else f"{self.tokens} tokens"


@dataclass(frozen=True)
class Measured:
    """A request's size: its bytes, and the prompt tokens the endpoint reported for it."""

    size: int
    tokens: int


def request_room(
    budget: ContextBudget, output_tokens: int, size: int, last: Measured | None
) -> tuple[float, float]:
    """(what this request uses, what the budget leaves after it), in the budget's unit."""
    if budget.bytes is not None:
        limit = budget.bytes - output_tokens * BYTES_PER_TOKEN
        return size, limit - size
    limit = (budget.tokens or 0) - output_tokens
    if last is None:
        used = size / BYTES_PER_TOKEN
    else:
        used = last.tokens + max(size - last.size, 0) / INCREMENT_BYTES_PER_TOKEN
    return used, limit - used


class OpenAIChatConfig(BaseModel):
    """``--agent-config FILE``: closed, strictly typed; an unknown key is an error."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    id: Identifier
    kind: Literal["openai-chat"]
    base_url: Annotated[str, Field(pattern=r"^https?://[^\s]+$")]
    model: Annotated[str, Field(min_length=1)]
    api_key_env: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] | None = None
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.0
    seed: int | None = None
    max_output_tokens: Annotated[int, Field(ge=1, le=65536)]
    # How a delivered result is sent back: as the OpenAI ``tool`` message (the default), or as
    # a ``user`` message for a server whose chat template drops tool messages (llama.cpp's
    # chatml-function-calling handler does: the model never sees them).
    tool_results: Literal["tool", "user"] = "tool"
    timeout_s: Annotated[float, Field(gt=0, le=3600)] = 60.0
    max_retries: Annotated[int, Field(ge=0, le=10)] = 2
    extra_body: JsonObject = Field(default_factory=dict)
    # "required": the model must call a tool each turn (final_answer is always one of them).
    tool_choice: Literal["auto", "required"] = "auto"
    # Read a tool call the model wrote as text (``<tool_call>{...}</tool_call>``, a fenced or
    # bare JSON object with "name" and "arguments"), as a server with its own chat template
    # returns it, instead of reading that text as a final answer.
    text_tool_calls: bool = False
    context_budget: ContextBudget | None = None
    # How the model is held to final_answer once its calls are spent: "tools" offers
    # final_answer alone (any server honours it); "tool_choice" keeps every tool listed and
    # names final_answer as the tool_choice, so the request starts with the very tokens the
    # server has already evaluated. A local server then reads only the new turn instead of
    # the whole conversation again (its tool list sits near the start of the prompt).
    final_only: Literal["tools", "tool_choice"] = "tools"

    def behaviour(self) -> JsonObject:
        """What decides the answers: not the URL, timeout, retries or the key's variable.
        Keys added since v1 appear only when set, so an older config keeps its fingerprint."""
        found: JsonObject = {
            "model": self.model,
            "temperature": self.temperature,
            "seed": self.seed,
            "maxOutputTokens": self.max_output_tokens,
            "toolResults": self.tool_results,
            "extraBody": self.extra_body,
        }
        if self.tool_choice != "auto":
            found["toolChoice"] = self.tool_choice
        if self.text_tool_calls:
            found["textToolCalls"] = True
        if self.context_budget is not None:
            found["contextBudget"] = self.context_budget.model_dump(exclude_none=True)
        if self.final_only != "tools":
            found["finalOnly"] = self.final_only
        return found


def load_agent_config(path: Path) -> OpenAIChatConfig:
    """The config at ``path``; one-line ContractError (exit 2) for anything wrong with it."""
    data = read_input_file(path, code="invalid_agent_config")
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ContractError("invalid_agent_config", f"{path}: {exc}") from None
    try:
        config = OpenAIChatConfig.model_validate(document)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top)"
        raise ContractError("invalid_agent_config", f"{path}: {where}: {first['msg']}") from None
    budget = config.context_budget
    if budget is not None and (budget.tokens is None) == (budget.bytes is None):
        raise ContractError(
            "invalid_agent_config", f"{path}: context_budget: give tokens or bytes, not both"
        )
    if budget is not None and request_room(budget, config.max_output_tokens, 0, None)[1] <= 0:
        raise ContractError(
            "invalid_agent_config",
            f"{path}: context_budget leaves no room beside max_output_tokens",
        )
    clash = sorted(OWN_FIELDS & set(config.extra_body))
    if clash:
        raise ContractError(
            "invalid_agent_config", f"{path}: extra_body may not set {', '.join(clash)}"
        )
    return config


def api_key(config: OpenAIChatConfig, environ: Mapping[str, str]) -> str | None:
    if config.api_key_env is None:
        return None
    value = environ.get(config.api_key_env)
    if not value:
        raise ContractError(
            "llm_api_key_missing",
            f"agent {config.id}: the variable {config.api_key_env} (api_key_env) is not set",
        )
    return value


# --- what the model is offered and shown -------------------------------------------------------


def function_tools(tools: list[JsonObject], task: AgentTask) -> list[JsonObject]:
    """The task's allowed tools (in the task's order) as functions, then ``final_answer``."""
    listed = {str(tool["name"]): tool for tool in tools}
    envelope = {
        k: v for k, v in load_schemas()["final-envelope"].items() if k not in ("$schema", "$id")
    }
    offered = [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": listed[name]["description"],
                "parameters": listed[name]["inputSchema"],
            },
        }
        for name in task.allowedTools
        if name in listed
    ]
    final = {
        "type": "function",
        "function": {
            "name": FINAL_TOOL,
            "description": "Finish the task with the final envelope: claims with exact "
            "citations, gaps, abstained and stopReason.",
            "parameters": envelope,
        },
    }
    return [*offered, final]


FINAL_ONLY_NOTE = (
    "No tool calls remain: call final_answer now, with the claims the results above support "
    "and a gap for each claim they do not."
)


def final_only(tools: list[JsonObject]) -> list[JsonObject]:
    """What the model is offered once its call budget is spent: ``final_answer`` alone."""
    return [tool for tool in tools if tool["function"]["name"] == FINAL_TOOL]


def _result_message(call: VisibleCall, call_id: str, role: Literal["tool", "user"]) -> JsonObject:
    result = canonical_text(call.result.to_json())
    if role == "tool":
        return {"role": "tool", "tool_call_id": call_id, "content": result}
    return {"role": "user", "content": f"Result of {call_id} ({call.toolName}): {result}"}


def messages(
    task: AgentTask, calls: tuple[VisibleCall, ...], tool_results: Literal["tool", "user"] = "tool"
) -> list[JsonObject]:
    """The conversation: the system text, the public task, then each delivered call as the
    model's tool call and its projected result."""
    conversation: list[JsonObject] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": render_task(task)},
    ]
    for call in calls:
        call_id = f"call-{call.callIndex}"
        conversation.append(
            {
                "role": "assistant",
                # "", not null: servers that render content through a template (llama.cpp's)
                # refuse a null or missing content; every OpenAI-compatible server takes "".
                "content": "",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": call.toolName,
                            "arguments": canonical_text(call.arguments),
                        },
                    }
                ],
            }
        )
        conversation.append(_result_message(call, call_id, tool_results))
    return conversation


# --- what the reply becomes --------------------------------------------------------------------


def _invalid(message: str) -> AgentStepError:
    return AgentStepError("harness_error", "llm_response_invalid", message)


def _parsed_or_raw(text: str) -> tuple[JsonValue, bool]:
    try:
        return parse_strict(text, source="model output"), True
    except ContractError:
        return text, False


def _step(kind: Literal["tool", "final"], name: str, text: str) -> str:
    """The step for a call of ``name`` with ``text`` as its arguments (or envelope). Text that
    is not strict JSON is returned as it is: the runner scores it malformed."""
    value, parsed = _parsed_or_raw(text)
    if not parsed:
        return text
    if kind == "final":
        return json.dumps({"kind": "final", "envelope": value}, ensure_ascii=False)
    return json.dumps({"kind": "tool", "toolName": name, "arguments": value}, ensure_ascii=False)


def _arguments_text(function: Mapping[str, JsonValue]) -> str:
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        return arguments
    # Some servers send the arguments as an object already; its JSON text is the same value.
    return json.dumps(arguments, ensure_ascii=False)


_TAGGED_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def text_tool_call(content: str) -> str | None:
    """The step of a tool call written as text: Hermes/Qwen ``<tool_call>{"name", "arguments"}
    </tool_call>`` (exactly one), or the whole content a JSON object (fenced or bare) with
    ``name`` and ``arguments``. None when the content is no such call (a final answer, say)."""
    tagged = _TAGGED_CALL.findall(content)
    if len(tagged) > 1:
        return json.dumps(tagged, ensure_ascii=False)  # several calls in one turn: no step
    stripped = content.strip()
    fenced = _FENCED.match(stripped)
    text = tagged[0] if tagged else (fenced.group(1) if fenced else stripped)
    value, parsed = _parsed_or_raw(text)
    if not parsed or not isinstance(value, dict) or set(value) != {"name", "arguments"}:
        return None if not tagged else text
    name = value["name"]
    if not isinstance(name, str):
        return None
    kind: Literal["tool", "final"] = "final" if name == FINAL_TOOL else "tool"
    return _step(kind, name, json.dumps(value["arguments"], ensure_ascii=False))


def step_text(reply: Mapping[str, JsonValue], *, text_calls: bool = False) -> str:
    """The raw step the model's reply amounts to (see the module docstring)."""
    choices = reply.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _invalid("the reply has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise _invalid("the reply's first choice has no message")
    tool_calls = message.get("tool_calls") or []
    if not isinstance(tool_calls, list):
        raise _invalid("the reply's tool_calls is not a list")
    if len(tool_calls) > 1:
        return json.dumps(tool_calls, ensure_ascii=False)  # one step per turn: no step at all
    if tool_calls:
        function = tool_calls[0].get("function") if isinstance(tool_calls[0], dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise _invalid("a tool call of the reply has no function name")
        name = function["name"]
        kind: Literal["tool", "final"] = "final" if name == FINAL_TOOL else "tool"
        return _step(kind, name, _arguments_text(function))
    content = message.get("content")
    if isinstance(content, str):
        written = text_tool_call(content) if text_calls else None
        return written if written is not None else _step("final", FINAL_TOOL, content)
    raise _invalid("the reply's message has neither tool calls nor content")


# --- the agent ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class EndpointIdentity:
    """What the endpoint says it serves (``/v1/models``) and how answers reach the lane."""

    models: tuple[str, ...]
    cached: bool

    @property
    def answers(self) -> Literal["live", "content-addressed cache"]:
        """How answers reach the lane, as the fingerprint and the report's environment say."""
        return "content-addressed cache" if self.cached else "live"


def endpoint_models(endpoint: Endpoint) -> tuple[str, ...]:
    listing = endpoint.get_json("models")
    data = listing.get("data")
    if not isinstance(data, list):
        raise _invalid("/models has no data list")
    return tuple(sorted(str(m["id"]) for m in data if isinstance(m, dict) and "id" in m))


class OpenAIChatAgent:
    """Stateless between sessions: one instance serves every pair of a lane."""

    def __init__(
        self,
        config: OpenAIChatConfig,
        settings: EndpointSettings,
        cache: LlmCache | None,
        identity: EndpointIdentity,
    ) -> None:
        self.agent_id = config.id
        self._config = config
        self._settings = settings
        self._cache = cache
        self._fingerprint = fingerprint(
            {
                "agent": AGENT_VERSION,
                "prompt": PROMPT_VERSION,
                "behaviour": config.behaviour(),
                "endpointModels": list(identity.models),
                "answers": identity.answers,
            }
        )

    def model_fingerprint(self) -> str:
        return self._fingerprint

    def prompt_fingerprint(self, task: AgentTask) -> str:
        return fingerprint(
            {"system": SYSTEM_PROMPT, "prompt": PROMPT_VERSION, "task": render_task(task)}
        )

    def open(
        self, task: AgentTask, tools: list[JsonObject], *, seed: int | None
    ) -> OpenAIChatSession:
        endpoint = Endpoint(self._settings, self._cache)
        return OpenAIChatSession(self._config, endpoint, task, function_tools(tools, task), seed)


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
        return [
            f"llm_usage: {self.reported} of {self.requests} request(s) reported, "
            f"{self.prompt_tokens} prompt and {self.completion_tokens} completion tokens"
        ]


# ``Usage.note``'s shape, read back.
_USAGE_NOTE = re.compile(
    r"llm_usage: \d+ of \d+ request\(s\) reported, (\d+) prompt and (\d+) completion tokens\Z"
)


def reported_tokens(notes: Iterable[str]) -> tuple[int, int] | None:
    """The prompt and completion tokens a pair's notes say its endpoint reported; None when
    the endpoint reported none."""
    for note in notes:
        if (usage := _USAGE_NOTE.match(note)) is not None:
            return int(usage.group(1)), int(usage.group(2))
    return None


class OpenAIChatSession:
    def __init__(
        self,
        config: OpenAIChatConfig,
        endpoint: Endpoint,
        task: AgentTask,
        tools: list[JsonObject],
        seed: int | None,
    ) -> None:
        self._config = config
        self._endpoint = endpoint
        self._task = task
        self._tools = tools
        self._seed = seed
        self._usage = Usage()
        self._measured: Measured | None = None
        self._capped: list[str] = []

    @property
    def step_deadline_s(self) -> float:
        """The runner's bound on a step (``KeepsStepDeadline``), never the run's --timeout-ms:
        the config's timeout_s, which the endpoint keeps itself as a wall clock over the step's
        one exchange, and a grace after it, so what ends a late step is the endpoint's own
        message; the runner's bound is there for a step the endpoint could not end."""
        return self._config.timeout_s + STEP_GRACE_S

    def request(self, calls: tuple[VisibleCall, ...]) -> JsonObject:
        spent = len(calls) >= self._task.budgets.maxAgentCalls
        conversation = messages(self._task, calls, self._config.tool_results)
        if spent:
            conversation.append({"role": "user", "content": FINAL_ONLY_NOTE})
        tools, choice = self._offered(spent)
        body: JsonObject = {
            "model": self._config.model,
            "messages": conversation,
            "tools": tools,
            "tool_choice": choice,
            "temperature": self._config.temperature,
            "max_tokens": self._config.max_output_tokens,
            "stream": False,
        }
        if self._seed is not None:
            body["seed"] = self._seed
        return {**body, **self._config.extra_body}

    def _offered(self, spent: bool) -> tuple[list[JsonObject], JsonValue]:
        """The tools listed and the tool_choice: once the calls are spent, final_answer alone,
        by the list or by name (the config's final_only)."""
        if not spent:
            return self._tools, self._config.tool_choice
        if self._config.final_only == "tool_choice":
            return self._tools, {"type": "function", "function": {"name": FINAL_TOOL}}
        return final_only(self._tools), self._config.tool_choice

    def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
        body = self.request(calls)
        size = len(canonical_text(body).encode("utf-8"))
        room = self._room(size)
        reply = self._endpoint.post_json("chat/completions", body)
        self._usage.add(reply)
        if self._usage.last_prompt_tokens is not None:
            self._measured = Measured(size, self._usage.last_prompt_tokens)
        step = step_text(reply, text_calls=self._config.text_tool_calls)
        return step if room is None else self._bounded(step, room)

    def _room(self, size: int) -> int | None:
        """Bytes the budget leaves after a request of ``size`` bytes (None: no budget); a
        request already over it ends the pair as the agent's failure, before it is sent."""
        budget = self._config.context_budget
        if budget is None:
            return None
        output = self._config.max_output_tokens
        used, left = request_room(budget, output, size, self._measured)
        if left < 0:
            raise AgentStepError(
                "agent_error",
                "agent_context_exceeded",
                f"the next request ({size} bytes, about {used:.0f} in the budget's unit) is over "
                f"the context budget of {budget.described()} less {output} output tokens",
            )
        # What is left in tokens is spent by new bytes at the increment rate.
        return int(left if budget.bytes is not None else left * INCREMENT_BYTES_PER_TOKEN)

    def _bounded(self, step: str, room: int) -> str:
        """A read the model left unbounded, bounded by the contract's own arguments to what the
        budget leaves: ``lineCount`` for ``get``, ``maxBytes`` for ``multi_get``. The receipt
        records the call as sent, so what the model sees is what it is charged for."""
        value, parsed = _parsed_or_raw(step)
        if not parsed or not isinstance(value, dict) or value.get("kind") != "tool":
            return step
        name, arguments = value.get("toolName"), value.get("arguments")
        if not isinstance(arguments, dict):
            return step
        if name == "get" and "lineCount" not in arguments:
            cap = {"lineCount": max(1, room // PROJECTED_BYTES_PER_LINE)}
        elif name == "multi_get" and "maxBytes" not in arguments:
            cap = {"maxBytes": max(1, room // PROJECTED_BYTES_PER_TEXT_BYTE)}
        else:
            return step
        self._capped.append(f"context_budget: {name} bounded by {canonical_text(cap)}")
        return json.dumps({**value, "arguments": {**arguments, **cap}}, ensure_ascii=False)

    def count_tokens(self, text: str) -> TokenCount | None:
        return None  # the endpoint's tokenizer is not the kit's to call

    def model_load_ms(self) -> float | None:
        return None

    def notes(self) -> tuple[str, ...]:
        return (
            *self._endpoint.notes,
            *self._capped,
            *self._usage.note(),
            *self._endpoint.cache_notes(),
        )

    def close(self) -> None:
        self._endpoint.close()
