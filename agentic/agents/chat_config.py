"""An openai-chat agent's config (``--agent-config FILE``, TOML): what it talks to, how, and
the budgets a conversation keeps. Closed and strictly typed: an unknown key, a wrong type or a
setting of the other protocol is one ``invalid_agent_config`` line (exit 2).

The context budget is kept by estimate (``request_room``): a request's tokens are judged from
its bytes, calibrated by the prompt tokens the endpoint reports for the previous request.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentic.agents.base import AgentStepError
from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file
from agentic.contract.strict_json import JsonObject

# How long after its deadline the runner still waits for a step (``step_deadline_s``): the
# endpoint ends it at the deadline, and a cancelled request takes milliseconds to close.
STEP_GRACE_S = 5.0
# Request fields the agent sets itself; extra_body may add others, never replace these.
OWN_FIELDS = frozenset(
    {
        "model",
        "messages",
        "tools",
        "tool_choice",
        "temperature",
        "seed",
        "max_tokens",
        "stream",
        "grammar",
    }
)
# Settings of how OpenAI function calls are read and forced; the rendered protocol has its own.
FUNCTIONS_ONLY = frozenset({"tool_results", "tool_choice", "text_tool_calls", "final_only"})

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
    # How the model is prompted and held to the contract (docs/agents.md): "functions" lists the
    # contract's tools as OpenAI functions and shows each result as its projected JSON;
    # "rendered" shows results as numbered lines sized to the budgets, lists tools reduced to
    # what a task can use, and sends a grammar (llama.cpp's ``grammar`` field) that admits only
    # the task's tools, collections, seen uris and shown lines (``rendered_chat``).
    protocol: Literal["functions", "rendered"] = "functions"

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
        if self.protocol != "functions":
            found["protocol"] = self.protocol
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
    functions_only = sorted(FUNCTIONS_ONLY & config.model_fields_set)
    if config.protocol == "rendered" and functions_only:
        raise ContractError(
            "invalid_agent_config",
            f'{path}: {functions_only[0]} applies to protocol "functions" only',
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


def context_left(config: OpenAIChatConfig, size: int, last: Measured | None) -> float | None:
    """What the context budget leaves after a request of ``size`` bytes, in its unit (None: no
    budget); a request already over it ends the pair as the agent's failure, before it is sent."""
    budget = config.context_budget
    if budget is None:
        return None
    output = config.max_output_tokens
    used, left = request_room(budget, output, size, last)
    if left < 0:
        raise AgentStepError(
            "agent_error",
            "agent_context_exceeded",
            f"the next request ({size} bytes, about {used:.0f} in the budget's unit) is over "
            f"the context budget of {budget.described()} less {output} output tokens",
        )
    return left
