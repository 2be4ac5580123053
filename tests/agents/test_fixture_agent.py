"""The fixture agent's state machine, line selection, value extraction and citations
(contract v1 section 4, with the cue-table generalizations in docs/design.md).

Every step the agent emits here is also passed through the runner's own step validator, so a
test that checks a value also checks that the envelope is one the runner accepts."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from agentic.agents.base import StepsInline
from agentic.agents.cues import CueTable, parse_cue_table
from agentic.agents.fixture_agent import FixtureAgent
from agentic.contract.canonical import canonical_text
from agentic.contract.receipt import ResultRole
from agentic.contract.steps import VisibleCall, VisibleEvidence, VisibleResult
from agentic.contract.task import AgentTask
from agentic.runner.steps import StepError, parse_step
from agentic.tools import tool_definitions

SOURCE_HASH = "a" * 64
OTHER_SOURCE_HASH = "b" * 64
ALL_TOOLS = ("search", "get", "multi_get")
CUE_SHA = "c" * 64


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_task(
    claims: tuple[tuple[str, str], ...] = (("partNumber", "identifier"),),
    *,
    goal: str = "Find the value.",
    category: str = "exact_identifier",
    allowed: tuple[str, ...] = ALL_TOOLS,
    max_calls: int = 3,
) -> AgentTask:
    return AgentTask.model_validate(
        {
            "schemaVersion": "1.0",
            "taskId": "t0000001",
            "category": category,
            "brief": {"goal": goal, "instructions": ["Cite the line."]},
            "claims": [
                {"claimKey": key, "valueType": kind, "substantive": True, "required": True}
                for key, kind in claims
            ],
            "allowedTools": list(allowed),
            "budgets": {"maxAgentCalls": max_calls, "maxModelVisibleBytes": 10000},
            "corpus": {"collections": ["c001", "c002"]},
        }
    )


def make_table(claims: dict[str, Any], version: str = "1.0") -> CueTable:
    document = {"schemaVersion": version, "agentId": "fixture-agent-v1", "claims": claims}
    return parse_cue_table(json.dumps(document).encode("utf-8"))


DEFAULT_CUES: dict[str, Any] = {"partNumber": {"cues": ["part"]}}


def ev(
    text: str, line: int = 3, uri: str = "gno://c001/d1.md", source: str = SOURCE_HASH
) -> VisibleEvidence:
    return VisibleEvidence(
        uri=uri,
        sourceHash=source,
        startLine=line,
        endLine=line + text.count("\n"),
        spanHash=sha(text),
        sourceHashProvenance="harness_observed",
        spanHashProvenance="harness_observed",
        text=text,
    )


def visible_call(
    role: ResultRole,
    *evidence: VisibleEvidence,
    content: str = "",
    tool: str = "search",
    index: int = 0,
) -> VisibleCall:
    arguments: dict[str, Any] = {"query": "q"} if tool == "search" else {"uri": "gno://c001/d1.md"}
    return VisibleCall(
        callIndex=index,
        toolName=tool,
        arguments=arguments,
        result=VisibleResult(
            status="ok",
            resultRole=role,
            content=content,
            evidence=evidence,
            errorCode=None,
        ),
    )


def candidates(*evidence: VisibleEvidence) -> VisibleCall:
    return visible_call("candidates", *evidence)


def source(*evidence: VisibleEvidence, index: int = 1) -> VisibleCall:
    return visible_call("source", *evidence, tool="get", index=index)


def step(
    task: AgentTask,
    calls: tuple[VisibleCall, ...] = (),
    cues: dict[str, Any] | None = None,
    tools: tuple[str, ...] = ALL_TOOLS,
    version: str = "1.0",
) -> dict[str, Any]:
    agent = FixtureAgent(make_table(DEFAULT_CUES if cues is None else cues, version), CUE_SHA)
    listed = [t for t in tool_definitions() if t["name"] in tools]
    raw = agent.open(task, listed).next_step(calls)
    parse_step(raw, task, tools)  # the runner accepts it
    value: dict[str, Any] = json.loads(raw)
    return value


def envelope(
    task: AgentTask,
    *evidence: VisibleEvidence,
    cues: dict[str, Any] | None = None,
    version: str = "1.0",
) -> dict[str, Any]:
    """The final envelope after one source read of ``evidence``."""
    result = step(task, (candidates(ev("x")), source(*evidence)), cues, version=version)
    assert result["kind"] == "final"
    final: dict[str, Any] = result["envelope"]
    return final


def value_of(
    task: AgentTask,
    *evidence: VisibleEvidence,
    cues: dict[str, Any] | None = None,
    version: str = "1.0",
) -> Any:
    """The single claim's value, or None when the claim became a gap."""
    final = envelope(task, *evidence, cues=cues, version=version)
    return final["claims"][0]["value"]["value"] if final["claims"] else None


