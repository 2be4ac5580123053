"""The rendered protocol's sizing: reads and searches share what is left of the task's byte
budget; each result shows a slice the model's context can hold beside every remaining call."""

from __future__ import annotations

from typing import Any

from agentic.agents.context_policy import (
    BYTES_PER_HIT,
    BYTES_PER_LINE,
    LINES_MAX,
    RESULT_CHARS_MAX,
    RESULT_CHARS_MIN,
    SEARCH_LIMIT_MAX,
    affordable_tools,
    call_room,
    charged_bytes,
    result_chars,
    sized_arguments,
)
from agentic.contract.steps import VisibleCall
from agentic.contract.task import AgentTask
from tests.support.tiny_fixture import TASK_B, tiny_documents


def task(calls: int = 4, byte_budget: int = 16000) -> AgentTask:
    document = tiny_documents()[f"tasks/{TASK_B}.json"]
    budgets = {"maxAgentCalls": calls, "maxModelVisibleBytes": byte_budget}
    return AgentTask.model_validate({**document, "budgets": budgets})


def delivered(content: str, tool: str = "get") -> VisibleCall:
    result: dict[str, Any] = {
        "status": "ok", "resultRole": "source", "content": content,
        "evidence": [], "errorCode": None,
    }  # fmt: skip
    return VisibleCall.model_validate(
        {
            "callIndex": 0,
            "toolName": tool,
            "arguments": {"uri": "gno://c0b2/d.md"},
            "result": result,
        }
    )


def test_each_call_may_spend_an_even_share_of_the_byte_budget_left() -> None:
    first = delivered("x" * 3000)
    left = 16000 - charged_bytes(first)
    assert call_room(task(calls=4), ()) == 4000
    assert call_room(task(calls=4), (first,)) == left // 3


def test_a_search_gets_as_many_hits_as_its_share_holds() -> None:
    sized = sized_arguments("search", {"query": "q", "collection": "c"}, 3 * BYTES_PER_HIT)
    assert sized == {"query": "q", "collection": "c", "limit": 3}


def test_a_search_limit_is_at_least_one_and_at_most_the_policys() -> None:
    assert sized_arguments("search", {"query": "q"}, 0)["limit"] == 1
    assert sized_arguments("search", {"query": "q"}, 10**9)["limit"] == SEARCH_LIMIT_MAX


def test_a_read_the_model_left_unbounded_gets_a_line_count() -> None:
    assert sized_arguments("get", {"uri": "u"}, 10**9)["lineCount"] == LINES_MAX


def test_a_read_size_the_model_chose_is_clamped_to_the_share() -> None:
    sized = sized_arguments("get", {"uri": "u", "lineCount": 500}, 5 * BYTES_PER_LINE)
    assert sized["lineCount"] == 5


def test_a_smaller_read_size_the_model_chose_is_kept() -> None:
    assert sized_arguments("get", {"uri": "u", "lineCount": 2}, 10**9)["lineCount"] == 2


def test_a_multi_get_gets_a_byte_cap() -> None:
    assert "maxBytes" in sized_arguments("multi_get", {"uris": ["u"]}, 6000)


def test_a_result_slice_shares_the_context_left_among_the_calls() -> None:
    chars = result_chars(4000, fixed_tokens=1500, output_tokens=1000, calls=4)
    assert RESULT_CHARS_MIN < chars < RESULT_CHARS_MAX
    assert chars == int((4000 - 1500 - 1000 - 4 * 80) * 3.0 / 4)


def test_a_roomy_context_shows_the_largest_slice() -> None:
    assert result_chars(32768, fixed_tokens=1500, output_tokens=1000, calls=4) == RESULT_CHARS_MAX


def test_a_cramped_context_still_shows_the_smallest_slice() -> None:
    assert result_chars(3000, fixed_tokens=2500, output_tokens=1000, calls=4) == RESULT_CHARS_MIN


# --- which tools are offered -------------------------------------------------------------------


def spent_to(task_: AgentTask, left: int, tool: str = "get") -> VisibleCall:
    """A delivered call that leaves ``left`` bytes of ``task_``'s budget."""
    empty = charged_bytes(delivered("", tool))
    return delivered("x" * (task_.budgets.maxModelVisibleBytes - left - empty), tool)


def test_every_allowed_tool_is_offered_while_the_budget_is_whole() -> None:
    assert affordable_tools(task(), ()) == task().allowedTools


def test_reads_are_offered_while_one_line_fits_and_not_after() -> None:
    roomy = affordable_tools(task(), (spent_to(task(), BYTES_PER_LINE),))
    cramped = affordable_tools(task(), (spent_to(task(), BYTES_PER_LINE - 1),))
    assert "get" in roomy
    assert "get" not in cramped
    assert "multi_get" not in cramped


def test_with_no_tool_left_the_final_answer_is_the_one_choice() -> None:
    assert affordable_tools(task(), (spent_to(task(), 10),)) == ()


def test_a_search_is_offered_while_its_cheapest_so_far_fits() -> None:
    # A bundle adapter's search costs its bundle whatever the limit: 5,000 bytes here.
    bundle = delivered("x" * 5000, "search")
    cost = charged_bytes(bundle)
    roomy = task(byte_budget=2 * cost + BYTES_PER_LINE)
    cramped = task(byte_budget=2 * cost - 1)
    assert "search" in affordable_tools(roomy, (bundle,))
    assert "search" not in affordable_tools(cramped, (bundle,))
    assert "get" in affordable_tools(cramped, (bundle,))


def test_before_any_search_one_hit_is_a_searchs_least_cost() -> None:
    offered = affordable_tools(task(), (spent_to(task(), BYTES_PER_HIT - 1),))
    assert "search" not in offered
    assert "search" in affordable_tools(task(), (spent_to(task(), BYTES_PER_HIT),))
