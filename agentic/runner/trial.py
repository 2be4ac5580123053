"""One trial: the loop between an agent session and an adapter session for one task.

The loop is bounded by construction: every tool step adds a call, and a step that would exceed
``maxAgentCalls`` ends the trial, so there are at most ``maxAgentCalls + 1`` agent steps.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial

from pydantic import ValidationError

from agentic.adapters.base import AdapterSession, CallOutcome
from agentic.adapters.errors import AdapterCallError
from agentic.agents.base import (
    AgentSession,
    AgentStepError,
    KeepsStepDeadline,
    ReportsNotes,
    StepsInline,
)
from agentic.contract.canonical import canonical_bytes
from agentic.contract.envelope import FinalEnvelope
from agentic.contract.errors import ContractError
from agentic.contract.receipt import Call, FailureClass, ToolResult
from agentic.contract.steps import FinalStep, VisibleCall
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask
from agentic.runner.bounded import BoundedExecutor, OperationTimeoutError, run_on_caller
from agentic.runner.redaction import redact
from agentic.runner.steps import StepError, parse_step
from agentic.tools import project_result

# Failures after which a warm cohort's process/model state is unknown (an oversized MCP message
# kills the product's process group, as a timeout does).
CORRUPTING_CODES = frozenset(
    {
        "tool_timeout",
        "tool_call_failed",
        "invalid_tool_result",
        "tool_result_too_large",
        "agent_timeout",
    }
)


@dataclass(frozen=True)
class TrialFailure:
    failure_class: FailureClass
    code: str
    message: str


@dataclass
class TrialOutcome:
    calls: list[Call] = field(default_factory=list)
    envelope: FinalEnvelope | None = None
    failure: TrialFailure | None = None
    tool_ms: list[float] = field(default_factory=list)
    driver_ms: float = 0.0
    diagnostics: list[str] = field(default_factory=list)

    @property
    def corrupts_cohort(self) -> bool:
        return self.failure is not None and self.failure.code in CORRUPTING_CODES


@dataclass(frozen=True)
class TrialBounds:
    """What bounds a trial besides its task's budgets: every agent step and tool call ends
    within ``timeout_s`` on ``executor``, and only ``listed_tools`` may be called."""

    timeout_s: float
    listed_tools: frozenset[str]
    executor: BoundedExecutor


def _synthetic_error(tool_name: str, code: str) -> ToolResult:
    role = "candidates" if tool_name == "search" else "source"
    return ToolResult(status="error", resultRole=role, content="", evidence=(), errorCode=code)


def _record(
    outcome: TrialOutcome,
    tool_name: str,
    arguments: JsonObject,
    result: ToolResult,
    *,
    delivered: bool,
    failure_code: str | None,
    visible: int,
    backend_invocations: int,
    tokens: tuple[int, str] | None = None,
) -> Call:
    call = Call(
        callIndex=len(outcome.calls),
        toolName=tool_name,
        arguments=arguments,
        result=result,
        deliveredToAgent=delivered,
        failureCode=failure_code,
        modelVisibleUtf8Bytes=visible if delivered else 0,
        measuredTokens=tokens[0] if tokens else None,
        tokenizerFingerprint=tokens[1] if tokens else None,
        backendInvocations=backend_invocations,
    )
    outcome.calls.append(call)
    return call


def _record_undelivered(
    outcome: TrialOutcome, tool_name: str, arguments: JsonObject, code: str
) -> None:
    """A call that never reached the agent: it still counts as an agent call (contract v1.0),
    with a synthetic error result and nothing charged."""
    _record(
        outcome,
        tool_name,
        arguments,
        _synthetic_error(tool_name, code),
        delivered=False,
        failure_code=code,
        visible=0,
        backend_invocations=0,
    )


def fail_trial(outcome: TrialOutcome, failure_class: FailureClass, code: str, message: str) -> None:
    """End ``outcome`` with this failure; its (redacted) message also becomes a diagnostic."""
    redacted = redact(message)
    outcome.failure = TrialFailure(failure_class, code, redacted)
    outcome.diagnostics.append(f"{code}: {redacted}")


def _call_adapter(
    adapter: AdapterSession, tool_name: str, arguments: JsonObject, timeout_s: float
) -> CallOutcome:
    outcome = adapter.call(tool_name, arguments, timeout_s=timeout_s)
    if not isinstance(outcome.result, ToolResult) or outcome.backend_invocations < 0:
        raise AdapterCallError("invalid_tool_result", "harness_error", "malformed call outcome")
    # Re-validate: an adapter must not smuggle an unchecked object into a receipt.
    ToolResult.model_validate(outcome.result.to_json())
    return outcome


def _step_deadline(agent: AgentSession, bounds: TrialBounds) -> float:
    """An agent's own step deadline where it keeps one, else the run's per-operation timeout."""
    return agent.step_deadline_s if isinstance(agent, KeepsStepDeadline) else bounds.timeout_s


def run_trial(
    agent: AgentSession, adapter: AdapterSession, task: AgentTask, bounds: TrialBounds
) -> TrialOutcome:
    """One trial: steps until a final envelope or a failure. What the agent noted on the way
    (say, a rate limit its endpoint made it wait out) joins the receipt's diagnostics."""
    outcome = TrialOutcome()
    _take_steps(outcome, agent, adapter, task, bounds)
    if isinstance(agent, ReportsNotes):
        outcome.diagnostics.extend(redact(note) for note in agent.notes())
    return outcome


