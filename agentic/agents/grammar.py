"""The output grammar of the local-model agent: exactly one tool action or one FinalEnvelope.

The grammar is rebuilt for every step from agent-visible data only: the task's allowed tools,
collections, claim keys and value types, the call budget left, and the evidence and URIs that
delivered results showed. It fixes the *shape* (compact JSON, closed keys, one claim or gap per
key in task order, citations chosen among observed evidence lines); it never chooses a value,
a citation or a tool for the model. Anything the grammar cannot express (a date's day of month,
a string list's uniqueness, required-claim coverage) is left to the runner's strict validation.

Grammars are a tiny non-recursive AST. It renders to GBNF for llama.cpp, and ``Matcher`` follows
text through it the way llama.cpp does (a set of stacks). The matcher lets tests state exactly which
texts a grammar admits, and lets the agent see where the grammar leaves no choice: that forced
text is appended in one batch instead of being sampled token by token (see ``local_model``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from agentic.contract.task import AgentTask

# --- AST ----------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Lit:
    text: str


@dataclass(frozen=True, eq=False)
class Chars:
    """One character from a class, spelled in GBNF and in Python regex syntax."""

    gbnf: str
    regex: str

    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.regex)


@dataclass(frozen=True, eq=False)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True, eq=False)
class Alt:
    options: tuple[Node, ...]


@dataclass(frozen=True, eq=False)
class Rep:
    item: Node
    low: int
    high: int


@dataclass(frozen=True, eq=False)
class Ref:
    name: str


Node = Lit | Chars | Seq | Alt | Rep | Ref


@cache
def _compiled(regex: str) -> re.Pattern[str]:
    return re.compile(regex)


@dataclass(frozen=True, eq=False)
class Grammar:
    rules: tuple[tuple[str, Node], ...]  # the first rule is the root

    def rule(self, name: str) -> Node:
        for rule_name, node in self.rules:
            if rule_name == name:
                return node
        raise KeyError(name)


def seq(*items: Node) -> Node:
    return items[0] if len(items) == 1 else Seq(items)


def alt(options: Sequence[Node]) -> Node:
    return options[0] if len(options) == 1 else Alt(tuple(options))


def optional(item: Node) -> Node:
    return Rep(item, 0, 1)


def separated(item: Node, low: int, high: int) -> Node:
    """``item ("," item){low-1,high-1}`` (low >= 1)."""
    return seq(item, Rep(seq(Lit(","), item), low - 1, high - 1))


def json_literal(value: str) -> Lit:
    return Lit(json.dumps(value, ensure_ascii=False))


# --- GBNF rendering -----------------------------------------------------------------------------

_GBNF_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _gbnf_literal(text: str) -> str:
    out = []
    for ch in text:
        if ch in _GBNF_ESCAPES:
            out.append(_GBNF_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _gbnf(node: Node) -> str:
    if isinstance(node, Lit):
        return _gbnf_literal(node.text)
    if isinstance(node, Chars):
        return node.gbnf
    if isinstance(node, Ref):
        return node.name
    if isinstance(node, Seq):
        return " ".join(_gbnf_grouped(item) for item in node.items)
    if isinstance(node, Alt):
        return " | ".join(_gbnf(option) for option in node.options)
    bounds = "?" if (node.low, node.high) == (0, 1) else f"{{{node.low},{node.high}}}"
    return f"({_gbnf(node.item)}){bounds}"


def _gbnf_grouped(node: Node) -> str:
    return f"({_gbnf(node)})" if isinstance(node, Alt) else _gbnf(node)


def to_gbnf(grammar: Grammar) -> str:
    return "".join(f"{name} ::= {_gbnf(node)}\n" for name, node in grammar.rules)


# --- recognizing ----------------------------------------------------------------------------------
# A state is the tuple of nodes still to match, head first; () has matched everything. This is
# llama.cpp's own model of a grammar (a set of stacks), so the two agree on which text is
# admitted, and it is what lets the agent see text the grammar forces (see ``Matcher.forced``).

State = tuple[Node, ...]
MAX_STATES = 4096


def _settle(state: State, grammar: Grammar) -> Iterator[State]:
    """Expand ``state`` until each result starts with a character to match, or is done."""
    pending = [state]
    while pending:
        current = pending.pop()
        if not current:
            yield current
            continue
        head, rest = current[0], current[1:]
        if isinstance(head, Lit):
            if head.text:
                yield current
            else:
                pending.append(rest)
        elif isinstance(head, Chars):
            yield current
        elif isinstance(head, Seq):
            pending.append(head.items + rest)
        elif isinstance(head, Alt):
            pending.extend((option, *rest) for option in reversed(head.options))
        elif isinstance(head, Ref):
            pending.append((grammar.rule(head.name), *rest))
        elif head.high == 0:
            pending.append(rest)
        elif head.low > 0:
            pending.append((head.item, Rep(head.item, head.low - 1, head.high - 1), *rest))
        else:
            pending.append(rest)
            pending.append((head.item, Rep(head.item, 0, head.high - 1), *rest))


def _step(state: State, char: str) -> State | None:
    head, rest = state[0], state[1:]
    if isinstance(head, Lit):
        if head.text[0] != char:
            return None
        return (Lit(head.text[1:]), *rest) if len(head.text) > 1 else rest
    assert isinstance(head, Chars)
    return rest if head.pattern().fullmatch(char) else None


class Matcher:
    """Follows text through a grammar one character at a time."""

    def __init__(self, grammar: Grammar) -> None:
        self._grammar = grammar
        self._states = self._settled([(Ref(grammar.rules[0][0]),)])

    def _settled(self, states: Iterable[State]) -> list[State]:
        settled = [s for state in states for s in _settle(state, self._grammar)]
        if len(settled) > MAX_STATES:
            raise ValueError("grammar is too ambiguous to follow")
        return settled

    @property
    def alive(self) -> bool:
        return bool(self._states)

    @property
    def complete(self) -> bool:
        """The text so far is a whole sentence of the grammar."""
        return any(not state for state in self._states)

    @property
    def finished(self) -> bool:
        """Complete, and nothing may follow."""
        return bool(self._states) and all(not state for state in self._states)

    def feed(self, text: str) -> bool:
        """Advance over ``text``; False (and dead) if the grammar does not admit it."""
        for char in text:
            stepped = (_step(state, char) for state in self._states if state)
            self._states = self._settled(s for s in stepped if s is not None)
            if not self._states:
                return False
        return True

    def forced(self) -> str:
        """The text every admitted continuation starts with (empty at a real choice)."""
        forced: list[str] = []
        states = self._states
        while states and all(state and isinstance(state[0], Lit) for state in states):
            heads = [state[0].text for state in states]  # type: ignore[union-attr]
            prefix = _common_prefix(heads)
            if not prefix:
                break
            forced.append(prefix)
            states = self._settled(_skip(state, len(prefix)) for state in states)
        return "".join(forced)


def _skip(state: State, count: int) -> State:
    head = state[0]
    assert isinstance(head, Lit)
    return (Lit(head.text[count:]), *state[1:])


def _common_prefix(texts: Sequence[str]) -> str:
    first = min(texts)
    last = max(texts)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


def admits(grammar: Grammar, text: str) -> bool:
    matcher = Matcher(grammar)
    return matcher.feed(text) and matcher.complete


# --- the step grammar ---------------------------------------------------------------------------

MAX_STRING_CHARS = 160
MAX_QUERY_CHARS = 120
MAX_LIST_ITEMS = 6
MAX_CITATIONS = 4
MAX_URIS = 4

STRING_CHAR = alt(
    (
        Chars(r'[^"\\\x00-\x1F\x7F]', r'[^"\\\x00-\x1f\x7f]'),
        seq(Lit("\\"), Chars(r'["\\/bfnrt]', r'["\\/bfnrt]')),
    )
)
_DIGIT = Chars("[0-9]", "[0-9]")
POSITIVE = seq(Chars("[1-9]", "[1-9]"), Rep(_DIGIT, 0, 3))
_NUMBER = seq(
    optional(Lit("-")),
    alt((Lit("0"), seq(Chars("[1-9]", "[1-9]"), Rep(_DIGIT, 0, 14)))),
    optional(seq(Lit("."), Rep(_DIGIT, 1, 6))),
)
GAP_REASONS = ("missing_evidence", "conflicting_evidence", "budget_exhausted", "tool_unavailable")
STOP_REASONS = ("complete", "abstained", "budget_exhausted", "tool_unavailable", "error")


def json_string(low: int, high: int) -> Node:
    return seq(Lit('"'), Rep(Ref("char"), low, high), Lit('"'))


VALUE_NODES: dict[str, Node] = {
    "string": json_string(1, MAX_STRING_CHARS),
    "identifier": json_string(1, MAX_STRING_CHARS),
    "number": _NUMBER,
    "boolean": alt((Lit("true"), Lit("false"))),
    "date": seq(
        Lit('"'),
        Rep(_DIGIT, 4, 4),
        Lit("-"),
        Rep(_DIGIT, 2, 2),
        Lit("-"),
        Rep(_DIGIT, 2, 2),
        Lit('"'),
    ),
    "string[]": seq(
        Lit("["), separated(json_string(1, MAX_STRING_CHARS), 1, MAX_LIST_ITEMS), Lit("]")
    ),
}


@dataclass(frozen=True)
class Citable:
    """One evidence coordinate the model may cite, exactly as it will appear in the envelope."""

    uri: str
    start_line: int
    end_line: int
    source_hash: str
    span_hash: str

    def tail(self) -> str:
        """Everything after ``"startLine":`` in this citation's JSON text."""
        return (
            f'{self.start_line},"endLine":{self.end_line},'
            f'"sourceHash":"{self.source_hash}","spanHash":"{self.span_hash}",'
            '"sourceHashProvenance":"harness_observed","spanHashProvenance":"harness_observed"}'
        )

    def json_text(self) -> str:
        return '{"uri":' + json.dumps(self.uri, ensure_ascii=False) + ',"startLine":' + self.tail()