def cited_lines(final: dict[str, Any], index: int = 0) -> list[tuple[str, int, int]]:
    return [(c["uri"], c["startLine"], c["endLine"]) for c in final["claims"][index]["citations"]]


def test_its_steps_run_inline_on_the_runners_thread() -> None:
    agent = FixtureAgent(make_table(DEFAULT_CUES), CUE_SHA)
    task = make_task((("owner", "string"),))
    assert isinstance(agent.open(task, tool_definitions()), StepsInline)


# ---- the first step --------------------------------------------------------------------------


def test_the_first_step_searches_the_preferred_cues_in_the_first_collection() -> None:
    task = make_task((("launchDate", "date"), ("owner", "string")))
    cues = {"launchDate": {"cues": ["launch date", "go-live"]}, "owner": {"cues": ["owner"]}}
    assert step(task, cues=cues) == {
        "kind": "tool",
        "toolName": "search",
        "arguments": {"query": "launch date owner", "collection": "c001"},
    }


def test_a_preferred_cue_shared_by_two_claims_is_searched_once() -> None:
    task = make_task((("start", "date"), ("end", "date")))
    cues = {"start": {"cues": ["date"]}, "end": {"cues": ["date"]}}
    assert step(task, cues=cues)["arguments"]["query"] == "date"


def test_the_search_falls_back_to_the_goal_when_no_claim_has_cues() -> None:
    task = make_task(goal="Find the part number.")
    assert step(task, cues={})["arguments"]["query"] == "Find the part number."


@pytest.mark.parametrize(
    ("listed", "allowed"),
    [(("get", "multi_get"), ALL_TOOLS), (ALL_TOOLS, ("get", "multi_get"))],
)
def test_without_an_available_search_the_agent_abstains_as_tool_unavailable(
    listed: tuple[str, ...], allowed: tuple[str, ...]
) -> None:
    task = make_task((("partNumber", "identifier"), ("owner", "string")), allowed=allowed)
    assert step(task, tools=listed) == {
        "kind": "final",
        "envelope": {
            "schemaVersion": "1.0",
            "claims": [],
            "gaps": [
                {"claimKey": "partNumber", "reason": "tool_unavailable"},
                {"claimKey": "owner", "reason": "tool_unavailable"},
            ],
            "abstained": True,
            "stopReason": "tool_unavailable",
        },
    }


# ---- reading candidates ----------------------------------------------------------------------


def test_candidates_are_followed_by_a_one_line_get_of_the_first_cued_line() -> None:
    calls = (candidates(ev("# Inventory", 1), ev("Part: AX-100", 3), ev("Part: AX-200", 4)),)
    assert step(make_task(), calls) == {
        "kind": "tool",
        "toolName": "get",
        "arguments": {"uri": "gno://c001/d1.md", "fromLine": 3, "lineCount": 1},
    }


def test_cued_lines_in_several_documents_are_read_with_multi_get_in_first_seen_order() -> None:
    task = make_task(category="multi_document_comparison")
    calls = (
        candidates(
            ev("Part: AX-1", 3, "gno://c001/b.md"),
            ev("Part: AX-2", 3, "gno://c001/a.md"),
            ev("Part: AX-3", 4, "gno://c001/b.md"),
        ),
    )
    assert step(task, calls)["toolName"] == "multi_get"
    assert step(task, calls)["arguments"] == {"uris": ["gno://c001/b.md", "gno://c001/a.md"]}


def test_without_multi_get_several_documents_are_read_by_one_get_of_the_first() -> None:
    task = make_task(category="multi_document_comparison", allowed=("search", "get"))
    calls = (
        candidates(ev("Part: AX-1", 5, "gno://c001/b.md"), ev("Part: AX-2", 3, "gno://c001/a.md")),
    )
    assert step(task, calls, tools=("search", "get"))["arguments"] == {
        "uri": "gno://c001/b.md",
        "fromLine": 5,
        "lineCount": 1,
    }


