"""The deterministic fixture agent ``fixture-agent-v1`` (contract v1, section 4).

An answer-free state machine: search once with the preferred cues, read what the candidates
point at, reduce exact observed lines to typed claims, stop. The only task knowledge it has is
the fixture's cue table (``agentic.agents.cues``), whose bytes are part of its model fingerprint.
Each step is a pure function of the public task, the listed tools, the cue table and the visible
call history, and its output is canonical JSON, so equal inputs give byte-identical steps.

Generalizations of the reference, each equal to it on the reference's own fixture:
- ``template`` and ``pattern`` cue entries replace its two hard-coded string claim rules.
- From cue table 1.1 on, a claim's ``pattern`` reads every value type and ``select`` overrides
  which cued lines it reads (``_pattern_value``); prose rarely puts a value after a ``Label:``.
  Reads are then planned (``planned_reads``): one ranged ``get`` per page with cued lines, so
  a claim whose evidence is two lines of one page can cite both, and no whole page is read:
  candidates without a cued line are final as they are. On real documentation whole-page
  reads overran the byte budget in half the pairs (fixtures/sqlite-docs/README.md).
- A claim key without a cue entry becomes a ``missing_evidence`` gap.
- A citation is the observed evidence item that contains the selected line, with the sha256 of
  that item's text. For single-line items (lexical results, capsule bundles) that is exactly
  the reference's ``startLine = endLine = line`` citation; for a multi-line item it is the span
  the harness actually observed, where a one-line citation would cite a coordinate no tool
  returned, which the scorer can never count as observed.
- Date matches that are not real calendar dates (2026-02-30) are ignored rather than emitted
  as an invalid envelope.
- A tool counts as available when it is listed and in the task's ``allowedTools``.

Regexes follow the reference's non-unicode JavaScript regexes: ``re.ASCII`` gives the same ASCII
``\\b`` and ``\\d``; where JavaScript is Unicode-aware anyway (``\\s``, ``.``, ``trim``, case
folding of ``í``) the character classes below spell that out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from agentic.agents.base import TokenCount
from agentic.agents.cues import AGENT_ID, LEGACY_VERSION, ClaimCues, CueTable
from agentic.agents.observed import Item, call_items, from_visible
from agentic.contract.base import is_full_date
from agentic.contract.canonical import canonical_text, fingerprint, sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.jsrules import JS_WHITESPACE, is_blank, js_trim, utf16_key
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonArray, JsonObject
from agentic.contract.task import AgentTask, ClaimDefinition

STATE_MACHINE = "search-read-final-cues-v1"
Scalar = bool | int | float | str  # a claim value of any type but string[]
FIXTURE_AGENT_PROMPT = (
    "You are a deterministic evidence agent.\n"
    "Use only the visible task and normalized tool results. Search before reading.\n"
    "Return one JSON FinalEnvelope and no prose. Every claim must use its declared\n"
    "type and cite exact observed source lines. Emit an explicit gap and abstain when\n"
    "required evidence is absent. Stop as soon as every required claim is supported."
)

_JS_SPACE_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"
_JS_ANY = r"[^\n\r\u2028\u2029]"  # JavaScript's "." without the s flag
_FLAGS = re.IGNORECASE | re.ASCII

_FALSE = re.compile(r"(?:\bno\b|\bfalse\b|not included|disabled)", _FLAGS)
# JavaScript /i folds í and Í, Python's re.ASCII does not, hence the explicit class. The \b after
# it is ASCII in both languages: í is not a word character, so "sí" only matches when an ASCII
# letter, digit or underscore follows at once ("síx"), never at the end of a line or before a
# space or punctuation. That is the reference's behaviour, kept on purpose (its Spanish task is
# decided by "activada"); Python with re.ASCII reproduces it exactly.
_TRUE = re.compile(r"(?:\byes\b|\bs[íÍ]\b|\btrue\b|activated|activada|enabled)", _FLAGS)
_IDENTIFIER = re.compile(r"\b[A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)+\b", re.ASCII)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b", re.ASCII)
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b", re.ASCII)
_SIGNED_NUMBER = re.compile(r"-?\d+(?:\.\d+)?", re.ASCII)
_USE = re.compile(
    rf"\buse{_JS_SPACE_CLASS}+({_JS_ANY}+?)(?:{_JS_SPACE_CLASS}+for\b|[.;]|\Z)", _FLAGS
)
_SHA256 = re.compile(r"[a-f0-9]{64}", re.ASCII)
_MAX_SAFE_INTEGER = 2**53 - 1
_NEWEST_WORDS = ("newer", "current", "final")


@dataclass(frozen=True)
class Line:
    """One non-blank line of an observed item, with its 1-based line number in the source."""

    item: Item
    number: int
    text: str


# ---- observed evidence -------------------------------------------------------------------------


def read_pool(calls: Sequence[VisibleCall]) -> tuple[Item, ...]:
    """Evidence of every exact read and bundle, in call order."""
    return tuple(
        item
        for call in calls
        if call.result.resultRole != "candidates"
        for item in call_items(call)
    )


def candidate_pool(calls: Sequence[VisibleCall]) -> tuple[Item, ...]:
    return tuple(
        from_visible(evidence)
        for call in calls
        if call.result.resultRole == "candidates"
        for evidence in call.result.evidence
    )


# ---- line selection ----------------------------------------------------------------------------


def expand_lines(items: Iterable[Item]) -> Iterator[Line]:
    for item in items:
        for offset, text in enumerate(item.text.split("\n")):
            if not is_blank(text):
                yield Line(item, item.start_line + offset, text)


def select_lines(task: AgentTask, cues: ClaimCues, items: Iterable[Item]) -> tuple[Line, ...]:
    """The cued lines one claim reads. Evidence order decides, so ranking matters."""
    kept = [line for line in expand_lines(items) if any(c in line.text.lower() for c in cues.cues)]
    if not kept:
        return ()
    if cues.select is not None:
        return {"first": (kept[0],), "last": (kept[-1],), "all": tuple(kept)}[cues.select]
    goal = task.brief.goal.lower()
    if task.category == "multi_document_comparison" or "earliest" in goal:
        return tuple(kept)
    if any(word in goal for word in _NEWEST_WORDS):
        return (kept[-1],)
    return (kept[0],)


# ---- typed values ------------------------------------------------------------------------------


def _trimmed(text: str | None) -> str | None:
    if text is None:
        return None
    return js_trim(text) or None


def after_label(text: str) -> str | None:
    """The text after the label separator (":" or "："), else the X of "use X"."""
    separator = max(text.find(":"), text.find("："))
    if separator >= 0:
        return _trimmed(text[separator + 1 :])
    match = _USE.search(text)
    return _trimmed(match.group(1)) if match else None


def _boolean(lines: Sequence[Line]) -> bool | None:
    any_false = any(_FALSE.search(line.text) for line in lines)
    any_true = any(_TRUE.search(line.text) for line in lines)
    if not (any_false or any_true):
        return None
    return not any_false  # a single negative line wins


def _identifier(lines: Sequence[Line]) -> str | None:
    for line in lines:
        match = _IDENTIFIER.search(line.text)
        if match:
            return match.group(0)
    return None


def _date(lines: Sequence[Line], earliest: bool) -> str | None:
    found = (match.group(0) for line in lines for match in _DATE.finditer(line.text))
    dates = sorted(date for date in found if is_full_date(date))
    if not dates:
        return None
    return dates[0] if earliest else dates[-1]


def _as_json_number(text: str) -> int | float | None:
    """A decimal as JavaScript's Number() reads it: integral values print as integers."""
    value = float(text)
    if not math.isfinite(value):  # a few hundred digits overflow, as Number() does
        return None
    if value.is_integer() and abs(value) <= _MAX_SAFE_INTEGER:
        return int(value)
    return value