@dataclass(frozen=True)
class StepShape:
    """What the next step may contain, derived from visible data only."""

    tools: tuple[str, ...]  # tools the model may still call now (empty: it must finish)
    collections: tuple[str, ...]
    uris: tuple[str, ...]  # URIs seen in delivered results, in first-seen order
    citables: tuple[Citable, ...]


def _citation(citables: Sequence[Citable]) -> Node:
    # Grouped by URI, so llama.cpp keeps one grammar stack while the model spells the URI, and
    # branches only where citations really differ (the line numbers).
    by_uri: dict[str, list[Citable]] = {}
    for item in citables:
        by_uri.setdefault(item.uri, []).append(item)
    options = [
        seq(json_literal(uri), Lit(',"startLine":'), alt([Lit(c.tail()) for c in items]))
        for uri, items in by_uri.items()
    ]
    return seq(Lit('{"uri":'), alt(options))


MAX_CLAIMS = 10  # the claim/gap decision tree below has 2**claims leaves


def _claim(key: str, value_type: str, citations: Node) -> Node:
    return seq(
        Lit(f'{{"claimKey":"{key}","value":{{"type":"{value_type}","value":'),
        VALUE_NODES[value_type],
        Lit('},"citations":'),
        citations,
        Lit("}"),
    )