def test_get_is_chosen_even_when_not_allowed_and_the_runner_rejects_it() -> None:
    task = make_task(allowed=("search", "multi_get"))
    agent = FixtureAgent(make_table(DEFAULT_CUES), CUE_SHA)
    raw = agent.open(task, tool_definitions()).next_step((candidates(ev("Part: AX-1")),))
    assert json.loads(raw)["toolName"] == "get"
    with pytest.raises(StepError) as caught:
        parse_step(raw, task, ALL_TOOLS)
    assert caught.value.code == "disallowed_tool"


def test_candidates_without_a_cued_line_are_read_whole() -> None:
    calls = (candidates(ev("# Inventory", 1), ev("Nothing relevant", 3)),)
    assert step(make_task(), calls)["arguments"] == {"uri": "gno://c001/d1.md"}


def test_candidates_without_a_cued_line_in_several_documents_are_all_read() -> None:
    calls = (candidates(ev("# A", 1, "gno://c001/a.md"), ev("# B", 1, "gno://c001/b.md")),)
    assert step(make_task(), calls)["arguments"] == {"uris": ["gno://c001/a.md", "gno://c001/b.md"]}


def test_a_one_call_task_finalizes_from_its_candidates_instead_of_reading() -> None:
    calls = (candidates(ev("# Inventory", 1), ev("Part: AX-100", 3)),)
    result = step(make_task(max_calls=1), calls)
    assert result["kind"] == "final"
    assert result["envelope"]["claims"][0]["value"] == {"type": "identifier", "value": "AX-100"}


def test_empty_candidates_end_in_an_abstention_with_missing_evidence_gaps() -> None:
    result = step(make_task(), (candidates(),))
    assert result["envelope"] == {
        "schemaVersion": "1.0",
        "claims": [],
        "gaps": [{"claimKey": "partNumber", "reason": "missing_evidence"}],
        "abstained": True,
        "stopReason": "abstained",
    }


# ---- finalizing from reads -------------------------------------------------------------------


def test_a_source_read_is_finalized_from_the_read_lines_not_the_candidates() -> None:
    calls = (candidates(ev("Part: AX-999", 9)), source(ev("Part: AX-100", 3)))
    final = step(make_task(), calls)["envelope"]
    assert final["claims"][0]["value"]["value"] == "AX-100"
    assert cited_lines(final) == [("gno://c001/d1.md", 3, 3)]


def test_a_read_without_evidence_falls_back_to_the_candidate_lines() -> None:
    calls = (candidates(ev("Part: AX-999", 9)), source())
    assert step(make_task(), calls)["envelope"]["claims"][0]["value"]["value"] == "AX-999"


def test_a_claim_missing_from_the_cue_table_is_a_gap_beside_supported_claims() -> None:
    task = make_task((("partNumber", "identifier"), ("owner", "string")))
    final = envelope(task, ev("Part: AX-100\nOwner: Priya", 3))
    assert [c["claimKey"] for c in final["claims"]] == ["partNumber"]
    assert final["gaps"] == [{"claimKey": "owner", "reason": "missing_evidence"}]
    assert (final["abstained"], final["stopReason"]) == (False, "complete")


# ---- evidence bundles ------------------------------------------------------------------------

LINE = "Part: AX-100"


def bundle_call(payload: Any) -> VisibleCall:
    content = payload if isinstance(payload, str) else canonical_text(payload)
    return visible_call("evidence_bundle", content=content)


def tuple_item(text: str = LINE, start: int = 3, end: int = 3) -> list[Any]:
    uri = "gno://c001/d1.md"
    return [
        uri,
        start,
        end,
        SOURCE_HASH,
        SOURCE_HASH,
        sha(text),
        text,
        None,
        None,
        [],
        "unavailable",
    ]


def test_a_bundle_is_finalized_from_the_e_tuples_of_its_content() -> None:
    final = step(make_task(), (bundle_call({"v": "gno-context-agent-v1", "e": [tuple_item()]}),))
    assert final["envelope"]["claims"][0] == {
        "claimKey": "partNumber",
        "value": {"type": "identifier", "value": "AX-100"},
        "citations": [
            {
                "uri": "gno://c001/d1.md",
                "sourceHash": SOURCE_HASH,
                "startLine": 3,
                "endLine": 3,
                "spanHash": sha(LINE),
                "sourceHashProvenance": "harness_observed",
                "spanHashProvenance": "harness_observed",
            }
        ],
    }


