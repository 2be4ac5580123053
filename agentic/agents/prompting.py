"""What the local model reads: a compact ChatML conversation built from visible data only.

The conversation is a fixed preamble (system text and one invented worked example), the public
task, and for each delivered call the model's own previous output followed by a compact rendering
of the result: its status, then its evidence as numbered lines per URI (or, for a result with no
evidence, its content; for a result equal to an earlier one, a note saying so).

A result shows at most ``RESULT_CHARS`` characters of evidence: the lines that share most words
with the goal, the claim keys and the call's own query. This is the agent's reading policy, fixed
and visible-data-only; it keeps every step to a few hundred prompt tokens, which is what lets a
two-core machine run the full lane. The receipt still records every delivered byte, and the
scorer judges against the whole delivered result, not against what the model chose to read.

Hashes are never shown: the grammar writes the exact citation for a line the model names, and
the model may name only lines it was shown (``citables``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from agentic.agents.grammar import Citable
from agentic.agents.observed import Item, call_items
from agentic.contract.canonical import sha256_hex
from agentic.contract.steps import VisibleCall
from agentic.contract.task import AgentTask
from agentic.contract.text import ELLIPSIS, clip

PROMPT_VERSION = "local-model-prompt-v2"

SYSTEM_PROMPT = (
    "You are a retrieval agent. Each turn, reply with one JSON object and no prose: a tool call, "
    "or the final envelope once you can answer.\n"
    "Tools: search {query, collection?} finds candidate lines; get {uri, fromLine?, lineCount?} "
    "reads one source; multi_get {uris} reads several sources.\n"
    "Search with words from the goal, read the best source, then finish. Each claim cites the "
    "shown evidence lines that state it; every claim without such a line is a gap. If no claim "
    'is supported, set "abstained":true and "stopReason":"abstained". Never repeat a call: its '
    "result would not change."
)

# One invented worked example (no fixture data), shown as real chat turns: a small model follows
# a demonstrated trajectory far better than a described one.
_EXAMPLE_LINE = "Release version: ORN-2.4.1"
_EXAMPLE_SOURCE = sha256_hex("# Orion client\n\nRelease version: ORN-2.4.1\n")
EXAMPLE_TURNS: tuple[tuple[str, str], ...] = (
    (
        "user",
        "Goal: Find the release version of the Orion client.\n"
        "Rules: Return only the declared structured claims or gaps.\n"
        "Claims:\n- releaseVersion: identifier, required\n"
        "Collections: c001\nTools: search, get, multi_get; at most 3 calls.",
    ),
    (
        "assistant",
        '{"kind":"tool","toolName":"search","arguments":{"query":"Orion client release version"}}',
    ),
    (
        "user",
        "Result of search: ok, candidates\nEvidence:\ngno://c001/d003.md\n"
        f"1: # Orion client\n3: {_EXAMPLE_LINE}",
    ),
    (
        "assistant",
        '{"kind":"final","envelope":{"schemaVersion":"1.0","claims":[{"claimKey":"releaseVersion",'
        '"value":{"type":"identifier","value":"ORN-2.4.1"},"citations":[{"uri":"gno://c001/d003.md",'
        f'"startLine":3,"endLine":3,"sourceHash":"{_EXAMPLE_SOURCE}",'
        f'"spanHash":"{sha256_hex(_EXAMPLE_LINE)}","sourceHashProvenance":"harness_observed",'
        '"spanHashProvenance":"harness_observed"}]}],"gaps":[],"abstained":false,'
        '"stopReason":"complete"}}',
    ),
)

_URI_IN_TEXT = re.compile(r"gno://[^\s\"'<>\\`]+")
_URI_TRAILING = ".,;:)]}"
_WORD = re.compile(r"\w+")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_STOPWORDS = frozenset(
    "the and for from with that this what which when where who whose does did are was were "  # noqa: SIM905
    "has have its into than then their there these those not any all per how".split()
)
# What one result may show: about 300 tokens. A lexical result is 3-5 kB of text; reading it
# whole made every step cost seconds of prompt evaluation on two cores.
RESULT_CHARS = 900
LINE_CHARS = 160


@dataclass(frozen=True)
class Segment:
    """Prompt text; control segments are the chat template's own markers, tokenized as special
    tokens. Everything from the task or a tool result is plain text, so a result that spells
    ``<|im_end|>`` cannot close a turn."""

    text: str
    control: bool


@dataclass(frozen=True)
class Line:
    uri: str
    source_hash: str
    number: int
    text: str


# --- what a result shows ------------------------------------------------------------------------


def readable_items(call: VisibleCall) -> tuple[Item, ...]:
    """Observed items whose stated span hash is the hash of their text: only those can be cited
    validly, so only those are shown."""
    return tuple(item for item in call_items(call) if item.span_hash == sha256_hex(item.text))


def _lines_of(item: Item) -> Iterator[Line]:
    for offset, text in enumerate(item.text.split("\n")):
        if text.strip():
            yield Line(item.uri, item.source_hash, item.start_line + offset, text)


def focus_terms(task: AgentTask, call: VisibleCall) -> frozenset[str]:
    """Words of the goal, the claim keys and the call's own query, casefolded."""
    parts = [task.brief.goal, *(_CAMEL_BOUNDARY.sub(" ", c.claimKey) for c in task.claims)]
    query = call.arguments.get("query")
    if isinstance(query, str):
        parts.append(query)
    words = _WORD.findall(" ".join(parts).casefold())
    return frozenset(w for w in words if len(w) >= 3 and w not in _STOPWORDS)


def _clip(text: str) -> str:
    return clip(text, LINE_CHARS)