def gap_node(key: str) -> Node:
    reasons = alt([Lit(f'"{reason}"') for reason in GAP_REASONS])
    return seq(Lit(f'{{"claimKey":"{key}","reason":'), reasons, Lit("}"))


def _joined(items: Sequence[Node]) -> list[Node]:
    out: list[Node] = []
    for index, item in enumerate(items):
        out.extend((Lit(","), item) if index else (item,))
    return out


def claims_then_gaps(claimable: Sequence[bool], index: int, chosen: tuple[int, ...]) -> Node:
    """Claims in task order, each at most once; then a gap for exactly every claim not made.

    Every task claim ends up claimed or gapped exactly once, so the envelope cannot miss a
    required claim or repeat one; which claims to make, and why the others are gaps, stays the
    model's choice.
    """
    count = len(claimable)
    if index == count:
        gaps = [Ref(f"gap{i}") for i in range(count) if i not in chosen]
        return seq(Lit('],"gaps":['), *_joined(gaps), Lit("]"))
    skip = claims_then_gaps(claimable, index + 1, chosen)
    if not claimable[index]:
        return skip
    take = claims_then_gaps(claimable, index + 1, (*chosen, index))
    head: tuple[Node, ...] = (Lit(","),) if chosen else ()
    return alt((seq(*head, Ref(f"claim{index}"), take), skip))