def test_a_bundle_is_finalized_from_the_evidence_objects_of_its_content() -> None:
    item = {
        "uri": "gno://c001/d1.md",
        "startLine": 3,
        "endLine": 3,
        "sourceHash": SOURCE_HASH,
        "passageHash": sha(LINE),
        "text": LINE,
    }
    final = step(make_task(), (bundle_call({"evidence": [item]}),))["envelope"]
    assert cited_lines(final) == [("gno://c001/d1.md", 3, 3)]


def test_e_tuples_without_the_projection_version_carry_no_evidence() -> None:
    final = step(make_task(), (bundle_call({"e": [tuple_item()]}),))["envelope"]
    assert final["abstained"] is True


@pytest.mark.parametrize(
    "broken",
    [
        ["gno://c001/d1.md", 3, 3, SOURCE_HASH],  # too short
        ["http://c001/d1.md", 3, 3, SOURCE_HASH, SOURCE_HASH, SOURCE_HASH, LINE],
        ["gno://c001/d1.md", 0, 0, SOURCE_HASH, SOURCE_HASH, SOURCE_HASH, LINE],
        ["gno://c001/d1.md", 4, 3, SOURCE_HASH, SOURCE_HASH, SOURCE_HASH, LINE],
        ["gno://c001/d1.md", True, 3, SOURCE_HASH, SOURCE_HASH, SOURCE_HASH, LINE],
        ["gno://c001/d1.md", 3, 3, "not-a-hash", SOURCE_HASH, SOURCE_HASH, LINE],
        ["gno://c001/d1.md", 3, 3, SOURCE_HASH, SOURCE_HASH, SOURCE_HASH, None],
    ],
)
def test_a_bundle_item_that_could_not_be_cited_validly_is_skipped(broken: list[Any]) -> None:
    payload = {"v": "gno-context-agent-v1", "e": [broken, tuple_item("Part: AX-7", 9, 9)]}
    final = step(make_task(), (bundle_call(payload),))["envelope"]
    assert cited_lines(final) == [("gno://c001/d1.md", 9, 9)]


@pytest.mark.parametrize("content", ["not json", "[1]", '{"evidence": 3}', '{"a":1,"a":2}'])
def test_bundle_content_that_is_not_a_payload_leads_to_abstention(content: str) -> None:
    final = step(make_task(), (bundle_call(content),))["envelope"]
    assert (final["abstained"], final["gaps"]) == (
        True,
        [{"claimKey": "partNumber", "reason": "missing_evidence"}],
    )


def test_a_bundle_with_visible_evidence_uses_that_evidence() -> None:
    call = visible_call("evidence_bundle", ev("Part: AX-5", 2), content="{}")
    assert step(make_task(), (call,))["envelope"]["claims"][0]["value"]["value"] == "AX-5"


# ---- line selection --------------------------------------------------------------------------


def test_by_default_the_first_cued_line_in_evidence_order_is_selected() -> None:
    final = envelope(make_task(), ev("Part: AX-2", 8), ev("Part: AX-1", 3))
    assert (final["claims"][0]["value"]["value"], cited_lines(final)[0][1]) == ("AX-2", 8)


def test_cues_match_case_insensitively_as_substrings_of_the_line() -> None:
    assert value_of(make_task(), ev("SPARE PARTS LIST: AX-9")) == "AX-9"


def test_any_cue_of_a_claim_selects_a_line() -> None:
    cues = {"partNumber": {"cues": ["part", "component"]}}
    assert value_of(make_task(), ev("Component: AX-4"), cues=cues) == "AX-4"


def test_a_comparison_task_selects_every_cued_line() -> None:
    task = make_task(category="multi_document_comparison")
    final = envelope(
        task, ev("Part: AX-1", 3, "gno://c001/a.md"), ev("Part: AX-2", 4, "gno://c001/b.md")
    )
    assert cited_lines(final) == [("gno://c001/a.md", 3, 3), ("gno://c001/b.md", 4, 4)]


def test_an_earliest_goal_selects_every_cued_line() -> None:
    task = make_task((("launch", "date"),), goal="When was the EARLIEST launch?")
    final = envelope(
        task,
        ev("Launch: 2026-05-01", 3),
        ev("Launch: 2026-01-01", 7),
        cues={"launch": {"cues": ["launch"]}},
    )
    assert final["claims"][0]["value"]["value"] == "2026-01-01"
    assert len(final["claims"][0]["citations"]) == 2


