"""The rendered protocol's grammar: one Hermes-style call per turn, admitting only the task's
tools and collections, uris already shown and lines already shown; and the envelope the harness
writes from a final answer it admitted."""

from __future__ import annotations

import json

import pytest

from agentic.agents.call_grammar import (
    FINAL_TOOL,
    GrammarIgnoredError,
    call_grammar,
    call_text,
    final_envelope,
    read_call,
)
from agentic.agents.grammar import Citable, Grammar, StepShape, admits
from agentic.contract.canonical import sha256_hex
from agentic.contract.envelope import FinalEnvelope
from agentic.contract.json_access import object_at
from agentic.contract.strict_json import JsonArray, JsonObject
from agentic.contract.task import AgentTask
from tests.support.tiny_fixture import TASK_B, tiny_documents

TOOLS = ("search", "get", "multi_get")
URI = "gno://c0b2/d001.md"
SOURCE = "a" * 64
DATE_LINE = Citable(URI, 5, 5, SOURCE, sha256_hex("Launch date: 2026-09-14"))
OWNER_LINE = Citable(URI, 6, 6, SOURCE, sha256_hex("Owner: Priya Raman"))


def task() -> AgentTask:
    return AgentTask.model_validate(tiny_documents()[f"tasks/{TASK_B}.json"])


def grammar(
    *,
    tools: tuple[str, ...] = TOOLS,
    uris: tuple[str, ...] = (URI,),
    citables: tuple[Citable, ...] = (DATE_LINE, OWNER_LINE),
) -> Grammar:
    the_task = task()
    return call_grammar(the_task, StepShape(tools, the_task.corpus.collections, uris, citables))


def cite(item: Citable) -> JsonObject:
    return {"uri": item.uri, "startLine": item.start_line, "endLine": item.end_line}


def answer(claims: JsonArray, gaps: JsonArray) -> str:
    return call_text(FINAL_TOOL, {"claims": claims, "gaps": gaps})


DATE_CLAIM: JsonObject = {
    "claimKey": "launchDate",
    "value": "2026-09-14",
    "citations": [cite(DATE_LINE)],
}
OWNER_CLAIM: JsonObject = {
    "claimKey": "launchOwner",
    "value": "Priya Raman",
    "citations": [cite(OWNER_LINE)],
}
OWNER_GAP: JsonObject = {"claimKey": "launchOwner", "reason": "missing_evidence"}
DATE_GAP: JsonObject = {"claimKey": "launchDate", "reason": "missing_evidence"}


def test_a_search_in_a_task_collection_is_admitted() -> None:
    text = call_text("search", {"query": "Atlas launch date", "collection": "c0b2"})
    assert admits(grammar(), text)


def test_a_search_in_another_collection_is_refused() -> None:
    text = call_text("search", {"query": "Atlas launch date", "collection": "c0b2, c0b3"})
    assert not admits(grammar(), text)


def test_a_search_with_fields_the_task_cannot_use_is_refused() -> None:
    text = call_text("search", {"query": "Atlas", "collection": "c0b2", "lang": "en"})
    assert not admits(grammar(), text)


def test_a_read_of_a_shown_uri_is_admitted() -> None:
    assert admits(grammar(), call_text("get", {"uri": URI, "fromLine": 3, "lineCount": 4}))


def test_a_read_of_an_invented_uri_is_refused() -> None:
    assert not admits(grammar(), call_text("get", {"uri": "gno://c0b2/claims/launchDate"}))


def test_a_tool_the_task_does_not_allow_is_refused() -> None:
    text = call_text("search", {"query": "Atlas", "collection": "c0b2"})
    assert not admits(grammar(tools=("get",)), text)


def test_once_the_calls_are_spent_only_the_final_answer_is_admitted() -> None:
    spent = grammar(tools=())
    assert not admits(spent, call_text("get", {"uri": URI}))
    assert admits(spent, answer([DATE_CLAIM, OWNER_CLAIM], []))


def test_a_final_answer_citing_shown_lines_is_admitted() -> None:
    assert admits(grammar(), answer([DATE_CLAIM], [OWNER_GAP]))


def test_a_citation_of_a_line_never_shown_is_refused() -> None:
    unseen: JsonObject = {**DATE_CLAIM, "citations": [{"uri": URI, "startLine": 9, "endLine": 9}]}
    assert not admits(grammar(), answer([unseen], [OWNER_GAP]))


def test_a_claim_answered_twice_is_refused() -> None:
    assert not admits(grammar(), answer([DATE_CLAIM, DATE_CLAIM], [OWNER_GAP]))


def test_a_claim_neither_answered_nor_a_gap_is_refused() -> None:
    assert not admits(grammar(), answer([DATE_CLAIM], []))


def test_a_value_of_another_type_is_refused() -> None:
    wrong = {**DATE_CLAIM, "value": "string, required"}
    assert not admits(grammar(), answer([wrong], [OWNER_GAP]))


def test_with_no_line_shown_a_required_claim_can_only_be_a_gap() -> None:
    blind = grammar(citables=())
    assert admits(blind, answer([], [DATE_GAP, OWNER_GAP]))
    uncited = {**DATE_CLAIM, "citations": []}
    assert not admits(blind, answer([uncited], [OWNER_GAP]))


def test_reading_a_text_the_grammar_refuses_says_the_grammar_was_ignored() -> None:
    with pytest.raises(GrammarIgnoredError):
        read_call('{"kind": "final"}', grammar())


def test_a_text_cut_short_is_no_call() -> None:
    whole = call_text("search", {"query": "Atlas", "collection": "c0b2"})
    assert read_call(whole[:-5], grammar()) is None


def test_an_admitted_call_is_read_as_its_name_and_arguments() -> None:
    call = read_call(call_text("get", {"uri": URI, "lineCount": 2}), grammar())
    assert call is not None
    assert (call.name, call.arguments) == ("get", {"uri": URI, "lineCount": 2})


def test_the_envelope_carries_each_cited_lines_hashes_and_the_claims_type() -> None:
    arguments: JsonObject = {"claims": [DATE_CLAIM], "gaps": [OWNER_GAP]}
    envelope = final_envelope(arguments, task(), (DATE_LINE, OWNER_LINE))
    claim = object_at(envelope, "claims", 0)
    assert claim["value"] == {"type": "date", "value": "2026-09-14"}
    assert object_at(claim, "citations", 0)["spanHash"] == DATE_LINE.span_hash
    assert object_at(claim, "citations", 0)["sourceHashProvenance"] == "harness_observed"
    FinalEnvelope.model_validate(envelope)


def test_an_answer_with_claims_is_complete_and_one_with_none_abstains() -> None:
    shown = (DATE_LINE, OWNER_LINE)
    made = final_envelope({"claims": [DATE_CLAIM], "gaps": [OWNER_GAP]}, task(), shown)
    none = final_envelope({"claims": [], "gaps": [DATE_GAP, OWNER_GAP]}, task(), shown)
    assert (made["abstained"], made["stopReason"]) == (False, "complete")
    assert (none["abstained"], none["stopReason"]) == (True, "abstained")


def test_a_call_is_written_in_the_form_chat_templates_teach() -> None:
    text = call_text("search", {"query": "x", "collection": "c"})
    assert text.startswith("<tool_call>\n") and text.endswith("\n</tool_call>")
    inner = json.loads(text.removeprefix("<tool_call>\n").removesuffix("\n</tool_call>"))
    assert inner == {"name": "search", "arguments": {"query": "x", "collection": "c"}}