ClaimNode = Callable[[str, str, Node], Node]  # (claim key, value type, citations) -> a claim


def claim_rules(
    task: AgentTask, shape: StepShape, claim: ClaimNode
) -> tuple[list[tuple[str, Node]], list[bool]]:
    """A ``claim{i}`` rule (written by ``claim``) for each claim the final answer may make, a
    ``gap{i}`` rule for every claim, and which claims may be made (``claims_then_gaps``)."""
    if len(task.claims) > MAX_CLAIMS:
        raise ValueError(f"a final answer's grammar supports at most {MAX_CLAIMS} claims")
    some = seq(Lit("["), separated(Ref("citation"), 1, MAX_CITATIONS), Lit("]"))
    rules: list[tuple[str, Node]] = []
    claimable: list[bool] = []
    for index, definition in enumerate(task.claims):
        # A required claim must cite observed evidence, so without any it can only be a gap.
        if definition.required and not shape.citables:
            claimable.append(False)
        else:
            if not shape.citables:
                citations: Node = Lit("[]")
            elif definition.required:
                citations = some
            else:
                citations = alt((Lit("[]"), some))
            claimable.append(True)
            node = claim(definition.claimKey, definition.valueType, citations)
            rules.append((f"claim{index}", node))
        rules.append((f"gap{index}", gap_node(definition.claimKey)))
    return rules, claimable


def _final_rules(task: AgentTask, shape: StepShape) -> list[tuple[str, Node]]:
    rules, claimable = claim_rules(task, shape, _claim)
    final = seq(
        Lit('{"kind":"final","envelope":{"schemaVersion":"1.0","claims":['),
        claims_then_gaps(claimable, 0, ()),
        Lit(',"abstained":'),
        alt((Lit("true"), Lit("false"))),
        Lit(',"stopReason":'),
        alt([Lit(f'"{reason}"') for reason in STOP_REASONS]),
        Lit("}}"),
    )
    return [("final", final), *rules]


def _tool(name: str, arguments: Node) -> Node:
    return seq(Lit(f'{{"kind":"tool","toolName":"{name}","arguments":'), arguments, Lit("}"))


def tool_arguments(shape: StepShape, *, collection_required: bool) -> list[tuple[str, Node]]:
    """Each tool the model may call now, in the shape's order, with its arguments' grammar:
    ``search`` takes words and one of the task's collections (which a grammar may leave
    optional); the reads take uris results have shown, so a read is offered once one has."""
    uri = alt([json_literal(u) for u in shape.uris]) if shape.uris else None
    calls: list[tuple[str, Node]] = []
    for name in shape.tools:
        if name == "search":
            scope = seq(Lit(',"collection":'), alt([json_literal(c) for c in shape.collections]))
            query = json_string(1, MAX_QUERY_CHARS)
            in_scope = scope if collection_required else optional(scope)
            calls.append((name, seq(Lit('{"query":'), query, in_scope, Lit("}"))))
        elif name == "get" and uri is not None:
            arguments = seq(
                Lit('{"uri":'),
                uri,
                optional(seq(Lit(',"fromLine":'), POSITIVE)),
                optional(seq(Lit(',"lineCount":'), POSITIVE)),
                Lit("}"),
            )
            calls.append((name, arguments))
        elif name == "multi_get" and uri is not None:
            calls.append((name, seq(Lit('{"uris":['), separated(uri, 1, MAX_URIS), Lit("]}"))))
    return calls


def _tool_steps(shape: StepShape) -> list[Node]:
    return [_tool(name, args) for name, args in tool_arguments(shape, collection_required=False)]


def step_grammar(task: AgentTask, shape: StepShape) -> Grammar:
    rules: list[tuple[str, Node]] = [
        ("root", alt([*_tool_steps(shape), Ref("final")])),
        *_final_rules(task, shape),
        ("char", STRING_CHAR),
    ]
    if shape.citables:
        rules.append(("citation", _citation(shape.citables)))
    return Grammar(tuple(rules))
