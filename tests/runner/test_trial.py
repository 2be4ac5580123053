"""The trial loop: every agent and adapter failure ends in its contract class and code."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import pytest

from agentic.adapters.base import CallOutcome
from agentic.contract.code_names import ErrorCodeName
from agentic.contract.json_access import object_at
from agentic.contract.steps import VisibleCall
from agentic.runner.trial import TrialOutcome
from agentic.tools import visible_bytes
from tests.support.fakes import (
    ScriptedAdapter,
    ScriptedAgent,
    always_ok,
    final_step,
    ok_result,
    raising,
    run_scripted,
    tool_step,
)


def failure(outcome: TrialOutcome) -> tuple[str, str] | None:
    return (outcome.failure.failure_class, outcome.failure.code) if outcome.failure else None


def test_a_search_then_final_delivers_one_call_and_keeps_the_envelope() -> None:
    outcome = run_scripted(ScriptedAgent([tool_step(), final_step()]), ScriptedAdapter(always_ok))
    assert failure(outcome) is None
    assert outcome.envelope is not None
    assert [c.deliveredToAgent for c in outcome.calls] == [True]
    assert outcome.calls[0].modelVisibleUtf8Bytes == visible_bytes(ok_result())


def test_the_agent_sees_only_delivered_calls_without_backend_fields() -> None:
    agent = ScriptedAgent([tool_step(), final_step()])
    run_scripted(agent, ScriptedAdapter(always_ok))
    visible = agent.seen[1][0].result.to_json()
    assert "backendSourceHash" not in object_at(visible, "evidence", 0)
    assert "backendHashUnavailableReason" not in object_at(visible, "evidence", 0)


@pytest.mark.parametrize(
    ("output", "code"),
    [
        ("I will search now.", "malformed_agent_json"),
        ('{"kind":"tool","kind":"final"}', "malformed_agent_json"),
        (
            '{"kind":"tool","toolName":"search","arguments":{}} trailing prose',
            "malformed_agent_json",
        ),
        (
            '{"kind":"tool","toolName":"search","arguments":{"query":"x"}}{"kind":"think"}',
            "malformed_agent_json",
        ),
        ('{"kind":"tool","toolName":"delete","arguments":{}}', "disallowed_tool"),
        ('{"kind":"tool","toolName":"search","arguments":{"query":7}}', "invalid_agent_action"),
        (
            '{"kind":"tool","toolName":"search","arguments":{"query":"x"},"why":"x"}',
            "invalid_agent_step",
        ),
        ('{"kind":"think"}', "invalid_agent_step"),
        ("[1, 2]", "invalid_agent_step"),
        ('{"kind":"final","envelope":{"claims":[]}}', "invalid_final_envelope"),
    ],
)
def test_invalid_agent_output_is_an_agent_error(output: str, code: str) -> None:
    outcome = run_scripted(ScriptedAgent([output]), ScriptedAdapter(always_ok))
    assert failure(outcome) == ("agent_error", code)
    assert outcome.calls == []
    assert outcome.envelope is None


def test_a_call_beyond_the_call_budget_is_recorded_undelivered() -> None:
    agent = ScriptedAgent([tool_step(), tool_step()])
    outcome = run_scripted(agent, ScriptedAdapter(always_ok), maxAgentCalls=1)
    assert failure(outcome) == ("agent_error", "agent_call_budget_exceeded")
    assert [c.deliveredToAgent for c in outcome.calls] == [True, False]
    assert outcome.calls[-1].failureCode == "agent_call_budget_exceeded"
    assert outcome.calls[-1].modelVisibleUtf8Bytes == 0


def test_a_result_beyond_the_byte_budget_is_recorded_undelivered_with_its_result() -> None:
    size = visible_bytes(ok_result())
    outcome = run_scripted(
        ScriptedAgent([tool_step(), tool_step()]),
        ScriptedAdapter(always_ok),
        maxModelVisibleBytes=size + 1,
    )
    assert failure(outcome) == ("agent_error", "context_byte_budget_exceeded")
    last = outcome.calls[-1]
    assert (last.deliveredToAgent, last.modelVisibleUtf8Bytes, last.result.status) == (
        False,
        0,
        "ok",
    )
    assert last.backendInvocations == 1


@pytest.mark.parametrize(
    ("code", "failure_class"),
    [
        ("tool_timeout", "product_error"),
        ("task_scope_violation", "product_error"),
        ("invalid_tool_result", "harness_error"),
    ],
)
def test_a_typed_adapter_failure_keeps_its_code_and_class(
    code: ErrorCodeName, failure_class: Any
) -> None:
    outcome = run_scripted(
        ScriptedAgent([tool_step()]), ScriptedAdapter(raising(code, failure_class))
    )
    assert failure(outcome) == (failure_class, code)
    assert outcome.calls[-1].result.errorCode == code
    assert outcome.calls[-1].result.resultRole == "candidates"


def test_an_untyped_adapter_crash_is_tool_call_failed() -> None:
    def crash(tool_name: str, arguments: dict[str, Any]) -> CallOutcome:
        raise RuntimeError("segfault-ish")

    outcome = run_scripted(
        ScriptedAgent([tool_step("get", uri="gno://c001/d1.md")]), ScriptedAdapter(crash)
    )
    assert failure(outcome) == ("product_error", "tool_call_failed")
    assert outcome.calls[-1].result.resultRole == "source"


def test_a_result_that_is_not_a_tool_result_is_invalid() -> None:
    def garbage(tool_name: str, arguments: dict[str, Any]) -> CallOutcome:
        return CallOutcome(result="not a result", backend_invocations=1)  # type: ignore[arg-type]

    outcome = run_scripted(ScriptedAgent([tool_step()]), ScriptedAdapter(garbage))
    assert failure(outcome) == ("harness_error", "invalid_tool_result")


@dataclass
class InlineAgent(ScriptedAgent):
    """A scripted agent that declares its steps inline, and notes the thread of each."""

    steps_inline: ClassVar[Literal[True]] = True
    threads: list[threading.Thread] = field(default_factory=list)

    def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
        self.threads.append(threading.current_thread())
        return super().next_step(calls)


def test_an_inline_agent_steps_on_the_runners_own_thread() -> None:
    agent = InlineAgent([tool_step(), final_step()])
    outcome = run_scripted(agent, ScriptedAdapter(always_ok))
    assert failure(outcome) is None
    assert agent.threads == [threading.current_thread()] * 2


def test_any_other_agent_steps_on_a_worker_thread() -> None:
    threads: list[threading.Thread] = []

    class Noted(ScriptedAgent):
        def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
            threads.append(threading.current_thread())
            return super().next_step(calls)

    run_scripted(Noted([final_step()]), ScriptedAdapter(always_ok))
    assert threads and threads[0] is not threading.current_thread()


def test_an_inline_step_that_returns_past_its_deadline_is_agent_timeout() -> None:
    outcome = run_scripted(
        InlineAgent([tool_step()], delay_s=0.2), ScriptedAdapter(always_ok), timeout_s=0.05
    )
    assert failure(outcome) == ("agent_error", "agent_timeout")


def test_an_agent_step_past_its_deadline_is_agent_timeout() -> None:
    outcome = run_scripted(
        ScriptedAgent([tool_step()], delay_s=0.5), ScriptedAdapter(always_ok), timeout_s=0.05
    )
    assert failure(outcome) == ("agent_error", "agent_timeout")
    assert outcome.corrupts_cohort