@pytest.mark.parametrize(
    "goal", ["Find the newer part.", "Find the current part.", "The final part?"]
)
def test_a_newer_current_or_final_goal_selects_the_last_cued_line(goal: str) -> None:
    final = envelope(make_task(goal=goal), ev("Part: AX-1", 3), ev("Part: AX-2", 4), ev("Other", 5))
    assert (final["claims"][0]["value"]["value"], cited_lines(final)) == (
        "AX-2",
        [("gno://c001/d1.md", 4, 4)],
    )


def test_lines_of_a_multi_line_item_are_numbered_from_its_start_line() -> None:
    calls = (candidates(ev("# Inventory\n \nPart: AX-1", 1)),)
    assert step(make_task(), calls)["arguments"]["fromLine"] == 3


# ---- citations -------------------------------------------------------------------------------


def test_a_line_of_a_multi_line_item_cites_the_whole_observed_item() -> None:
    text = "Owner: Priya Raman\nApproved by the steering group."
    final = envelope(
        make_task((("owner", "string"),)), ev(text, 6), cues={"owner": {"cues": ["owner"]}}
    )
    citation = final["claims"][0]["citations"][0]
    assert (citation["startLine"], citation["endLine"], citation["spanHash"]) == (6, 7, sha(text))


def test_two_selected_lines_of_one_item_are_cited_once() -> None:
    task = make_task(category="multi_document_comparison")
    final = envelope(task, ev("Part: AX-1\nPart: AX-2", 3))
    assert cited_lines(final) == [("gno://c001/d1.md", 3, 4)]


def test_the_same_line_observed_twice_is_cited_once() -> None:
    task = make_task(category="multi_document_comparison")
    assert len(envelope(task, ev(LINE), ev(LINE))["claims"][0]["citations"]) == 1


def test_citations_keep_the_source_hash_of_their_item() -> None:
    final = envelope(make_task(), ev(LINE, source=OTHER_SOURCE_HASH))
    assert final["claims"][0]["citations"][0]["sourceHash"] == OTHER_SOURCE_HASH


# ---- typed values ----------------------------------------------------------------------------

BOOL_TASK = make_task((("enabled", "boolean"),))
BOOL_CUES = {"enabled": {"cues": ["sso"]}}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("SSO: yes", True),
        ("SSO enabled for staff", True),
        ("SSO: TRUE", True),
        ("SSO activada", True),
        ("SSO: no", False),
        ("SSO: disabled", False),
        ("SSO: not included", False),
        ("SSO: pending", None),
        ("SSO: nothing", None),  # \bno\b needs a word boundary
    ],
)
def test_a_boolean_reads_true_and_false_markers(line: str, expected: bool | None) -> None:
    assert value_of(BOOL_TASK, ev(line), cues=BOOL_CUES) is expected


def test_a_boolean_is_false_when_any_selected_line_is_negative() -> None:
    task = make_task((("enabled", "boolean"),), category="multi_document_comparison")
    assert value_of(task, ev("SSO: yes", 3), ev("SSO: no", 4), cues=BOOL_CUES) is False


@pytest.mark.parametrize(
    ("line", "expected"),
    [("SSO: sí", None), ("SSO: Sí.", None), ("SSO: síx", True), ("SSO: SÍx", True)],
)
def test_si_counts_only_when_an_ascii_word_character_follows_as_in_the_reference(
    line: str, expected: bool | None
) -> None:
    assert value_of(BOOL_TASK, ev(line), cues=BOOL_CUES) is expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Part: AX-100 replaces BX-9", "AX-100"),
        ("Part: ax-100 then CR_7.B2", "CR_7.B2"),
        ("Part: A100 (no separator)", None),
    ],
)
def test_an_identifier_is_the_first_upper_case_compound_token(
    line: str, expected: str | None
) -> None:
    assert value_of(make_task(), ev(line)) == expected


def test_an_identifier_is_searched_across_selected_lines_in_order() -> None:
    task = make_task(category="multi_document_comparison")
    assert value_of(task, ev("Part: pending", 3), ev("Part: AX-3", 4)) == "AX-3"


DATE_CUES = {"launch": {"cues": ["launch"]}}


