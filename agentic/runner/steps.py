"""Strict validation of one raw agent step, identical for every agent."""

from __future__ import annotations

import json
from collections.abc import Collection
from functools import lru_cache

from pydantic import ValidationError

from agentic.contract.code_names import ErrorCodeName
from agentic.contract.envelope import FinalEnvelope
from agentic.contract.errors import AgenticError, ContractError
from agentic.contract.schemas import schema_errors
from agentic.contract.semantics import envelope_issues
from agentic.contract.steps import FinalStep, ToolStep
from agentic.contract.strict_json import JsonObject, JsonValue, parse_strict
from agentic.contract.task import AgentTask
from agentic.tools import argument_errors


class StepError(AgenticError):
    """The agent's output is not one valid step; ``code`` is the agent_error code."""

    def __init__(self, code: ErrorCodeName, message: str) -> None:
        self.code = code
        super().__init__(message)


# The schema pass is the costliest part of checking a step, and agents repeat their steps: the
# same envelope and calls come again in the warm cohort, in further trials and in capsule replays.
# The verdicts are kept by the JSON text of what was checked (a bounded number of them).
_REMEMBERED = 2048


def _json_text(value: JsonValue) -> str:
    """A key that tells apart every two values the schemas could tell apart (1 and 1.0, true
    and 1, key order aside); a value parsed from JSON, as every step is, is read back equal."""
    return json.dumps(value, ensure_ascii=False)


@lru_cache(maxsize=_REMEMBERED)
def _envelope_errors(text: str) -> tuple[str, ...]:
    return tuple(schema_errors("final-envelope", json.loads(text)))


@lru_cache(maxsize=_REMEMBERED)
def _argument_errors(name: str, text: str) -> tuple[str, ...]:
    return tuple(argument_errors(name, json.loads(text)))


def _require_keys(value: JsonObject, keys: set[str]) -> None:
    if set(value) != keys:
        raise StepError("invalid_agent_step", f"a step must have exactly the keys {sorted(keys)}")


def _final(value: JsonObject, task: AgentTask) -> FinalStep:
    _require_keys(value, {"kind", "envelope"})
    errors = _envelope_errors(_json_text(value["envelope"]))
    if errors:
        raise StepError("invalid_final_envelope", "; ".join(errors))
    try:
        envelope = FinalEnvelope.model_validate(value["envelope"])
    except ValidationError as exc:
        raise StepError("invalid_final_envelope", str(exc).splitlines()[0]) from None
    issues = envelope_issues(envelope, task)
    if issues:
        raise StepError("invalid_final_envelope", ", ".join(str(i) for i in issues))
    return FinalStep(kind="final", envelope=envelope)


def _tool(value: JsonObject, task: AgentTask, listed: Collection[str]) -> ToolStep:
    _require_keys(value, {"kind", "toolName", "arguments"})
    name = value["toolName"]
    if not isinstance(name, str) or name not in listed or name not in task.allowedTools:
        raise StepError("disallowed_tool", f"tool {name!r} is not allowed for this task")
    arguments = value["arguments"]
    errors = _argument_errors(name, _json_text(arguments))
    if errors or not isinstance(arguments, dict):
        raise StepError("invalid_agent_action", "; ".join(errors) or "arguments must be an object")
    return ToolStep(kind="tool", toolName=name, arguments=arguments)


def parse_step(raw: str, task: AgentTask, listed_tools: Collection[str]) -> ToolStep | FinalStep:
    try:
        value = parse_strict(raw, source="agent output")
    except ContractError as exc:
        raise StepError("malformed_agent_json", exc.message) from None
    if not isinstance(value, dict):
        raise StepError("invalid_agent_step", "a step must be a JSON object")
    kind = value.get("kind")
    if kind == "final":
        return _final(value, task)
    if kind == "tool":
        return _tool(value, task, listed_tools)
    raise StepError("invalid_agent_step", f"unknown step kind {kind!r}")
