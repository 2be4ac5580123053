"""Small contract rules that a mutant slipped past: the nesting limit on arrays (not only on
objects), the JSON spelling of aliased fields, and the observation helpers of a receipt."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from agentic.contract.accounting import accounting_issues
from agentic.contract.base import is_full_date
from agentic.contract.canonical import stable_pretty_json
from agentic.contract.envelope import ClaimValue, FinalEnvelope
from agentic.contract.errors import ContractError
from agentic.contract.jsrules import utf16_key
from agentic.contract.receipt import Failure, Timing
from agentic.contract.report import pair_sort_key
from agentic.contract.semantics import envelope_issues
from agentic.contract.strict_json import MAX_DEPTH, parse_strict, parse_strict_object
from agentic.contract.task import AgentTask
from tests.support.fakes import TASK_JSON, make_task
from tests.support.receipts import identity
from tests.support.scoring import line_evidence, make_call, make_receipt

CITATION = line_evidence().to_json()


def rejection(text: str) -> ContractError:
    with pytest.raises(ContractError) as caught:
        parse_strict(text, source="doc.json")
    return caught.value


def test_arrays_nested_past_the_limit_are_refused_at_their_pointer() -> None:
    error = rejection("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))

    pointer = "/0" * MAX_DEPTH
    assert (error.code, error.message) == (
        "malformed_json",
        f"doc.json: nesting deeper than {MAX_DEPTH} at {pointer}",
    )


def test_arrays_inside_objects_count_toward_the_same_limit() -> None:
    half = MAX_DEPTH // 2
    text = '{"a":' * half + "[" * half + "[]" + "]" * half + "}" * half

    assert rejection(text).code == "malformed_json"


def test_a_lone_surrogate_deep_in_arrays_is_found() -> None:
    assert rejection('[[["\\ud800"]]]').message == "doc.json: lone surrogate in string at /0/0/0"


def test_a_lone_surrogate_in_an_array_inside_an_object_is_found() -> None:
    assert rejection('{"a": ["\\ud800"]}').message == "doc.json: lone surrogate in string at /a/0"


def test_a_top_level_value_that_is_not_an_object_is_refused_by_the_object_parser() -> None:
    with pytest.raises(ContractError) as caught:
        parse_strict_object("[]", source="doc.json")

    assert (caught.value.code, caught.value.message) == (
        "malformed_json",
        "doc.json: top-level value must be an object",
    )


def test_the_object_parser_names_the_source_of_a_parse_error() -> None:
    with pytest.raises(ContractError) as caught:
        parse_strict_object("{", source="doc.json")

    assert caught.value.message.startswith("doc.json: ")


def test_an_aliased_field_is_written_under_its_json_name() -> None:
    failure = Failure.model_validate({"class": "none", "code": None, "redactedMessage": None})

    assert failure.to_json() == {"class": "none", "code": None, "redactedMessage": None}


def test_a_measured_timing_is_rounded_to_microseconds() -> None:
    assert Timing.measured(1.23456).to_json() == {"valueMs": 1.235, "unavailableReason": None}


def test_a_measured_timing_is_never_negative() -> None:
    assert Timing.measured(-0.5).valueMs == 0.0


def test_an_unavailable_timing_keeps_its_reason() -> None:
    assert Timing.unavailable("no clock").to_json() == {
        "valueMs": None,
        "unavailableReason": "no clock",
    }


def test_the_sort_key_of_a_pair_follows_the_contract_order() -> None:
    pair = identity("t0000001", "lexical", "fixture-01", None, "fixture-agent-v1")

    assert pair_sort_key(pair) == (
        "lexical",
        "t0000001",
        "fixture-01",
        "cold",
        "None",
        "fixture-agent-v1",
    )


def test_objects_nested_up_to_the_limit_are_accepted() -> None:
    text = '{"a":' * MAX_DEPTH + "1" + "}" * MAX_DEPTH

    value = parse_strict(text)

    for _ in range(MAX_DEPTH):
        assert isinstance(value, dict)
        value = value["a"]
    assert value == 1


def test_nesting_up_to_the_limit_is_accepted_with_escapes_too() -> None:
    text = "[" * MAX_DEPTH + '"\\u0041"' + "]" * MAX_DEPTH

    assert parse_strict(text) is not None


def test_invalid_utf8_is_malformed_json() -> None:
    with pytest.raises(ContractError) as caught:
        parse_strict(b'"\xff"', source="doc.json")

    assert (caught.value.code, caught.value.message) == (
        "malformed_json",
        "doc.json: invalid UTF-8 at byte 1",
    )


def test_the_default_source_is_input() -> None:
    for parse in (parse_strict, parse_strict_object):
        with pytest.raises(ContractError) as caught:
            parse("")
        assert caught.value.message == "input: empty input"


def test_a_number_too_large_for_a_double_is_named_by_its_first_40_characters() -> None:
    literal = "9" * 400

    assert rejection(literal).message == (
        f"doc.json: number {literal[:40]} is too large for a double"
    )


def test_a_lone_surrogate_still_has_a_utf16_sort_key() -> None:
    assert utf16_key("\ud800") == b"\xd8\x00"


def test_a_contract_error_reads_as_its_code_then_its_message() -> None:
    assert (
        str(ContractError("unreadable_file", "doc.json: gone")) == "unreadable_file: doc.json: gone"
    )


def test_pretty_json_keeps_non_ascii_text_readable() -> None:
    assert stable_pretty_json({"b": "é", "a": 1}) == '{\n  "a": 1,\n  "b": "é"\n}\n'


def test_a_claim_given_twice_is_a_duplicate_claim() -> None:
    claim = {"claimKey": "partNumber", "value": {"type": "identifier", "value": "A"}}
    cited = {**claim, "citations": [CITATION]}
    envelope = FinalEnvelope.model_validate(
        {
            "schemaVersion": "1.0",
            "claims": [cited, cited],
            "gaps": [],
            "abstained": False,
            "stopReason": "complete",
        }
    )

    assert [str(issue) for issue in envelope_issues(envelope, make_task())] == [
        "duplicate_claim:partNumber"
    ]


@pytest.mark.parametrize(
    ("day", "valid"),
    [
        ("2000-02-29", True),
        ("2024-02-29", True),
        ("1900-02-29", False),
        ("2023-02-29", False),
        ("2100-02-29", False),
        ("2400-02-29", True),
    ],
)
def test_a_date_value_knows_the_leap_years(day: str, valid: bool) -> None:
    value = {"type": "date", "value": day}

    assert is_full_date(day) is valid
    if valid:
        assert TypeAdapter(ClaimValue).validate_python(value).value == day
    else:
        with pytest.raises(ValidationError, match="value must be an RFC 3339 full-date"):
            TypeAdapter(ClaimValue).validate_python(value)


def test_an_undelivered_call_that_was_tokenized_breaks_the_delivery_invariant() -> None:
    counted = make_call(
        0, delivered=False, failure_code="tool_timeout", tokens=5, tokenizer=None, charged=0
    )
    receipt = make_receipt(
        [counted], None, failure_class="product_error", failure_code="tool_timeout"
    )

    assert "call_delivery_failure_invariant" in accounting_issues(receipt)


def test_a_tool_allowed_twice_is_refused_as_not_unique() -> None:
    with pytest.raises(ValidationError, match="items must be unique"):
        AgentTask.model_validate({**TASK_JSON, "allowedTools": ["search", "search"]})