def test_a_date_is_the_latest_date_on_the_selected_lines() -> None:
    task = make_task((("launch", "date"),))
    assert (
        value_of(task, ev("Launch: 2026-03-01, moved from 2026-09-14"), cues=DATE_CUES)
        == "2026-09-14"
    )


def test_a_date_is_the_earliest_when_the_goal_asks_for_it() -> None:
    task = make_task((("launch", "date"),), goal="The earliest launch date.")
    assert (
        value_of(task, ev("Launch: 2026-03-01, moved from 2026-09-14"), cues=DATE_CUES)
        == "2026-03-01"
    )


def test_a_date_that_is_not_on_the_calendar_is_ignored() -> None:
    task = make_task((("launch", "date"),))
    assert value_of(task, ev("Launch: 2026-02-30 or 2026-02-27"), cues=DATE_CUES) == "2026-02-27"


NUMBER_TASK = make_task((("seats", "number"),))
NUMBER_CUES = {"seats": {"cues": ["seats"]}}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Seats: 12 of 40", 40),
        ("Seats: 2.5 or 2.75", 2.75),
        ("Seats: 7.0", 7),
        ("Seats: none", None),
    ],
)
def test_a_number_is_the_largest_number_on_the_selected_lines(line: str, expected: Any) -> None:
    value = value_of(NUMBER_TASK, ev(line), cues=NUMBER_CUES)
    assert (value, type(value)) == (expected, type(expected))


def test_a_string_list_is_the_unique_sorted_label_values() -> None:
    task = make_task((("regions", "string[]"),), category="multi_document_comparison")
    lines = (ev("Region: west", 3), ev("Region: East", 4), ev("Region: west", 5), ev("Region:", 6))
    assert value_of(task, *lines, cues={"regions": {"cues": ["region"]}}) == ["East", "west"]


STRING_TASK = make_task((("owner", "string"),))
STRING_CUES = {"owner": {"cues": ["owner", "负责人"]}}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Owner:  Priya Raman ", "Priya Raman"),
        ("负责人：王芳", "王芳"),
        ("Owner: a: b", "a: b"),
        ("Owners use Postgres for storage", "Postgres"),
        ("Owners use SQLite.", "SQLite"),
        ("Owner:   ", None),
        ("Owner unknown", None),
    ],
)
def test_a_string_is_the_text_after_the_label_or_the_x_of_use_x(
    line: str, expected: str | None
) -> None:
    assert value_of(STRING_TASK, ev(line), cues=STRING_CUES) == expected


TEMPLATE_TASK = make_task((("retention", "string"),), category="multi_document_comparison")
TEMPLATE_CUES = {"retention": {"cues": ["retention"], "template": "Standard: {0}; Regulated: {1}"}}


def test_a_template_fills_its_placeholders_with_the_label_values_in_line_order() -> None:
    lines = (
        ev("Retention: 30 days", 3, "gno://c001/a.md"),
        ev("Retention: 7 years", 3, "gno://c001/b.md"),
    )
    value = value_of(TEMPLATE_TASK, *lines, cues=TEMPLATE_CUES)
    assert value == "Standard: 30 days; Regulated: 7 years"


def test_a_template_with_too_few_values_becomes_a_gap() -> None:
    final = envelope(
        TEMPLATE_TASK, ev("Retention: 30 days"), ev("Retention policy", 4), cues=TEMPLATE_CUES
    )
    assert final["gaps"] == [{"claimKey": "retention", "reason": "missing_evidence"}]


PATTERN_CUES = {"database": {"cues": ["use"], "pattern": r"\buse\s+(.+?)(?:\s+for\b|[.;]|$)"}}
PATTERN_TASK = make_task((("database", "string"),))


def test_a_pattern_takes_its_first_group_on_the_first_selected_line() -> None:
    assert (
        value_of(PATTERN_TASK, ev("We USE PostgreSQL 16 for billing."), cues=PATTERN_CUES)
        == "PostgreSQL 16"
    )


def test_a_pattern_that_does_not_match_becomes_a_gap() -> None:
    assert value_of(PATTERN_TASK, ev("Database: users table"), cues=PATTERN_CUES) is None


def test_a_template_applies_to_string_claims_only() -> None:
    task = make_task((("retention", "number"),))
    assert value_of(task, ev("Retention: 30 days"), cues=TEMPLATE_CUES) == 30


# ---- identity and determinism ----------------------------------------------------------------

