"""What the rendered chat protocol lets a model write, and what its text becomes.

Each turn the model writes one tool call in the form its chat template teaches (Qwen2.5 and the
other Hermes-style templates)::

    <tool_call>
    {"name": "search", "arguments": {"query":"...","collection":"c01f"}}
    </tool_call>

and the grammar the agent sends with the request (llama.cpp's ``grammar`` field) admits nothing
else: the task's tools while calls remain, its collections, the uris results have shown, and the
final answer. The final answer is a call of ``final_answer`` whose arguments hold claims and gaps
in a compact form: a claim's value as a bare JSON value of its type, a citation as a uri and line
range among the lines the model was shown, every claim of the task once, as a claim or as a gap.

``final_envelope`` writes the contract's envelope from that: ``schemaVersion``, each value's type,
each citation's hashes and provenances (from the shown line it names), and ``abstained`` and
``stopReason`` as the contract's reference agent derives them (abstained exactly when no claim is
made). None of this chooses for the model: which tool, which words, which value and which lines
are its own; the harness writes only what the model could copy but never decide.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from agentic.agents.grammar import (
    STRING_CHAR,
    VALUE_NODES,
    Citable,
    Grammar,
    Lit,
    Matcher,
    Node,
    Ref,
    StepShape,
    alt,
    claim_rules,
    claims_then_gaps,
    json_literal,
    seq,
    tool_arguments,
)
from agentic.contract.errors import AgenticError, ContractError
from agentic.contract.json_access import as_array, as_int, as_object, as_objects, as_str
from agentic.contract.strict_json import JsonArray, JsonObject, JsonValue, parse_strict
from agentic.contract.task import AgentTask

FINAL_TOOL = "final_answer"
CALL_OPEN = '<tool_call>\n{"name": "'
CALL_CLOSE = "}\n</tool_call>"
ARGUMENTS = '", "arguments": '


def call_text(name: str, arguments: JsonObject) -> str:
    """A call as the model writes it (the worked examples are written with this)."""
    compact = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    return f"{CALL_OPEN}{name}{ARGUMENTS}{compact}{CALL_CLOSE}"


# --- the grammar --------------------------------------------------------------------------------


def _call(name: str, arguments: Node) -> Node:
    return seq(Lit(f"{name}{ARGUMENTS}"), arguments)


def _tool_calls(shape: StepShape) -> list[Node]:
    return [_call(name, args) for name, args in tool_arguments(shape, collection_required=True)]


def _citation(citables: Sequence[Citable]) -> Node:
    by_uri: dict[str, list[Citable]] = {}
    for item in citables:
        by_uri.setdefault(item.uri, []).append(item)
    options = [
        seq(
            json_literal(uri),
            alt([Lit(f',"startLine":{c.start_line},"endLine":{c.end_line}}}') for c in items]),
        )
        for uri, items in by_uri.items()
    ]
    return seq(Lit('{"uri":'), alt(options))


def _claim(key: str, value_type: str, citations: Node) -> Node:
    return seq(
        Lit(f'{{"claimKey":"{key}","value":'),
        VALUE_NODES[value_type],
        Lit(',"citations":'),
        citations,
        Lit("}"),
    )


def _final_rules(task: AgentTask, shape: StepShape) -> list[tuple[str, Node]]:
    rules, claimable = claim_rules(task, shape, _claim)
    final = _call(FINAL_TOOL, seq(Lit('{"claims":['), claims_then_gaps(claimable, 0, ()), Lit("}")))
    return [("final", final), *rules]


def call_grammar(task: AgentTask, shape: StepShape) -> Grammar:
    """The grammar of the next turn: one call of a tool still allowed, or the final answer."""
    rules: list[tuple[str, Node]] = [
        ("root", seq(Lit(CALL_OPEN), alt([*_tool_calls(shape), Ref("final")]), Lit(CALL_CLOSE))),
        *_final_rules(task, shape),
        ("char", STRING_CHAR),
    ]
    if shape.citables:
        rules.append(("citation", _citation(shape.citables)))
    return Grammar(tuple(rules))


# --- what the text becomes ----------------------------------------------------------------------


@dataclass(frozen=True)
class ModelCall:
    name: str
    arguments: JsonObject


class GrammarIgnoredError(AgenticError):
    """The reply is text the grammar never admits: the endpoint did not apply it."""


def read_call(text: str, grammar: Grammar) -> ModelCall | None:
    """The call ``text`` states; None when it is a start the grammar admits but unfinished (the
    reply ran out of tokens), which is the model's malformed output, not the endpoint's fault."""
    matcher = Matcher(grammar)
    if not matcher.feed(text):
        raise GrammarIgnoredError(text)
    if not matcher.complete:
        return None
    inner = text[len("<tool_call>\n") : -len("\n</tool_call>")]
    try:
        value = parse_strict(inner, source="model output")
    except ContractError:
        raise GrammarIgnoredError(text) from None
    if not isinstance(value, dict):
        raise GrammarIgnoredError(text)
    arguments = value.get("arguments")
    if not isinstance(arguments, dict):
        raise GrammarIgnoredError(text)
    return ModelCall(str(value["name"]), arguments)


def _citation_of(compact: JsonValue, shown: dict[tuple[str, int, int], Citable]) -> JsonObject:
    cited = as_object(compact, "citation")
    coordinate = (
        as_str(cited["uri"], "citation uri"),
        as_int(cited["startLine"], "citation startLine"),
        as_int(cited["endLine"], "citation endLine"),
    )
    item = shown[coordinate]
    return {
        "uri": item.uri,
        "startLine": item.start_line,
        "endLine": item.end_line,
        "sourceHash": item.source_hash,
        "spanHash": item.span_hash,
        "sourceHashProvenance": "harness_observed",
        "spanHashProvenance": "harness_observed",
    }


def final_envelope(
    arguments: JsonObject, task: AgentTask, citables: Sequence[Citable]
) -> JsonObject:
    """The contract's envelope of a final answer the grammar admitted (see the module text)."""
    shown = {(c.uri, c.start_line, c.end_line): c for c in citables}
    types = {claim.claimKey: claim.valueType for claim in task.claims}
    claims: JsonArray = [
        {
            "claimKey": claim["claimKey"],
            "value": {
                "type": types[as_str(claim["claimKey"], "claimKey")],
                "value": claim["value"],
            },
            "citations": [
                _citation_of(c, shown) for c in as_array(claim["citations"], "citations")
            ],
        }
        for claim in as_objects(arguments["claims"], "claims")
    ]
    abstained = not claims
    return {
        "schemaVersion": "1.0",
        "claims": claims,
        "gaps": arguments["gaps"],
        "abstained": abstained,
        "stopReason": "abstained" if abstained else "complete",
    }
