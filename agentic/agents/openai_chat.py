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
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

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
from agentic.contract.strict_json import parse_strict
from agentic.contract.task import AgentTask

AGENT_VERSION = "openai-chat-agent-v1"
PROMPT_VERSION = "openai-chat-prompt-v1"
FINAL_TOOL = "final_answer"
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
    extra_body: dict[str, Any] = Field(default_factory=dict)

    def behaviour(self) -> dict[str, Any]:
        """What decides the answers: not the URL, timeout, retries or the key's variable."""
        return {
            "model": self.model,
            "temperature": self.temperature,
            "seed": self.seed,
            "maxOutputTokens": self.max_output_tokens,
            "toolResults": self.tool_results,
            "extraBody": self.extra_body,
        }


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


def function_tools(tools: list[dict[str, Any]], task: AgentTask) -> list[dict[str, Any]]:
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


def _result_message(
    call: VisibleCall, call_id: str, role: Literal["tool", "user"]
) -> dict[str, Any]:
    result = canonical_text(call.result.to_json())
    if role == "tool":
        return {"role": "tool", "tool_call_id": call_id, "content": result}
    return {"role": "user", "content": f"Result of {call_id} ({call.toolName}): {result}"}


def messages(
    task: AgentTask, calls: tuple[VisibleCall, ...], tool_results: Literal["tool", "user"] = "tool"
) -> list[dict[str, Any]]:
    """The conversation: the system text, the public task, then each delivered call as the
    model's tool call and its projected result."""
    conversation: list[dict[str, Any]] = [
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


def _parsed_or_raw(text: str) -> tuple[Any, bool]:
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


def _arguments_text(function: Mapping[str, Any]) -> str:
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        return arguments
    # Some servers send the arguments as an object already; its JSON text is the same value.
    return json.dumps(arguments, ensure_ascii=False)


def step_text(reply: Mapping[str, Any]) -> str:
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
        return _step("final", FINAL_TOOL, content)
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
        self, task: AgentTask, tools: list[dict[str, Any]], *, seed: int | None
    ) -> OpenAIChatSession:
        endpoint = Endpoint(self._settings, self._cache)
        return OpenAIChatSession(self._config, endpoint, task, function_tools(tools, task), seed)


class OpenAIChatSession:
    def __init__(
        self,
        config: OpenAIChatConfig,
        endpoint: Endpoint,
        task: AgentTask,
        tools: list[dict[str, Any]],
        seed: int | None,
    ) -> None:
        self._config = config
        self._endpoint = endpoint
        self._task = task
        self._tools = tools
        self._seed = seed

    def request(self, calls: tuple[VisibleCall, ...]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self._config.model,
            "messages": messages(self._task, calls, self._config.tool_results),
            "tools": self._tools,
            "tool_choice": "auto",
            "temperature": self._config.temperature,
            "max_tokens": self._config.max_output_tokens,
            "stream": False,
        }
        if self._seed is not None:
            body["seed"] = self._seed
        return {**body, **self._config.extra_body}

    def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
        return step_text(self._endpoint.post_json("chat/completions", self.request(calls)))

    def count_tokens(self, text: str) -> TokenCount | None:
        return None  # the endpoint's tokenizer is not the kit's to call

    def model_load_ms(self) -> float | None:
        return None

    def notes(self) -> tuple[str, ...]:
        return (*self._endpoint.notes, *self._endpoint.cache_notes())

    def close(self) -> None:
        self._endpoint.close()