def _take_steps(
    outcome: TrialOutcome,
    agent: AgentSession,
    adapter: AdapterSession,
    task: AgentTask,
    bounds: TrialBounds,
) -> None:
    """Fill ``outcome`` step by step; it ends at the final envelope or the first failure."""
    visible_calls: list[VisibleCall] = []
    used_bytes = 0
    deadline_s = _step_deadline(agent, bounds)  # a protocol check costs; the agent stays
    run_step = run_on_caller if isinstance(agent, StepsInline) else bounds.executor.run
    while True:
        history = tuple(visible_calls)
        started = time.perf_counter()
        try:
            ask = partial(agent.next_step, history)
            raw = run_step(ask, deadline_s)
        except OperationTimeoutError as exc:
            fail_trial(outcome, "agent_error", "agent_timeout", str(exc))
            return
        except AgentStepError as exc:  # classified by the agent: its endpoint failed, say
            fail_trial(outcome, exc.failure_class, exc.code, str(exc))
            return
        except ContractError:
            raise  # bad input met mid-run (a replay cache miss): the whole command ends, exit 2
        except Exception as exc:  # an agent crash is the agent's failure, never the harness's
            fail_trial(outcome, "agent_error", "invalid_agent_step", f"agent raised {exc!r}")
            return
        finally:
            outcome.driver_ms += (time.perf_counter() - started) * 1000
        try:
            step = parse_step(raw, task, bounds.listed_tools)
        except StepError as exc:
            fail_trial(outcome, "agent_error", exc.code, str(exc))
            return
        if isinstance(step, FinalStep):
            outcome.envelope = step.envelope
            return
        name, arguments = step.toolName, step.arguments
        if len(outcome.calls) >= task.budgets.maxAgentCalls:
            code = "agent_call_budget_exceeded"
            _record_undelivered(outcome, name, arguments, code)
            fail_trial(
                outcome, "agent_error", code, f"call {len(outcome.calls)} exceeds the budget"
            )
            return
        started = time.perf_counter()
        try:
            called = _call_adapter(adapter, name, arguments, bounds.timeout_s)
        except AdapterCallError as exc:
            outcome.tool_ms.append((time.perf_counter() - started) * 1000)
            _record_undelivered(outcome, name, arguments, exc.code)
            fail_trial(outcome, exc.failure_class, exc.code, str(exc))
            return
        except Exception as exc:  # untyped: a result that fails validation, or a crash
            outcome.tool_ms.append((time.perf_counter() - started) * 1000)
            invalid = isinstance(exc, ValidationError)
            code = "invalid_tool_result" if invalid else "tool_call_failed"
            _record_undelivered(outcome, name, arguments, code)
            fail_trial(outcome, "harness_error" if invalid else "product_error", code, repr(exc))
            return
        outcome.tool_ms.append((time.perf_counter() - started) * 1000)
        outcome.diagnostics.extend(redact(d) for d in called.diagnostics)
        # One projection and one canonicalization serve both the byte charge (what
        # ``visible_bytes`` computes) and the text the agent's tokenizer counts.
        projected = project_result(called.result)
        visible = canonical_bytes(projected.to_json())
        size = len(visible)
        if used_bytes + size > task.budgets.maxModelVisibleBytes:
            code = "context_byte_budget_exceeded"
            _record(
                outcome,
                name,
                arguments,
                called.result,
                delivered=False,
                failure_code=code,
                visible=0,
                backend_invocations=called.backend_invocations,
            )
            fail_trial(outcome, "agent_error", code, f"{used_bytes + size} bytes exceed the budget")
            return
        counted = agent.count_tokens(visible.decode("utf-8"))
        tokens = (counted.tokens, counted.tokenizer_fingerprint) if counted else None
        call = _record(
            outcome,
            name,
            arguments,
            called.result,
            delivered=True,
            failure_code=None,
            visible=size,
            backend_invocations=called.backend_invocations,
            tokens=tokens,
        )
        used_bytes += size
        visible_calls.append(
            VisibleCall(
                callIndex=call.callIndex, toolName=name, arguments=arguments, result=projected
            )
        )