PROMPT = (
    "You are a deterministic evidence agent.\n"
    "Use only the visible task and normalized tool results. Search before reading.\n"
    "Return one JSON FinalEnvelope and no prose. Every claim must use its declared\n"
    "type and cite exact observed source lines. Emit an explicit gap and abstain when\n"
    "required evidence is absent. Stop as soon as every required claim is supported."
)


def plain_fingerprint(value: Any) -> str:
    # Canonical JSON of ASCII-only objects without floats is sorted compact JSON.
    return sha(json.dumps(value, sort_keys=True, separators=(",", ":")))


def test_the_prompt_fingerprint_binds_the_contract_prompt_brief_and_claims() -> None:
    task = make_task()
    expected = plain_fingerprint(
        {
            "system": PROMPT,
            "brief": {"goal": "Find the value.", "instructions": ["Cite the line."]},
            "claims": [
                {
                    "claimKey": "partNumber",
                    "valueType": "identifier",
                    "substantive": True,
                    "required": True,
                }
            ],
        }
    )
    assert FixtureAgent(make_table({}), CUE_SHA).prompt_fingerprint(task) == expected


def test_the_model_fingerprint_binds_agent_state_machine_and_cue_file() -> None:
    expected = plain_fingerprint(
        {
            "agent": "fixture-agent-v1",
            "stateMachine": "search-read-final-cues-v1",
            "cueTable": CUE_SHA,
        }
    )
    assert FixtureAgent(make_table({}), CUE_SHA).model_fingerprint() == expected


def test_another_cue_file_is_another_model() -> None:
    table = make_table({})
    assert (
        FixtureAgent(table, "c" * 64).model_fingerprint()
        != FixtureAgent(table, "d" * 64).model_fingerprint()
    )


def test_a_cue_sha256_that_is_not_a_digest_is_rejected() -> None:
    from agentic.contract.errors import ContractError

    with pytest.raises(ContractError):
        FixtureAgent(make_table({}), "not-a-digest")


def test_the_agent_measures_no_tokens_and_loads_no_model() -> None:
    session = FixtureAgent(make_table({}), CUE_SHA).open(make_task(), tool_definitions())
    assert (session.count_tokens("text"), session.model_load_ms()) == (None, None)
    assert FixtureAgent.agent_id == "fixture-agent-v1"


def test_the_same_history_gives_byte_identical_canonical_steps() -> None:
    task = make_task(category="multi_document_comparison")
    calls = (
        candidates(ev("Part: AX-1", 3, "gno://c001/b.md"), ev("Part: AX-2", 3, "gno://c001/a.md")),
        visible_call("source", ev("Part: AX-1", 3, "gno://c001/b.md"), tool="multi_get", index=1),
    )
    outputs = []
    for _ in range(2):
        agent = FixtureAgent(make_table(DEFAULT_CUES), CUE_SHA)
        outputs.append(agent.open(task, tool_definitions()).next_step(calls).encode("utf-8"))
    assert outputs[0] == outputs[1]
    assert outputs[0].decode("utf-8") == canonical_text(json.loads(outputs[0]))


# ---- cue table 1.1: typed patterns, select, planned reads --------------------------------------


def typed(kind: str, line: str, pattern: str, **entry: Any) -> Any:
    """The value a 1.1 pattern reads from one observed line for a claim of type ``kind``."""
    cues = {"v": {"cues": [line.lower()[:8]], "pattern": pattern, **entry}}
    return value_of(make_task((("v", kind),)), ev(line), cues=cues, version="1.1")


def test_a_1_1_pattern_reads_a_number_that_is_not_the_largest_on_its_line() -> None:
    assert typed("number", "Raised from 62 to 125.", r"from (\d+) to") == 62


def test_a_1_1_pattern_reads_a_signed_number() -> None:
    assert typed("number", 'Cache size: set to "-2000".', r'to "(-?\d+)"') == -2000


def test_a_1_1_pattern_group_that_is_not_a_number_is_a_gap() -> None:
    assert typed("number", "Raised from many to 125.", r"from (\w+) to") is None


def test_a_1_1_pattern_reads_a_lower_case_identifier() -> None:
    line = "The sqlite3_trace_v2() interface is intended to replace it."
    assert typed("identifier", line, r"the (\w+)\(\) interface") == "sqlite3_trace_v2"


