"""What the local model reads: a compact ChatML conversation built from visible data only.

The conversation is a fixed preamble (system text and one invented worked example), the public
task, and for each delivered call the model's own previous output followed by a compact rendering
of the result: its status, its content (unless its evidence lines already carry all of it) and
its evidence as numbered lines per URI. Hashes of delivered results are never shown: the grammar
writes the exact citation for a line the model names, so the prompt spends no tokens on hex.

Evidence the model may cite is what delivered results showed, expanded to single lines the way
the fixture agent does (span hash = sha256 of the line text), plus each multi-line item as is.
Bundles whose projected evidence is empty carry their evidence in the content; it is read from
there by the same rules the tool projection used to hide it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agentic.agents.grammar import Citable
from agentic.contract.canonical import sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import parse_strict
from agentic.contract.task import AgentTask

PROMPT_VERSION = "local-model-prompt-v1"
BUNDLE_PROJECTION = "gno-context-agent-v1"

SYSTEM_PROMPT = (
    "You are a retrieval agent. Each turn, reply with one JSON object and no prose: a tool call, "
    "or the final envelope once you can answer.\n"
    "Tools: search {query, collection?} finds candidate lines; get {uri, fromLine?, lineCount?} "
    "reads one source; multi_get {uris} reads several sources.\n"
    "Search with words from the goal, read the best source, then finish. Each claim cites the "
    "shown evidence lines that state it; every claim without such a line is a gap. If no claim "
    'is supported, set "abstained":true and "stopReason":"abstained".'
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
_SHA256 = re.compile(r"[a-f0-9]{64}")
_OBJECT_FIELDS = ("uri", "startLine", "endLine", "sourceHash")


@dataclass(frozen=True)
class Item:
    """An observed evidence item: a coordinate and the exact text it covers."""

    uri: str
    source_hash: str
    start_line: int
    end_line: int
    span_hash: str
    text: str


@dataclass(frozen=True)
class Segment:
    """Prompt text; control segments are the chat template's own markers, tokenized as special
    tokens. Everything from the task or a tool result is plain text, so a result that spells
    ``<|im_end|>`` cannot close a turn."""

    text: str
    control: bool


# --- observed evidence --------------------------------------------------------------------------


def _is_line(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _checked(fields: tuple[Any, Any, Any, Any, Any, Any]) -> Item | None:
    """An item from untrusted bundle content (uri, start, end, source hash, span hash, text),
    or None when it cannot be cited validly."""
    uri, start, end, source, span, text = fields
    if not (isinstance(uri, str) and uri.startswith("gno://")):
        return None
    if not (_is_line(start) and _is_line(end) and start <= end):
        return None
    if not (isinstance(source, str) and _SHA256.fullmatch(source)):
        return None
    if not isinstance(text, str) or not isinstance(span, str) or span != sha256_hex(text):
        return None
    return Item(uri, source, start, end, span, text)


def bundle_items(content: str) -> tuple[Item, ...]:
    try:
        payload = parse_strict(content, source="bundle content")
    except ContractError:
        return ()
    if not isinstance(payload, dict):
        return ()
    found: list[Item | None] = []
    if payload.get("v") == BUNDLE_PROJECTION and isinstance(payload.get("e"), list):
        for t in payload["e"]:
            # [uri, startLine, endLine, sourceHash, mirrorHash, passageHash, text, ...]
            if isinstance(t, list) and len(t) >= 7:
                found.append(_checked((t[0], t[1], t[2], t[3], t[5], t[6])))
    elif isinstance(payload.get("evidence"), list):
        for o in payload["evidence"]:
            if isinstance(o, dict):
                span = o.get("passageHash", o.get("spanHash"))
                uri, start, end, source = (o.get(k) for k in _OBJECT_FIELDS)
                found.append(_checked((uri, start, end, source, span, o.get("text"))))
    return tuple(item for item in found if item is not None)


def call_items(call: VisibleCall) -> tuple[Item, ...]:
    result = call.result
    items = tuple(
        Item(e.uri, e.sourceHash, e.startLine, e.endLine, e.spanHash, e.text)
        for e in result.evidence
    )
    if not items and result.resultRole == "evidence_bundle":
        return bundle_items(result.content)
    return items


@dataclass(frozen=True)
class Line:
    uri: str
    source_hash: str
    number: int
    text: str


def lines_of(item: Item) -> Iterator[Line]:
    for offset, text in enumerate(item.text.split("\n")):
        yield Line(item.uri, item.source_hash, item.start_line + offset, text)


def _citables_of(item: Item) -> Iterator[Citable]:
    for line in lines_of(item):
        if line.text.strip():
            span = sha256_hex(line.text)
            yield Citable(line.uri, line.number, line.number, line.source_hash, span)
    if item.end_line > item.start_line:
        yield Citable(item.uri, item.start_line, item.end_line, item.source_hash, item.span_hash)


def citables(calls: Sequence[VisibleCall]) -> tuple[Citable, ...]:
    """Every coordinate the model may cite, unique, in first-seen order."""
    seen = {c: None for call in calls for item in call_items(call) for c in _citables_of(item)}
    return tuple(seen)


def seen_uris(calls: Sequence[VisibleCall]) -> tuple[str, ...]:
    """URIs named by delivered results (evidence first, then content), in first-seen order."""
    seen: dict[str, None] = {}
    for call in calls:
        for item in call_items(call):
            seen.setdefault(item.uri, None)
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


def _render_lines(items: Iterable[Item]) -> str:
    blocks: dict[str, dict[int, str]] = {}
    for item in items:
        numbered = blocks.setdefault(item.uri, {})
        for line in lines_of(item):
            if line.text.strip():
                numbered.setdefault(line.number, line.text)
    return "\n".join(
        uri + "\n" + "\n".join(f"{n}: {text}" for n, text in sorted(numbered.items()))
        for uri, numbered in blocks.items()
    )


def _content_is_shown_by(content: str, items: Sequence[Item]) -> bool:
    texts = {line.text for item in items for line in lines_of(item)}
    return all(not line.strip() or line in texts for line in content.split("\n"))


def render_result(call: VisibleCall) -> str:
    result = call.result
    head = f"Result of {call.toolName}: {result.status}, {result.resultRole}"
    if result.errorCode is not None:
        head += f", error {result.errorCode}"
    items = call_items(call)
    from_content = not result.evidence and bool(items)
    parts = [head]
    if result.content and not from_content and not _content_is_shown_by(result.content, items):
        parts.append(result.content)
    if items:
        parts.append("Evidence:\n" + _render_lines(items))
    elif result.status == "ok":
        parts.append("No evidence.")
    return "\n".join(parts)


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


def after_call(call: VisibleCall) -> list[Segment]:
    """What follows the model's tool step: the end of its turn, the result, the next header."""
    return [Segment("<|im_end|>\n", True), *turn("user", render_result(call)), assistant_header()]


def assistant_header() -> Segment:
    return Segment("<|im_start|>assistant\n", True)
