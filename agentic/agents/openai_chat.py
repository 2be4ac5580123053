"""The openai-chat agent: any OpenAI-compatible chat-completions endpoint, as an agent.
A TOML file configures it. The endpoint may be llama.cpp's server, vLLM, Ollama or a hosted API.

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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from agentic.agents import rendered_chat
from agentic.agents.base import AgentStepError, TokenCount
from agentic.agents.chat_config import (
    INCREMENT_BYTES_PER_TOKEN,
    STEP_GRACE_S,
    Measured,
    OpenAIChatConfig,
    context_left,
)
from agentic.agents.chat_endpoint import Endpoint, EndpointSettings, Usage, first_message
from agentic.agents.llm_cache import LlmCache
from agentic.agents.prompting import render_task
from agentic.agents.rendered_chat import RenderedChatSession
from agentic.contract.canonical import canonical_text, fingerprint
from agentic.contract.errors import ContractError
from agentic.contract.json_access import as_object
from agentic.contract.schemas import load_schemas
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonObject, JsonValue, parse_strict
from agentic.contract.task import AgentTask

AGENT_VERSION = "openai-chat-agent-v1"
PROMPT_VERSION = "openai-chat-prompt-v2"
FINAL_TOOL = "final_answer"
# What a read the model left unbounded is expected to cost per line once projected (the line's
# text plus its uri, hashes and provenances): the cap the agent adds is an estimate, and the
# request is measured again before it is sent.
PROJECTED_BYTES_PER_LINE = 320
PROJECTED_BYTES_PER_TEXT_BYTE = 6

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

# --- what the model is offered and shown -------------------------------------------------------


def function_tools(tools: list[JsonObject], task: AgentTask) -> list[JsonObject]:
    """The task's allowed tools (in the task's order) as functions, then ``final_answer``."""
    listed = {str(tool["name"]): tool for tool in tools}
    envelope = {
        k: v for k, v in load_schemas()["final-envelope"].items() if k not in ("$schema", "$id")
    }
    offered: list[JsonObject] = [
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
    final: JsonObject = {
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
    return [tool for tool in tools if as_object(tool["function"], "function")["name"] == FINAL_TOOL]


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
    message = first_message(reply)
    tool_calls = message.get("tool_calls") or []
    if not isinstance(tool_calls, list):
        raise _invalid("the reply's tool_calls is not a list")
    if len(tool_calls) > 1:
        return json.dumps(tool_calls, ensure_ascii=False)  # one step per turn: no step at all
    if tool_calls:
        function = tool_calls[0].get("function") if isinstance(tool_calls[0], dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(function, dict) or not isinstance(name, str):
            raise _invalid("a tool call of the reply has no function name")
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
                "prompt": _prompt_version(config),
                "behaviour": config.behaviour(),
                "endpointModels": list(identity.models),
                "answers": identity.answers,
            }
        )

    def model_fingerprint(self) -> str:
        return self._fingerprint

    def prompt_fingerprint(self, task: AgentTask) -> str:
        if self._config.protocol == "rendered":
            return rendered_chat.prompt_fingerprint(task)
        return fingerprint(
            {"system": SYSTEM_PROMPT, "prompt": PROMPT_VERSION, "task": render_task(task)}
        )

    def open(
        self, task: AgentTask, tools: list[JsonObject], *, seed: int | None
    ) -> OpenAIChatSession | RenderedChatSession:
        endpoint = Endpoint(self._settings, self._cache)
        if self._config.protocol == "rendered":
            return RenderedChatSession(self._config, endpoint, task, seed)
        return OpenAIChatSession(self._config, endpoint, task, function_tools(tools, task), seed)


def _prompt_version(config: OpenAIChatConfig) -> str:
    return rendered_chat.PROMPT_VERSION if config.protocol == "rendered" else PROMPT_VERSION


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
            "messages": list(conversation),
            "tools": list(tools),
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
        """Bytes the budget leaves after a request of ``size`` bytes (None: no budget)."""
        left = context_left(self._config, size, self._measured)
        if left is None:
            return None
        # What is left in tokens is spent by new bytes at the increment rate.
        budget = self._config.context_budget
        return int(
            left
            if budget is not None and budget.bytes is not None
            else left * INCREMENT_BYTES_PER_TOKEN
        )

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
