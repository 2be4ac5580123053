"""The agent protocol: ``Agent``, ``AgentSession``, ``TokenCount`` and ``AgentStepError``.

An agent sees the public task, the tool definitions, and the visible history of delivered calls.
Each step it returns raw text: exactly one JSON object, either
``{"kind": "tool", "toolName": ..., "arguments": {...}}`` or
``{"kind": "final", "envelope": {...FinalEnvelope...}}``. The runner parses that text strictly and
validates it, the same way for every agent, so a deterministic agent gets no special treatment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import AgenticError
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask

AgentErrorClass = Literal["agent_error", "harness_error"]


class AgentStepError(AgenticError):
    """A step an agent could not take, classified by the agent itself: ``failure_class``
    (``agent_error`` or ``harness_error``) and a code. The runner ends the pair with exactly
    this failure; any other exception from ``next_step`` is an ``invalid_agent_step``."""

    def __init__(self, failure_class: AgentErrorClass, code: ErrorCodeName, message: str) -> None:
        self.failure_class = failure_class
        self.code = code
        super().__init__(message)


@runtime_checkable
class ReportsNotes(Protocol):
    """An agent session that has notes for the receipt's diagnostics (e.g. a rate limit it
    waited out). Optional: the runner asks each session whether it implements it."""

    def notes(self) -> tuple[str, ...]: ...


@runtime_checkable
class KeepsStepDeadline(Protocol):
    """An agent session with a step deadline of its own (an endpoint agent's request timeout,
    from its config): the runner bounds its steps by that, not by the run's per-operation
    timeout, which then bounds tool calls alone. Optional, like ``ReportsNotes``."""

    @property
    def step_deadline_s(self) -> float: ...


@runtime_checkable
class StepsInline(Protocol):
    """An agent session whose every step is computation on what it already holds, with no I/O,
    model or wait (the fixture agent's). The runner takes such steps on its own thread: handing
    each to a worker thread costs more than the step itself. The deadline still applies, checked
    when the step returns. Deliberately not part of ``agentic.plugins``: a step that never
    returned would hang the run, which the worker thread is there to prevent."""

    @property
    def steps_inline(self) -> Literal[True]: ...


@dataclass(frozen=True)
class TokenCount:
    """Tokens of one delivered result under the agent's own tokenizer."""

    tokens: int
    tokenizer_fingerprint: str


class AgentSession(Protocol):
    def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
        """Raw output text of the next step, given every delivered call so far."""
        ...

    def count_tokens(self, text: str) -> TokenCount | None:
        """Tokens of ``text`` under the model's tokenizer, or None when the agent has none."""
        ...

    def model_load_ms(self) -> float | None:
        """Model load time when this session loaded a model, else None."""
        ...

    def close(self) -> None: ...


class Agent(Protocol):
    agent_id: str

    def model_fingerprint(self) -> str:
        """Identity of the agent's decision procedure (state machine + cue table, or model)."""
        ...

    def prompt_fingerprint(self, task: AgentTask) -> str: ...

    def open(self, task: AgentTask, tools: list[JsonObject], *, seed: int | None) -> AgentSession:
        """A session for one trial; ``seed`` is the trial's seed (sampling agents use it)."""
        ...
