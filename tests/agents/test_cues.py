"""The cue table format: closed, strict, and every violation is one precise invalid_cue_table."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentic.agents.cues import CueTable, parse_cue_table, parse_template
from agentic.contract.errors import ContractError


def table_bytes(claims: Any, **top: Any) -> bytes:
    document = {"schemaVersion": "1.0", "agentId": "fixture-agent-v1", "claims": claims, **top}
    return json.dumps(document).encode("utf-8")


def rejected(data: bytes) -> str:
    with pytest.raises(ContractError) as caught:
        parse_cue_table(data)
    assert caught.value.code == "invalid_cue_table"
    return caught.value.message


def test_a_valid_table_keeps_cues_in_order_with_the_first_one_preferred() -> None:
    table = parse_cue_table(table_bytes({"launchDate": {"cues": ["launch date", "go-live"]}}))
    cues = table.get("launchDate")
    assert cues is not None
    assert (cues.cues, cues.preferred) == (("launch date", "go-live"), "launch date")
    assert (cues.template, cues.pattern) == (None, None)


def test_an_absent_claim_key_has_no_entry() -> None:
    assert parse_cue_table(table_bytes({})).get("launchDate") is None


def test_a_template_is_parsed_into_its_placeholders() -> None:
    table = parse_cue_table(
        table_bytes({"retention": {"cues": ["retention"], "template": "A: {0}; B: {1}"}})
    )
    template = table.claims["retention"].template
    assert template is not None
    assert template.arity == 2
    assert template.render(("30 days", "7 years")) == "A: 30 days; B: 7 years"


def test_a_template_with_fewer_values_than_placeholders_renders_nothing() -> None:
    assert parse_template("A: {0}; B: {1}").render(("30 days",)) is None


def test_a_template_may_repeat_a_placeholder() -> None:
    assert parse_template("{0}/{0}").render(("x",)) == "x/x"


def test_a_pattern_is_compiled_case_insensitive() -> None:
    table = parse_cue_table(table_bytes({"db": {"cues": ["use"], "pattern": r"\buse\s+(\w+)"}}))
    pattern = table.claims["db"].pattern
    assert pattern is not None
    match = pattern.search("We USE Postgres")
    assert match is not None and match.group(1) == "Postgres"


def test_the_table_is_immutable() -> None:
    table = parse_cue_table(table_bytes({"a": {"cues": ["x"]}}))
    assert isinstance(table, CueTable)
    with pytest.raises(TypeError):
        table.claims["b"] = table.claims["a"]  # type: ignore[index]


def test_duplicate_keys_are_rejected() -> None:
    data = b'{"schemaVersion":"1.0","agentId":"fixture-agent-v1","claims":{},"claims":{}}'
    assert "duplicate key 'claims'" in rejected(data)


def test_duplicate_claim_keys_are_rejected() -> None:
    data = (
        b'{"schemaVersion":"1.0","agentId":"fixture-agent-v1",'
        b'"claims":{"a":{"cues":["x"]},"a":{"cues":["y"]}}}'
    )
    assert "duplicate key 'a'" in rejected(data)


def test_malformed_json_is_an_invalid_cue_table() -> None:
    assert "cue table" in rejected(b'{"schemaVersion": "1.0",}')


def test_an_unknown_top_level_field_is_rejected() -> None:
    assert rejected(table_bytes({}, comment="x")) == "cue table /comment: unknown field"


def test_an_unknown_claim_field_is_rejected() -> None:
    message = rejected(table_bytes({"a": {"cues": ["x"], "weight": 2}}))
    assert message == "cue table /claims/a/weight: unknown field"


def test_a_missing_top_level_field_is_rejected() -> None:
    data = json.dumps({"schemaVersion": "1.0", "claims": {}}).encode()
    assert rejected(data) == "cue table /: missing field agentId"


def test_a_wrong_schema_version_is_rejected() -> None:
    assert "/schemaVersion" in rejected(table_bytes({}, schemaVersion="2.0"))


def test_a_wrong_agent_id_is_rejected() -> None:
    assert "/agentId" in rejected(table_bytes({}, agentId="other-agent"))


def test_a_claim_key_outside_the_contract_pattern_is_rejected() -> None:
    assert "/claims/Launch" in rejected(table_bytes({"Launch": {"cues": ["x"]}}))


def test_a_claim_without_cues_is_rejected() -> None:
    assert rejected(table_bytes({"a": {}})) == "cue table /claims/a: missing field cues"


@pytest.mark.parametrize(
    ("cues", "pointer"),
    [
        ([], "/claims/a/cues"),
        ("launch", "/claims/a/cues"),
        ([""], "/claims/a/cues/0"),
        (["ok", "   "], "/claims/a/cues/1"),
        (["ok", 7], "/claims/a/cues/1"),
    ],
)
def test_cues_must_be_a_non_empty_list_of_non_blank_strings(cues: Any, pointer: str) -> None:
    assert rejected(table_bytes({"a": {"cues": cues}})).startswith(f"cue table {pointer}:")


def test_an_uppercase_cue_is_rejected() -> None:
    message = rejected(table_bytes({"a": {"cues": ["Launch date"]}}))
    assert message == "cue table /claims/a/cues/0: cue 'Launch date' must be lowercase"


def test_a_duplicate_cue_is_rejected() -> None:
    assert "duplicate cue 'x'" in rejected(table_bytes({"a": {"cues": ["x", "x"]}}))


def test_a_cue_with_a_line_break_is_rejected() -> None:
    assert "control characters" in rejected(table_bytes({"a": {"cues": ["a\nb"]}}))


def test_a_regex_that_does_not_compile_is_rejected() -> None:
    message = rejected(table_bytes({"a": {"cues": ["x"], "pattern": "use (unclosed"}}))
    assert message.startswith("cue table /claims/a/pattern: invalid regular expression")


def test_a_pattern_without_a_group_is_rejected() -> None:
    message = rejected(table_bytes({"a": {"cues": ["x"], "pattern": r"use \w+"}}))
    assert message == "cue table /claims/a/pattern: a pattern needs at least one capturing group"


def test_a_pattern_must_be_a_string() -> None:
    assert "pattern must be a string" in rejected(table_bytes({"a": {"cues": ["x"], "pattern": 1}}))


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        ("Standard only", "at least one {N} placeholder"),
        ("A: {1}", "numbered 0..0"),
        ("A: {0}; B: {2}", "numbered 0..1"),
        ("A: {0} {", "a brace outside"),
        ("A: {x}", "a brace outside"),
        ("A: {00}", "a brace outside"),
    ],
)
def test_a_template_with_malformed_placeholders_is_rejected(template: str, reason: str) -> None:
    message = rejected(table_bytes({"a": {"cues": ["x"], "template": template}}))
    assert message.startswith("cue table /claims/a/template:") and reason in message


def test_template_and_pattern_exclude_each_other() -> None:
    entry = {"cues": ["x"], "template": "{0}", "pattern": "(x)"}
    assert "exclude each other" in rejected(table_bytes({"a": entry}))


def test_select_is_a_1_1_field_unknown_to_a_1_0_table() -> None:
    entry = {"v": {"cues": ["x"], "select": "all"}}
    assert "/claims/v/select: unknown field" in rejected(table_bytes(entry))
    table = parse_cue_table(table_bytes(entry, schemaVersion="1.1"))
    assert (table.version, table.claims["v"].select) == ("1.1", "all")


def test_select_names_one_of_first_last_or_all() -> None:
    entry = {"v": {"cues": ["x"], "select": "every"}}
    assert "select must be one of first, last, all" in rejected(
        table_bytes(entry, schemaVersion="1.1")
    )


def test_a_pattern_reads_every_value_type_only_in_a_1_1_table() -> None:
    entry = {"v": {"cues": ["x"], "pattern": "(x)"}}
    assert not parse_cue_table(table_bytes(entry)).claims["v"].typed_pattern
    assert parse_cue_table(table_bytes(entry, schemaVersion="1.1")).claims["v"].typed_pattern