def shown_lines(task: AgentTask, call: VisibleCall, chars: int = RESULT_CHARS) -> tuple[Line, ...]:
    """The lines of a result the model reads, in result order: the lines sharing most words with
    the goal, claims and query, until the result's ``chars`` are spent (ties keep result order,
    so a short read is shown whole)."""
    unique = {
        (line.uri, line.number): line for item in readable_items(call) for line in _lines_of(item)
    }
    lines = list(unique.values())
    terms = focus_terms(task, call)
    overlap = [sum(term in line.text.casefold() for term in terms) for line in lines]
    chosen: list[int] = []
    spent = 0
    for index in sorted(range(len(lines)), key=lambda i: (-overlap[i], i)):
        cost = len(_clip(lines[index].text))
        if spent + cost <= chars:
            chosen.append(index)
            spent += cost
    return tuple(lines[index] for index in sorted(chosen))


def citables(
    task: AgentTask, calls: Sequence[VisibleCall], chars: int = RESULT_CHARS
) -> tuple[Citable, ...]:
    """Every coordinate the model may cite, unique, in first-seen order: each line it was shown
    (results shown ``chars`` at most), and each multi-line item all of whose lines it was shown."""
    seen: dict[Citable, None] = {}
    for call in calls:
        shown = shown_lines(task, call, chars)
        for line in shown:
            span = sha256_hex(line.text)
            seen.setdefault(Citable(line.uri, line.number, line.number, line.source_hash, span))
        numbers = {(line.uri, line.number) for line in shown}
        for item in readable_items(call):
            whole = all((line.uri, line.number) in numbers for line in _lines_of(item))
            if item.end_line > item.start_line and whole:
                span = sha256_hex(item.text)
                citable = Citable(item.uri, item.start_line, item.end_line, item.source_hash, span)
                seen.setdefault(citable)
    return tuple(seen)


def _shows_content(call: VisibleCall) -> bool:
    return bool(call.result.content) and not readable_items(call)


def seen_uris(calls: Sequence[VisibleCall]) -> tuple[str, ...]:
    """URIs the model was shown (evidence first, then shown content), in first-seen order."""
    seen: dict[str, None] = {}
    for call in calls:
        for item in readable_items(call):
            seen.setdefault(item.uri, None)
        if _shows_content(call):
            for match in _URI_IN_TEXT.findall(call.result.content):
                seen.setdefault(match.rstrip(_URI_TRAILING), None)
    return tuple(uri for uri in seen if len(uri) > len("gno://"))


# --- rendering ----------------------------------------------------------------------------------


def render_task(task: AgentTask) -> str:
    claims = "\n".join(
        f"- {c.claimKey}: {c.valueType}{', required' if c.required else ''}" for c in task.claims
    )
    return (
        f"Goal: {task.brief.goal}\n"
        f"Rules: {' '.join(task.brief.instructions)}\n"
        f"Claims:\n{claims}\n"
        f"Collections: {', '.join(task.corpus.collections)}\n"
        f"Tools: {', '.join(task.allowedTools)}; at most {task.budgets.maxAgentCalls} calls."
    )


def _render_evidence(task: AgentTask, call: VisibleCall, chars: int) -> str:
    """Shown lines grouped by URI; a URI with lines left out ends in an ellipsis line."""
    shown: dict[str, list[Line]] = {}
    numbers: dict[str, set[int]] = {}
    for item in readable_items(call):
        shown.setdefault(item.uri, [])
        numbers.setdefault(item.uri, set()).update(line.number for line in _lines_of(item))
    for line in shown_lines(task, call, chars):
        shown[line.uri].append(line)
    blocks = []
    for uri, lines in shown.items():
        rows = [f"{line.number}: {_clip(line.text)}" for line in lines]
        if len(lines) < len(numbers[uri]):
            rows.append(ELLIPSIS)
        blocks.append("\n".join([uri, *rows]))
    return "\n".join(blocks)


def render_result(task: AgentTask, calls: Sequence[VisibleCall], chars: int = RESULT_CHARS) -> str:
    """The newest call's result, ``chars`` of it at most. A result equal to one already shown is
    not shown again: the model has it in context, and re-reading it would cost as much as the
    first time."""
    call = calls[-1]
    result = call.result
    head = f"Result of {call.toolName}: {result.status}, {result.resultRole}"
    if result.errorCode is not None:
        head += f", error {result.errorCode}"
    if any(earlier.result == result for earlier in calls[:-1]):
        return f"{head}\nSame result as before."
    if readable_items(call):
        return f"{head}\nEvidence:\n{_render_evidence(task, call, chars)}"
    if _shows_content(call):
        return f"{head}\n{clip(result.content, chars)}"
    return f"{head}\nNo evidence." if result.status == "ok" else head


def turn(role: str, text: str) -> list[Segment]:
    return [
        Segment(f"<|im_start|>{role}\n", True),
        Segment(text, False),
        Segment("<|im_end|>\n", True),
    ]


def preamble() -> list[Segment]:
    """The task-independent head of every conversation: system text and the worked example."""
    example = [segment for role, text in EXAMPLE_TURNS for segment in turn(role, text)]
    return [*turn("system", SYSTEM_PROMPT), *example]


def task_opening(task: AgentTask) -> list[Segment]:
    """The task turn, then the assistant header of the first step."""
    return [*turn("user", render_task(task)), assistant_header()]


def after_call(task: AgentTask, calls: Sequence[VisibleCall]) -> list[Segment]:
    """What follows the model's tool step: the end of its turn, the newest result, the next
    header."""
    end = Segment("<|im_end|>\n", True)
    return [end, *turn("user", render_result(task, calls)), assistant_header()]


def assistant_header() -> Segment:
    return Segment("<|im_start|>assistant\n", True)