def _number(lines: Sequence[Line]) -> int | float | None:
    numbers = [
        number
        for line in lines
        for match in _NUMBER.finditer(line.text)
        if (number := _as_json_number(match.group(0))) is not None
    ]
    return max(numbers) if numbers else None


def _string_list(lines: Sequence[Line]) -> list[str] | None:
    values = {value for line in lines if (value := after_label(line.text)) is not None}
    return sorted(values, key=utf16_key) or None


def _string(cues: ClaimCues, lines: Sequence[Line]) -> str | None:
    if cues.template is not None:
        values = tuple(value for line in lines if (value := after_label(line.text)) is not None)
        return cues.template.render(values)
    if cues.pattern is not None:
        match = cues.pattern.search(lines[0].text)
        return _trimmed(match.group(1)) if match else None
    return after_label(lines[0].text)


def _typed(value_type: str, match: re.Match[str]) -> Scalar | None:
    """A pattern match as a value of the claim's type, or None when it is not one.

    A boolean reads false when the group named ``no`` took part in the match (``are (?P<no>not
    )?cleared``, ``(?P<no>built in) by default``) and true otherwise: prose says "no" in too
    many ways for a word list, so the cue author names the wording that means it."""
    if value_type == "boolean":
        return "no" not in match.re.groupindex or match.group("no") is None
    text = _trimmed(match.group(1))
    if text is None:
        return None
    if value_type == "number":
        return _as_json_number(text) if _SIGNED_NUMBER.fullmatch(text) else None
    if value_type == "date":
        return text if is_full_date(text) else None
    return text


