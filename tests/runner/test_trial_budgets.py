"""The trial loop's budgets and bookkeeping (``runner/trial.py``): the call and byte budgets at
their boundaries, the byte budget summed over calls, what an undelivered call records, token
counts, what the adapter is asked, and the timings and diagnostics of a trial.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from agentic.adapters.base import CallOutcome
from agentic.adapters.errors import AdapterCallError
from agentic.agents.base import TokenCount
from agentic.contract.canonical import canonical_text
from agentic.contract.receipt import ToolResult
from agentic.contract.steps import VisibleCall
from agentic.runner.trial import TrialOutcome
from agentic.tools import project_result, visible_bytes
from tests.support.fakes import (
    ScriptedAdapter,
    ScriptedAgent,
    always_ok,
    final_step,
    ok_result,
    run_scripted,
    tool_step,
)

SIZE = visible_bytes(ok_result())
TOKENIZER = "e" * 64


def failure(outcome: TrialOutcome) -> tuple[str, str, str] | None:
    found = outcome.failure
    return (found.failure_class, found.code, found.message) if found else None


def searches(count: int) -> ScriptedAgent:
    return ScriptedAgent([*(tool_step() for _ in range(count)), final_step()])


# --- call budget ------------------------------------------------------------------------------


def test_calls_up_to_the_call_budget_are_all_delivered() -> None:
    outcome = run_scripted(searches(2), ScriptedAdapter(always_ok), maxAgentCalls=2)

    assert failure(outcome) is None
    assert [c.deliveredToAgent for c in outcome.calls] == [True, True]


def test_the_call_past_the_budget_is_recorded_without_reaching_the_adapter() -> None:
    adapter = ScriptedAdapter(always_ok)

    outcome = run_scripted(searches(3), adapter, maxAgentCalls=2)

    assert failure(outcome) == (
        "agent_error",
        "agent_call_budget_exceeded",
        "call 3 exceeds the budget",
    )
    assert adapter.calls == ["search", "search"]
    last = outcome.calls[-1]
    assert (last.callIndex, last.backendInvocations, last.result.errorCode) == (
        2,
        0,
        "agent_call_budget_exceeded",
    )
    assert (last.result.content, last.result.evidence, last.result.status) == ("", (), "error")


# --- byte budget ------------------------------------------------------------------------------


def test_a_result_exactly_filling_the_byte_budget_is_delivered() -> None:
    outcome = run_scripted(searches(1), ScriptedAdapter(always_ok), maxModelVisibleBytes=SIZE)

    assert failure(outcome) is None
    assert outcome.calls[0].modelVisibleUtf8Bytes == SIZE


def test_the_byte_budget_is_charged_over_every_delivered_call() -> None:
    outcome = run_scripted(searches(2), ScriptedAdapter(always_ok), maxModelVisibleBytes=2 * SIZE)

    assert failure(outcome) is None
    assert [c.modelVisibleUtf8Bytes for c in outcome.calls] == [SIZE, SIZE]


def test_a_result_one_byte_over_the_summed_budget_is_withheld() -> None:
    outcome = run_scripted(
        searches(2), ScriptedAdapter(always_ok), maxModelVisibleBytes=2 * SIZE - 1
    )

    assert failure(outcome) == (
        "agent_error",
        "context_byte_budget_exceeded",
        f"{2 * SIZE} bytes exceed the budget",
    )
    withheld = outcome.calls[-1]
    assert (withheld.deliveredToAgent, withheld.failureCode, withheld.modelVisibleUtf8Bytes) == (
        False,
        "context_byte_budget_exceeded",
        0,
    )


# --- token counts -----------------------------------------------------------------------------


@dataclass
class CountingAgent(ScriptedAgent):
    """A scripted agent with a tokenizer: one token per byte of the text it is shown."""

    counted: list[str] = field(default_factory=list)

    def count_tokens(self, text: str) -> TokenCount | None:
        self.counted.append(text)
        return TokenCount(tokens=len(text.encode()), tokenizer_fingerprint=TOKENIZER)


def test_a_delivered_call_records_the_agents_token_count() -> None:
    agent = CountingAgent([tool_step(), final_step()])

    outcome = run_scripted(agent, ScriptedAdapter(always_ok))

    call = outcome.calls[0]
    assert (call.measuredTokens, call.tokenizerFingerprint) == (SIZE, TOKENIZER)


def test_the_tokenizer_counts_exactly_the_text_the_agent_sees() -> None:
    agent = CountingAgent([tool_step(), final_step()])

    run_scripted(agent, ScriptedAdapter(always_ok))

    assert agent.counted == [canonical_text(project_result(ok_result()).to_json())]


def test_without_a_tokenizer_no_tokens_are_recorded() -> None:
    outcome = run_scripted(searches(1), ScriptedAdapter(always_ok))

    assert (outcome.calls[0].measuredTokens, outcome.calls[0].tokenizerFingerprint) == (None, None)


# --- what the adapter is asked, and what it may answer ----------------------------------------


@dataclass
class RecordingSession(ScriptedAdapter):
    asked: list[tuple[str, dict[str, Any], float]] = field(default_factory=list)

    def call(self, tool_name: str, arguments: dict[str, Any], *, timeout_s: float) -> CallOutcome:
        self.asked.append((tool_name, arguments, timeout_s))
        return super().call(tool_name, arguments, timeout_s=timeout_s)


def test_the_adapter_is_asked_the_agents_tool_and_arguments_within_the_trial_timeout() -> None:
    adapter = RecordingSession(always_ok)
    agent = ScriptedAgent([tool_step("get", uri="gno://c001/d1.md"), final_step()])

    run_scripted(agent, adapter, timeout_s=4.5)

    assert adapter.asked == [("get", {"uri": "gno://c001/d1.md"}, 4.5)]


def test_an_outcome_without_backend_invocations_is_valid() -> None:
    def none_counted(tool_name: str, arguments: dict[str, Any]) -> CallOutcome:
        return CallOutcome(result=ok_result(), backend_invocations=0)

    outcome = run_scripted(searches(1), ScriptedAdapter(none_counted))

    assert failure(outcome) is None
    assert outcome.calls[0].backendInvocations == 0


def test_an_outcome_with_negative_backend_invocations_is_an_invalid_tool_result() -> None:
    def negative(tool_name: str, arguments: dict[str, Any]) -> CallOutcome:
        return CallOutcome(result=ok_result(), backend_invocations=-1)

    outcome = run_scripted(searches(1), ScriptedAdapter(negative))

    assert failure(outcome) == ("harness_error", "invalid_tool_result", "malformed call outcome")


def test_a_result_that_fails_revalidation_is_an_invalid_tool_result() -> None:
    def smuggled(tool_name: str, arguments: dict[str, Any]) -> CallOutcome:
        unchecked = ToolResult.model_construct(
            status="ok", resultRole="source", content="x", evidence=(), errorCode="sneaky"
        )
        return CallOutcome(result=unchecked, backend_invocations=1)

    outcome = run_scripted(searches(1), ScriptedAdapter(smuggled))

    assert failure(outcome) is not None
    assert failure(outcome)[:2] == ("harness_error", "invalid_tool_result")  # type: ignore[index]
    assert outcome.calls[-1].result.errorCode == "invalid_tool_result"


# --- messages, diagnostics, timings -----------------------------------------------------------


def test_an_agent_crash_names_the_exception() -> None:
    class Crashing(ScriptedAgent):
        def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
            raise RuntimeError("boom")

    outcome = run_scripted(Crashing([]), ScriptedAdapter(always_ok))

    assert failure(outcome) == (
        "agent_error",
        "invalid_agent_step",
        "agent raised RuntimeError('boom')",
    )


def test_a_failure_is_also_a_diagnostic_with_its_code() -> None:
    outcome = run_scripted(ScriptedAgent(["{}"]), ScriptedAdapter(always_ok))

    assert outcome.diagnostics == ["invalid_agent_step: unknown step kind None"]


def test_an_agent_timeout_says_how_long_it_waited() -> None:
    outcome = run_scripted(
        ScriptedAgent([tool_step()], delay_s=0.5), ScriptedAdapter(always_ok), 0.05
    )

    assert failure(outcome) == ("agent_error", "agent_timeout", "exceeded 0.05 s")


def test_an_adapters_diagnostics_are_kept() -> None:
    def chatty(tool_name: str, arguments: dict[str, Any]) -> CallOutcome:
        return CallOutcome(result=ok_result(), backend_invocations=1, diagnostics=("warm cache",))

    outcome = run_scripted(searches(1), ScriptedAdapter(chatty))

    assert outcome.diagnostics == ["warm cache"]


def test_tool_time_is_measured_per_call_in_milliseconds() -> None:
    def slow(tool_name: str, arguments: dict[str, Any]) -> CallOutcome:
        time.sleep(0.02)
        return always_ok(tool_name, arguments)

    outcome = run_scripted(searches(2), ScriptedAdapter(slow))

    assert len(outcome.tool_ms) == 2
    assert all(20 <= ms < 2000 for ms in outcome.tool_ms)


def test_a_failed_call_is_timed_too() -> None:
    def slow_failure(tool_name: str, arguments: dict[str, Any]) -> CallOutcome:
        time.sleep(0.02)
        raise RuntimeError("crash")

    outcome = run_scripted(searches(1), ScriptedAdapter(slow_failure))

    assert len(outcome.tool_ms) == 1
    assert 20 <= outcome.tool_ms[0] < 2000


def test_driver_time_adds_up_every_agent_step_in_milliseconds() -> None:
    outcome = run_scripted(
        ScriptedAgent([tool_step(), final_step()], delay_s=0.02), ScriptedAdapter(always_ok)
    )

    assert 40 <= outcome.driver_ms < 4000


def test_the_byte_budget_keeps_adding_up_past_the_second_call() -> None:
    outcome = run_scripted(
        searches(3), ScriptedAdapter(always_ok), maxModelVisibleBytes=3 * SIZE - 1
    )

    assert [c.deliveredToAgent for c in outcome.calls] == [True, True, False]


def test_a_typed_adapter_failure_is_timed_too() -> None:
    def slow_refusal(tool_name: str, arguments: dict[str, Any]) -> CallOutcome:
        time.sleep(0.02)
        raise AdapterCallError("tool_timeout", "product_error", "slow")

    outcome = run_scripted(searches(1), ScriptedAdapter(slow_refusal))

    assert len(outcome.tool_ms) == 1
    assert 20 <= outcome.tool_ms[0] < 2000


def test_an_invalid_result_names_the_validation_error() -> None:
    def smuggled(tool_name: str, arguments: dict[str, Any]) -> CallOutcome:
        unchecked = ToolResult.model_construct(
            status="ok", resultRole="source", content="x", evidence=(), errorCode="sneaky"
        )
        return CallOutcome(result=unchecked, backend_invocations=1)

    outcome = run_scripted(searches(1), ScriptedAdapter(smuggled))

    assert outcome.failure is not None
    assert "validation error for ToolResult" in outcome.failure.message
