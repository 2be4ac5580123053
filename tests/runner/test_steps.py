"""Which tool an agent step may call (``runner/steps.py``, ``parse_step``): only one that the
adapter session lists *and* the task allows. Either alone is not enough; a refused step is
``disallowed_tool`` and never reaches the adapter.
"""

from __future__ import annotations

import pytest

from agentic.contract.canonical import canonical_text
from agentic.contract.steps import ToolStep
from agentic.contract.task import AgentTask
from agentic.runner import steps
from agentic.runner.bounded import BoundedExecutor
from agentic.runner.steps import StepError, parse_step
from agentic.runner.trial import TrialBounds, run_trial
from tests.support.fakes import TASK_JSON, ScriptedAdapter, ScriptedAgent, always_ok, tool_step

EVERY_TOOL = frozenset({"search", "get", "multi_get"})


def task_allowing(*tools: str) -> AgentTask:
    return AgentTask.model_validate({**TASK_JSON, "allowedTools": list(tools)})


def refusal(raw: str, task: AgentTask, listed: frozenset[str]) -> str:
    with pytest.raises(StepError) as refused:
        parse_step(raw, task, listed)
    return refused.value.code


def test_a_tool_listed_and_allowed_is_a_tool_step() -> None:
    step = parse_step(tool_step("search"), task_allowing("search"), frozenset({"search"}))

    assert step == ToolStep(kind="tool", toolName="search", arguments={"query": "part"})


def test_a_tool_listed_by_the_adapter_but_not_allowed_by_the_task_is_refused() -> None:
    task = task_allowing("get", "multi_get")

    assert refusal(tool_step("search"), task, EVERY_TOOL) == "disallowed_tool"


def test_a_tool_allowed_by_the_task_but_not_listed_by_the_adapter_is_refused() -> None:
    listed = frozenset({"get", "multi_get"})

    assert refusal(tool_step("search"), task_allowing("search"), listed) == "disallowed_tool"


def test_a_tool_neither_listed_nor_allowed_is_refused() -> None:
    assert refusal(tool_step("delete"), task_allowing("search"), EVERY_TOOL) == "disallowed_tool"


def test_a_tool_name_that_is_not_a_string_is_refused() -> None:
    raw = '{"kind":"tool","toolName":["search"],"arguments":{"query":"part"}}'

    assert refusal(raw, task_allowing("search"), EVERY_TOOL) == "disallowed_tool"


def test_the_tool_is_checked_before_its_arguments() -> None:
    raw = '{"kind":"tool","toolName":"search","arguments":{"query":7}}'

    assert refusal(raw, task_allowing("get"), EVERY_TOOL) == "disallowed_tool"


def test_arguments_that_are_not_an_object_are_an_invalid_action() -> None:
    raw = '{"kind":"tool","toolName":"search","arguments":["part"]}'

    assert refusal(raw, task_allowing("search"), EVERY_TOOL) == "invalid_agent_action"


def test_a_refused_tool_ends_the_trial_without_calling_the_adapter() -> None:
    adapter = ScriptedAdapter(always_ok)
    executor = BoundedExecutor()
    try:
        outcome = run_trial(
            ScriptedAgent([tool_step("search")]),
            adapter,
            task_allowing("get"),
            TrialBounds(5.0, EVERY_TOOL, executor),
        )
    finally:
        executor.close()

    assert outcome.failure is not None
    assert (outcome.failure.failure_class, outcome.failure.code) == (
        "agent_error",
        "disallowed_tool",
    )
    assert (adapter.calls, outcome.calls) == ([], [])


# --- what a refusal says ----------------------------------------------------------------------


def refusal_text(raw: str) -> tuple[str, str]:
    with pytest.raises(StepError) as refused:
        parse_step(raw, task_allowing("search"), EVERY_TOOL)
    return refused.value.code, str(refused.value)


@pytest.mark.parametrize(
    ("raw", "code", "message"),
    [
        ("[1]", "invalid_agent_step", "a step must be a JSON object"),
        ('{"kind":"think"}', "invalid_agent_step", "unknown step kind 'think'"),
        (
            '{"kind":"tool","toolName":"search"}',
            "invalid_agent_step",
            "a step must have exactly the keys ['arguments', 'kind', 'toolName']",
        ),
        (
            '{"kind":"tool","toolName":"get","arguments":{"uri":"x"}}',
            "disallowed_tool",
            "tool 'get' is not allowed for this task",
        ),
        (
            '{"kind":"tool","toolName":"search","arguments":[]}',
            "invalid_agent_action",
            "/ type [] is not of type 'object'",
        ),
    ],
)
def test_a_refused_step_says_why(raw: str, code: str, message: str) -> None:
    assert refusal_text(raw) == (code, message)


def test_malformed_json_is_named_as_agent_output() -> None:
    code, message = refusal_text("{")

    assert code == "malformed_agent_json"
    assert message.startswith("agent output")


def test_a_schema_invalid_envelope_names_each_schema_error() -> None:
    raw = '{"kind":"final","envelope":{"schemaVersion":"1.0"}}'

    code, message = refusal_text(raw)

    assert code == "invalid_final_envelope"
    assert message == "; ".join(
        f"/ required '{key}' is a required property"
        for key in ("abstained", "claims", "gaps", "stopReason")
    )


def test_a_semantically_invalid_envelope_names_each_issue() -> None:
    envelope = {
        "schemaVersion": "1.0",
        "claims": [
            {"claimKey": "other", "value": {"type": "string", "value": "x"}, "citations": []},
            {"claimKey": "more", "value": {"type": "string", "value": "y"}, "citations": []},
        ],
        "gaps": [],
        "abstained": False,
        "stopReason": "complete",
    }

    code, message = refusal_text(canonical_text({"kind": "final", "envelope": envelope}))

    assert code == "invalid_final_envelope"
    assert message == "extra_claim:more, extra_claim:other, missing_required_claim:partNumber"


def test_each_argument_error_is_named() -> None:
    raw = '{"kind":"tool","toolName":"search","arguments":{"query":7,"extra":1}}'

    code, message = refusal_text(raw)

    assert code == "invalid_agent_action"
    assert message.split("; ") == [
        "/ additionalProperties Additional properties are not allowed ('extra' was unexpected)",
        "/query type 7 is not of type 'string'",
    ]


def test_an_envelope_the_schema_lets_through_is_still_checked_by_the_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(steps, "_envelope_errors", lambda text: ())

    code, message = refusal_text('{"kind":"final","envelope":{"schemaVersion":"1.0"}}')

    assert (code, message) == ("invalid_final_envelope", "4 validation errors for FinalEnvelope")


def test_a_repeated_step_is_judged_by_its_own_values() -> None:
    # Verdicts are remembered by the step's JSON text: true must not pass for 1.
    task, listed = task_allowing("search"), frozenset({"search"})
    parse_step('{"kind":"tool","toolName":"search","arguments":{"query":"p","limit":1}}',
               task, listed)  # fmt: skip
    raw = '{"kind":"tool","toolName":"search","arguments":{"query":"p","limit":true}}'

    assert refusal(raw, task, listed) == "invalid_agent_action"