def _pattern_value(
    value_type: str, pattern: re.Pattern[str], lines: Sequence[Line]
) -> Scalar | list[str] | None:
    """A list gathers group 1 of every match on every line; other types take the first match."""
    if value_type == "string[]":
        found = {
            text
            for line in lines
            for match in pattern.finditer(line.text)
            if (text := _trimmed(match.group(1))) is not None
        }
        return sorted(found, key=utf16_key) or None
    for line in lines:
        match = pattern.search(line.text)
        if match is not None:
            return _typed(value_type, match)
    return None


def extract_value(
    definition: ClaimDefinition, cues: ClaimCues, lines: Sequence[Line], goal: str
) -> JsonObject | None:
    """The claim value as JSON (``{"type", "value"}``), or None when the lines do not give one."""
    if not lines:
        return None
    value_type = definition.valueType
    value: Scalar | list[str] | None
    if cues.pattern is not None and cues.typed_pattern:
        value = _pattern_value(value_type, cues.pattern, lines)
    elif value_type == "boolean":
        value = _boolean(lines)
    elif value_type == "identifier":
        value = _identifier(lines)
    elif value_type == "date":
        value = _date(lines, earliest="earliest" in goal.lower())
    elif value_type == "number":
        value = _number(lines)
    elif value_type == "string[]":
        value = _string_list(lines)
    else:
        value = _string(cues, lines)
    if value is None:
        return None
    return {"type": value_type, "value": list(value) if isinstance(value, list) else value}


# ---- the final envelope ------------------------------------------------------------------------


def citation(item: Item) -> JsonObject:
    return {
        "uri": item.uri,
        "sourceHash": item.source_hash,
        "startLine": item.start_line,
        "endLine": item.end_line,
        "spanHash": sha256_hex(item.text),
        "sourceHashProvenance": "harness_observed",
        "spanHashProvenance": "harness_observed",
    }


def citations(lines: Sequence[Line]) -> JsonArray:
    """One citation per observed item behind the selected lines, first occurrence first."""
    items = dict.fromkeys(line.item for line in lines)
    return [citation(item) for item in items]


def build_final_envelope(task: AgentTask, table: CueTable, items: Sequence[Item]) -> JsonObject:
    claims: JsonArray = []
    gaps: JsonArray = []
    for definition in task.claims:
        cues = table.get(definition.claimKey)
        lines: tuple[Line, ...] = ()
        value = None
        if cues is not None:
            lines = select_lines(task, cues, items)
            value = extract_value(definition, cues, lines, task.brief.goal)
        if value is None:
            gaps.append({"claimKey": definition.claimKey, "reason": "missing_evidence"})
        else:
            claims.append(
                {"claimKey": definition.claimKey, "value": value, "citations": citations(lines)}
            )
    abstained = not claims
    return {
        "schemaVersion": "1.0",
        "claims": claims,
        "gaps": gaps,
        "abstained": abstained,
        "stopReason": "abstained" if abstained else "complete",
    }


def tool_unavailable_envelope(task: AgentTask) -> JsonObject:
    return {
        "schemaVersion": "1.0",
        "claims": [],
        "gaps": [{"claimKey": c.claimKey, "reason": "tool_unavailable"} for c in task.claims],
        "abstained": True,
        "stopReason": "tool_unavailable",
    }


# ---- the state machine -------------------------------------------------------------------------


def search_query(task: AgentTask, table: CueTable) -> str:
    """The unique preferred cues in claim order, joined by spaces; the goal when there are none."""
    preferred = (table.get(c.claimKey) for c in task.claims)
    unique = dict.fromkeys(cues.preferred for cues in preferred if cues is not None)
    return " ".join(unique) or task.brief.goal


def _tool(name: str, arguments: JsonObject) -> JsonObject:
    return {"kind": "tool", "toolName": name, "arguments": arguments}


def _final(envelope: JsonObject) -> JsonObject:
    return {"kind": "final", "envelope": envelope}


def _relevant_lines(task: AgentTask, table: CueTable, call: VisibleCall) -> list[Line]:
    """The cued lines of every claim among one call's evidence, claim by claim."""
    shown = tuple(from_visible(evidence) for evidence in call.result.evidence)
    return [
        line
        for definition in task.claims
        if (cues := table.get(definition.claimKey)) is not None
        for line in select_lines(task, cues, shown)
    ]


