"""The local model's step grammar admits exactly one compact tool action or one FinalEnvelope,
shaped from visible data only, and every text it admits is a step the runner accepts.

No model is needed: ``Matcher`` follows text through the same grammar llama.cpp receives."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentic.agents.grammar import (
    Citable,
    Grammar,
    Matcher,
    StepShape,
    admits,
    step_grammar,
    to_gbnf,
)
from agentic.contract.canonical import sha256_hex
from agentic.contract.task import AgentTask
from agentic.runner.steps import StepError, parse_step
from tests.support.tiny_fixture import TASK_A, TASK_B, tiny_documents

TOOLS = ("search", "get", "multi_get")
URI = "gno://c0b2/d001.md"
SOURCE = "a" * 64
DATE_LINE = Citable(URI, 5, 5, SOURCE, sha256_hex("Launch date: 2026-09-14"))
OWNER_LINE = Citable(URI, 6, 6, SOURCE, sha256_hex("Owner: Priya Raman"))


def task(task_id: str) -> AgentTask:
    return AgentTask.model_validate(tiny_documents()[f"tasks/{task_id}.json"])


def grammar(
    task_id: str = TASK_B,
    *,
    tools: tuple[str, ...] = TOOLS,
    uris: tuple[str, ...] = (URI,),
    citables: tuple[Citable, ...] = (DATE_LINE, OWNER_LINE),
) -> Grammar:
    the_task = task(task_id)
    shape = StepShape(tools, the_task.corpus.collections, uris, citables)
    return step_grammar(the_task, shape)


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def tool(name: str, arguments: dict[str, Any]) -> str:
    return compact({"kind": "tool", "toolName": name, "arguments": arguments})


def citation(item: Citable) -> dict[str, Any]:
    return json.loads(item.json_text())  # type: ignore[no-any-return]


def final(claims: list[dict[str, Any]], gaps: list[dict[str, Any]], **rest: Any) -> str:
    envelope = {
        "schemaVersion": "1.0",
        "claims": claims,
        "gaps": gaps,
        "abstained": rest.get("abstained", False),
        "stopReason": rest.get("stopReason", "complete"),
    }
    return compact({"kind": "final", "envelope": envelope})


def date_claim(
    value: str = "2026-09-14", cites: tuple[Citable, ...] = (DATE_LINE,)
) -> dict[str, Any]:
    return {
        "claimKey": "launchDate",
        "value": {"type": "date", "value": value},
        "citations": [citation(c) for c in cites],
    }


def gap(key: str, reason: str = "missing_evidence") -> dict[str, Any]:
    return {"claimKey": key, "reason": reason}


# --- texts the grammar admits, and the runner accepts --------------------------------------------

ADMITTED = {
    "search": tool("search", {"query": "Atlas launch date"}),
    "scoped search": tool("search", {"query": "launch", "collection": "c0b2"}),
    "get": tool("get", {"uri": URI}),
    "get range": tool("get", {"uri": URI, "fromLine": 5, "lineCount": 2}),
    "multi_get": tool("multi_get", {"uris": [URI]}),
    "claim and gap": final([date_claim()], [gap("launchOwner")]),
    "abstention": final(
        [], [gap("launchDate"), gap("launchOwner")], abstained=True, stopReason="abstained"
    ),
}


@pytest.mark.parametrize("text", ADMITTED.values(), ids=ADMITTED.keys())
def test_admitted_step_is_one_the_runner_accepts(text: str) -> None:
    assert admits(grammar(), text)
    parse_step(text, task(TASK_B), frozenset(TOOLS))


# --- shapes it refuses ---------------------------------------------------------------------------

REFUSED = {
    "prose": "I think the launch date is 2026-09-14.",
    "two objects": ADMITTED["search"] + ADMITTED["search"],
    "pretty-printed": json.dumps(json.loads(ADMITTED["search"]), indent=1),
    "prose after json": ADMITTED["search"] + " done",
    "unknown tool": tool("delete", {"uri": URI}),
    "foreign collection": tool("search", {"query": "launch", "collection": "c0a1"}),
    "unseen uri": tool("get", {"uri": "gno://c0b2/secret.md"}),
    "extra argument": tool("search", {"query": "launch", "limit": 3}),
    "empty query": tool("search", {"query": ""}),
    "unknown claim": final(
        [{**date_claim(), "claimKey": "launchCost"}], [gap("launchDate"), gap("launchOwner")]
    ),
    "claim neither made nor gapped": final([date_claim()], []),
    "claim and gap for one key": final([date_claim()], [gap("launchDate"), gap("launchOwner")]),
    "required claim without citation": final([date_claim(cites=())], [gap("launchOwner")]),
    "wrong value type": final(
        [{**date_claim(), "value": {"type": "string", "value": "x"}}], [gap("launchOwner")]
    ),
    "not a date": final([date_claim(value="Sept 14")], [gap("launchOwner")]),
    "fabricated citation": final(
        [date_claim(cites=(Citable(URI, 5, 5, SOURCE, "b" * 64),))], [gap("launchOwner")]
    ),
    "unknown gap reason": final([date_claim()], [gap("launchOwner", "not_sure")]),
}


@pytest.mark.parametrize("text", REFUSED.values(), ids=REFUSED.keys())
def test_grammar_refuses(text: str) -> None:
    assert not admits(grammar(), text)


MALFORMED = {
    "prose": REFUSED["prose"],
    "two objects": REFUSED["two objects"],
    "duplicate key": ADMITTED["search"].replace('{"query"', '{"query":"x","query"'),
}


@pytest.mark.parametrize("text", MALFORMED.values(), ids=MALFORMED.keys())
def test_output_the_grammar_refuses_is_malformed_agent_json_for_the_runner(text: str) -> None:
    assert not admits(grammar(), text)
    with pytest.raises(StepError) as caught:
        parse_step(text, task(TASK_B), frozenset(TOOLS))
    assert caught.value.code == "malformed_agent_json"


def test_spent_call_budget_leaves_only_a_final_step() -> None:
    spent = grammar(tools=())
    assert not admits(spent, ADMITTED["search"])
    assert admits(spent, ADMITTED["claim and gap"])


def test_without_seen_uris_reads_are_not_offered() -> None:
    assert not admits(grammar(uris=()), ADMITTED["get"])
    assert admits(grammar(uris=()), ADMITTED["search"])


def test_without_observed_evidence_a_required_claim_can_only_be_a_gap() -> None:
    blind = grammar(citables=())
    assert not admits(blind, final([date_claim(cites=())], [gap("launchOwner")]))
    assert admits(blind, final([], [gap("launchDate"), gap("launchOwner")]))


def test_string_escapes_are_json_escapes_only() -> None:
    g = grammar(TASK_A)
    assert admits(g, tool("search", {"query": 'say "INC"\\n'}))
    assert not admits(g, '{"kind":"tool","toolName":"search","arguments":{"query":"\\u0041"}}')


# --- forced text ---------------------------------------------------------------------------------


def test_when_only_a_final_step_is_left_its_scaffolding_is_forced() -> None:
    forced = Matcher(grammar(tools=())).forced()
    assert forced == '{"kind":"final","envelope":{"schemaVersion":"1.0","claims":['


def test_a_citation_is_forced_once_its_uri_and_lines_are_chosen() -> None:
    matcher = Matcher(grammar())
    prefix = final([date_claim()], [gap("launchOwner")])
    chosen = prefix.index('"startLine":5,') + len('"startLine":5,')
    assert matcher.feed(prefix[:chosen])
    assert matcher.forced().startswith(f'"endLine":5,"sourceHash":"{SOURCE}"')


def test_a_choice_forces_nothing() -> None:
    matcher = Matcher(grammar())
    assert matcher.feed('{"kind":"')
    assert matcher.forced() == ""


def test_finished_only_after_the_closing_brace() -> None:
    matcher = Matcher(grammar())
    text = ADMITTED["search"]
    assert matcher.feed(text[:-1]) and not matcher.finished
    assert matcher.feed(text[-1]) and matcher.finished


# --- GBNF rendering ------------------------------------------------------------------------------


def test_gbnf_has_one_rule_per_line_starting_with_root() -> None:
    text = to_gbnf(grammar())
    names = [line.split(" ::= ")[0] for line in text.splitlines()]
    assert names[0] == "root"
    assert len(names) == len(set(names))


def test_gbnf_literals_escape_quotes_and_backslashes() -> None:
    text = to_gbnf(grammar())
    assert '"{\\"kind\\":\\"tool\\",\\"toolName\\":\\"search\\"' in text