def test_a_1_1_pattern_date_off_the_calendar_is_a_gap() -> None:
    assert typed("date", "Released on 2026-02-30 at noon.", r"on (\S+) at") is None


@pytest.mark.parametrize(
    ("line", "expected"),
    [("Bindings are not cleared by reset.", False), ("Bindings are cleared by reset.", True)],
)
def test_a_1_1_boolean_is_false_when_the_group_named_no_took_part(
    line: str, expected: bool
) -> None:
    assert typed("boolean", line, r"bindings are (?P<no>not )?cleared") is expected


def test_a_1_1_string_list_gathers_every_match_unique_and_sorted() -> None:
    line = "It replaces sqlite3_trace() and sqlite3_profile() and sqlite3_trace()."
    pattern = r"(?:replaces|and) (sqlite3_\w+)\(\)"
    assert typed("string[]", line, pattern) == ["sqlite3_profile", "sqlite3_trace"]


def test_a_1_1_pattern_takes_the_first_selected_line_it_matches() -> None:
    task = make_task((("v", "string"),))
    cues = {"v": {"cues": ["release"], "pattern": r"^# release (\S+)", "select": "all"}}
    lines = (ev("- Raise the release ceiling.", 3), ev("# Release 3.8.6", 1))
    final = envelope(task, *lines, cues=cues, version="1.1")
    assert final["claims"][0]["value"]["value"] == "3.8.6"
    assert cited_lines(final) == [("gno://c001/d1.md", 3, 3), ("gno://c001/d1.md", 1, 1)]


@pytest.mark.parametrize(("select", "expected"), [("first", "AX-1"), ("last", "AX-3")])
def test_select_overrides_the_line_the_category_would_choose(select: str, expected: str) -> None:
    task = make_task(category="multi_document_comparison")
    cues = {"partNumber": {"cues": ["part"], "select": select}}
    lines = (ev("Part: AX-1", 3), ev("Part: AX-3", 4))
    assert value_of(task, *lines, cues=cues, version="1.1") == expected


def test_a_1_0_table_keeps_reading_the_largest_number_despite_a_pattern() -> None:
    task = make_task((("v", "number"),))
    cues = {"v": {"cues": ["raised"], "pattern": r"from (\d+) to"}}
    assert value_of(task, ev("Raised from 62 to 125."), cues=cues) == 125


def test_a_1_1_table_reads_each_page_once_over_its_cued_lines_then_finalizes() -> None:
    task = make_task(category="multi_document_comparison", max_calls=4)
    found = candidates(
        ev("Part: AX-1", 9, "gno://c001/b.md"),
        ev("Part: AX-2", 3, "gno://c001/a.md"),
        ev("Part: AX-3", 4, "gno://c001/b.md"),
    )
    first = step(task, (found,), version="1.1")
    assert first["arguments"] == {"uri": "gno://c001/b.md", "fromLine": 4, "lineCount": 6}
    read_b = source(ev("Part: AX-3", 4, "gno://c001/b.md"), ev("Part: AX-1", 9, "gno://c001/b.md"))
    second = step(task, (found, read_b), version="1.1")
    assert second["arguments"] == {"uri": "gno://c001/a.md", "fromLine": 3, "lineCount": 1}
    read_a = source(ev("Part: AX-2", 3, "gno://c001/a.md"), index=2)
    final = step(task, (found, read_b, read_a), version="1.1")
    assert final["kind"] == "final"
    assert len(cited_lines(final["envelope"])) == 3


def test_a_1_1_plan_stops_reading_when_the_call_budget_is_spent() -> None:
    task = make_task(category="multi_document_comparison", max_calls=2)
    found = candidates(
        ev("Part: AX-1", 9, "gno://c001/b.md"), ev("Part: AX-2", 3, "gno://c001/a.md")
    )
    read_b = source(ev("Part: AX-1", 9, "gno://c001/b.md"))
    final = step(task, (found, read_b), version="1.1")
    assert final["kind"] == "final"
    assert cited_lines(final["envelope"]) == [("gno://c001/b.md", 9, 9)]


def test_a_1_1_table_finalizes_candidates_without_a_cued_line_instead_of_reading_pages() -> None:
    calls = (candidates(ev("# Inventory", 1), ev("Nothing relevant", 3)),)
    result = step(make_task(), calls, version="1.1")
    assert result["kind"] == "final"
    assert result["envelope"]["gaps"] == [{"claimKey": "partNumber", "reason": "missing_evidence"}]
