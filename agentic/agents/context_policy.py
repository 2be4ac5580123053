"""How the rendered chat protocol sizes what it asks for and what it shows, so that its own
sizing never ends a pair.

Two budgets bound a pair. The task's byte budget (``maxModelVisibleBytes``) is charged every byte
a delivered result holds, whatever the model is shown of it; the model's context (the config's
``context_budget``) holds what the model is shown. The policy keeps both:

- **Reads and searches are sized to the byte budget.** Each call may spend an even share of what
  is left of it (``call_room``): a search gets a ``limit`` of hits, a ``get`` a ``lineCount``
  (the model's own, if smaller), a ``multi_get`` a ``maxBytes``. The call as sent, sizes
  included, is what the receipt records.
- **A tool is offered only while its least call fits what is left** (``affordable_tools``): a
  read's least call is one line; a search's is one hit, or the cheapest search this pair has
  made, since a bundle adapter spends its own budget whatever the ``limit``. With no tool
  left, the model's one choice is its final answer.
- **Each result shows a slice sized to the context** (``result_chars``): the context left once
  the fixed prompt, every remaining call's text and the final answer are set aside, shared
  evenly among the calls, between ``RESULT_CHARS_MIN`` and ``RESULT_CHARS_MAX`` characters.

The figures per hit, line and byte are estimates of a projected result's size (measured on the
committed fixture-agent receipts: a search hit 390-1,100 bytes, a line of a read 500-650); an
estimate that falls short costs the model its answer (``context_byte_budget_exceeded``), which
is why they lean high.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentic.contract.canonical import canonical_bytes
from agentic.contract.json_access import as_int
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask

RESULT_CHARS_MAX = 1200
RESULT_CHARS_MIN = 300
CHARS_PER_TOKEN = 3.0  # rendered prose and line numbers under a BPE tokenizer, leaning low
CALL_TOKENS = 80  # one call's text and its turn markers
BYTES_PER_HIT = 1200
SEARCH_LIMIT_MAX = 8
BYTES_PER_LINE = 650
LINES_MAX = 40
BYTES_PER_TEXT_BYTE = 6


def result_chars(
    context_tokens: int | None, fixed_tokens: float, output_tokens: int, calls: int
) -> int:
    """Characters one result may show: ``calls`` results and calls must fit beside the fixed
    prompt (``fixed_tokens``) and the final answer (``output_tokens``)."""
    if context_tokens is None or calls <= 0:
        return RESULT_CHARS_MAX
    room = context_tokens - fixed_tokens - output_tokens - calls * CALL_TOKENS
    share = int(room * CHARS_PER_TOKEN / calls)
    return max(RESULT_CHARS_MIN, min(RESULT_CHARS_MAX, share))


def charged_bytes(call: VisibleCall) -> int:
    """What a delivered call was charged against the byte budget: its projected result's bytes."""
    return len(canonical_bytes(call.result.to_json()))


def bytes_left(task: AgentTask, calls: Sequence[VisibleCall]) -> int:
    """What the task's byte budget has left after ``calls``."""
    return task.budgets.maxModelVisibleBytes - sum(charged_bytes(call) for call in calls)


def call_room(task: AgentTask, calls: Sequence[VisibleCall]) -> int:
    """The bytes the next call may spend: an even share of what the byte budget has left."""
    remaining = max(1, task.budgets.maxAgentCalls - len(calls))
    return max(0, bytes_left(task, calls) // remaining)


def least_cost(tool: str, calls: Sequence[VisibleCall]) -> int:
    """The fewest bytes a call of ``tool`` is expected to be charged (see the module text)."""
    if tool != "search":
        return BYTES_PER_LINE
    searches = [charged_bytes(call) for call in calls if call.toolName == "search"]
    return min(searches) if searches else BYTES_PER_HIT


def affordable_tools(task: AgentTask, calls: Sequence[VisibleCall]) -> tuple[str, ...]:
    """The task's tools whose least call fits what the byte budget has left, in task order."""
    left = bytes_left(task, calls)
    return tuple(tool for tool in task.allowedTools if least_cost(tool, calls) <= left)


def sized_arguments(name: str, arguments: JsonObject, room: int) -> JsonObject:
    """The call's arguments with the sizes ``room`` bytes allow (see the module text)."""
    if name == "search":
        return {**arguments, "limit": max(1, min(SEARCH_LIMIT_MAX, room // BYTES_PER_HIT))}
    if name == "get":
        asked = arguments.get("lineCount", LINES_MAX)
        lines = max(1, min(as_int(asked, "lineCount"), LINES_MAX, room // BYTES_PER_LINE))
        return {**arguments, "lineCount": lines}
    if name == "multi_get":
        return {**arguments, "maxBytes": max(1, room // BYTES_PER_TEXT_BYTE)}
    return arguments