def _read_step(
    task: AgentTask,
    table: CueTable,
    available: frozenset[str],
    last: VisibleCall,
    candidates: Sequence[Item],
) -> JsonObject:
    relevant = _relevant_lines(task, table, last)
    sources = [line.item for line in relevant] or list(candidates)
    uris = list(dict.fromkeys(item.uri for item in sources))
    if len(uris) > 1 and "multi_get" in available:
        return _tool("multi_get", {"uris": list(uris)})
    arguments: JsonObject = {"uri": uris[0]}
    if relevant:
        arguments |= {"fromLine": relevant[0].number, "lineCount": 1}
    # get's availability is deliberately not checked (contract): a disallowed get is the
    # runner's agent error, not a silent change of plan.
    return _tool("get", arguments)


def planned_reads(task: AgentTask, table: CueTable, call: VisibleCall) -> list[JsonObject]:
    """From cue table 1.1: one ``get`` per page holding cued candidate lines, first seen first,
    over the lines from its first to its last cued one. Whole-page reads of real documentation
    overrun a task's byte budget and cite nothing more."""
    by_uri: dict[str, list[int]] = {}
    for line in _relevant_lines(task, table, call):
        by_uri.setdefault(line.item.uri, []).append(line.number)
    return [
        {"uri": uri, "fromLine": min(numbers), "lineCount": max(numbers) - min(numbers) + 1}
        for uri, numbers in by_uri.items()
    ]


def _ranged_step(
    task: AgentTask, table: CueTable, calls: Sequence[VisibleCall]
) -> JsonObject | None:
    """The next planned read or the final step; None when no search returned candidates.

    Candidates without a cued line are final as they are: the backend did not surface the
    evidence, and reading whole pages in search of it is what overruns the budget."""
    searched = [i for i, call in enumerate(calls) if call.result.resultRole == "candidates"]
    if not searched:
        return None
    plan = planned_reads(task, table, calls[searched[-1]])
    done = len(calls) - searched[-1] - 1
    if done < len(plan) and len(calls) < task.budgets.maxAgentCalls:
        return _tool("get", plan[done])
    items = read_pool(calls[searched[-1] + 1 :]) or candidate_pool(calls)
    return _final(build_final_envelope(task, table, items))


def decide(
    task: AgentTask, table: CueTable, available: frozenset[str], calls: Sequence[VisibleCall]
) -> JsonObject:
    """The next step as a JSON value: search, then read the candidates, then finalize."""
    if not calls:
        if "search" not in available:
            return _final(tool_unavailable_envelope(task))
        query = search_query(task, table)
        return _tool("search", {"query": query, "collection": task.corpus.collections[0]})
    if table.version != LEGACY_VERSION:
        step = _ranged_step(task, table, calls)
        if step is not None:
            return step
    candidates = candidate_pool(calls)
    last = calls[-1]
    if last.result.resultRole == "candidates" and candidates:
        if len(calls) >= task.budgets.maxAgentCalls:
            # No call left to read with: finalize from the exact candidate lines.
            return _final(build_final_envelope(task, table, candidates))
        return _read_step(task, table, available, last, candidates)
    read = read_pool(calls)
    return _final(build_final_envelope(task, table, read or candidates))


@dataclass(frozen=True)
class FixtureSession:
    task: AgentTask
    table: CueTable
    available: frozenset[str]
    # Each step is a pure function of the cue table and the visible calls: it cannot hang.
    steps_inline: ClassVar[Literal[True]] = True

    def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
        return canonical_text(decide(self.task, self.table, self.available, calls))

    def count_tokens(self, text: str) -> TokenCount | None:
        return None  # no model, no tokenizer: measuredTokens stays null

    def model_load_ms(self) -> float | None:
        return None

    def close(self) -> None:
        return None


class FixtureAgent:
    """``fixture-agent-v1`` bound to one cue table. Stateless: one instance serves every pair."""

    agent_id = AGENT_ID

    def __init__(self, table: CueTable, cue_sha256: str) -> None:
        if _SHA256.fullmatch(cue_sha256) is None:
            raise ContractError("invalid_cue_table", "cue table sha256 must be 64 hex digits")
        self._table = table
        self._model_fingerprint = fingerprint(
            {"agent": AGENT_ID, "stateMachine": STATE_MACHINE, "cueTable": cue_sha256}
        )

    def model_fingerprint(self) -> str:
        return self._model_fingerprint

    def prompt_fingerprint(self, task: AgentTask) -> str:
        return fingerprint(
            {
                "system": FIXTURE_AGENT_PROMPT,
                "brief": task.brief.to_json(),
                "claims": [claim.to_json() for claim in task.claims],
            }
        )

    def open(
        self, task: AgentTask, tools: list[JsonObject], *, seed: int | None = None
    ) -> FixtureSession:
        del seed  # deterministic: the trial seed cannot change a state machine's steps
        listed = frozenset(str(tool.get("name")) for tool in tools)
        return FixtureSession(task, self._table, listed & frozenset(task.allowedTools))
