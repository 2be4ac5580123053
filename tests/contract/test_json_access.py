"""Reading a field of parsed JSON as the type the schema guarantees there: a wrong shape is one
``schema_violation`` naming the field and what was found, never a ``TypeError`` far from it."""

from __future__ import annotations

import pytest

from agentic.contract.errors import ContractError
from agentic.contract.json_access import (
    as_int,
    as_number,
    as_objects,
    as_scalar,
    as_str,
    member,
    object_at,
    str_at,
)
from agentic.contract.steps import ToolStep
from agentic.contract.strict_json import JsonObject, JsonValue

REPORT: JsonObject = {"receipts": [{"canonical": {"taskId": "t0000a01", "agentCalls": 2}}]}


def violation(value: JsonValue, where: str) -> ContractError:
    with pytest.raises(ContractError) as raised:
        as_str(value, where)
    return raised.value


def test_a_value_of_the_expected_type_is_returned_as_it_is() -> None:
    assert as_str("t0000a01", "taskId") == "t0000a01"


def test_a_value_of_another_type_is_a_schema_violation_naming_the_field_and_what_it_is() -> None:
    error = violation(7, "taskId")
    assert (error.code, error.message) == (
        "schema_violation",
        "taskId must be a string, not a number",
    )


@pytest.mark.parametrize(
    ("value", "kind"),
    [(None, "null"), (True, "a boolean"), ([], "an array"), ({}, "an object"), (1.5, "a number")],
)
def test_the_error_names_the_json_type_found(value: JsonValue, kind: str) -> None:
    assert violation(value, "x").message == f"x must be a string, not {kind}"


def test_an_integral_double_is_an_integer_as_stock_draft_07_reads_it() -> None:
    assert as_int(2.0, "fromLine") == 2
    assert isinstance(as_int(2.0, "fromLine"), int)


@pytest.mark.parametrize("value", [True, 2.5, "2"])
def test_a_boolean_a_fraction_or_a_string_is_no_integer(value: JsonValue) -> None:
    with pytest.raises(ContractError, match="fromLine must be an integer"):
        as_int(value, "fromLine")


def test_a_number_keeps_the_type_it_was_parsed_as_and_a_boolean_is_none() -> None:
    assert isinstance(as_number(64, "limit"), int)
    with pytest.raises(ContractError, match="limit must be a number, not a boolean"):
        as_number(False, "limit")


def test_a_scalar_is_anything_but_a_container() -> None:
    assert as_scalar(None, "details.x") is None
    with pytest.raises(ContractError, match="must be a string, number, boolean or null"):
        as_scalar([1], "details.x")


def test_an_array_member_that_is_not_an_object_is_named_by_its_index() -> None:
    with pytest.raises(ContractError, match=r"receipts\[1\] must be an object, not a string"):
        as_objects([{}, "x"], "receipts")


def test_a_path_walks_keys_of_objects_and_indexes_of_arrays() -> None:
    assert str_at(REPORT, "receipts", 0, "canonical", "taskId") == "t0000a01"
    assert member(REPORT, "receipts", -1, "canonical", "agentCalls") == 2


def test_a_missing_key_or_index_is_named_by_its_json_pointer() -> None:
    with pytest.raises(ContractError, match="/receipts/1 is missing"):
        member(REPORT, "receipts", 1)
    with pytest.raises(ContractError, match="/receipts/0/score is missing"):
        member(REPORT, "receipts", 0, "score")


def test_a_step_through_a_value_of_the_wrong_kind_names_where_it_stopped() -> None:
    with pytest.raises(ContractError, match="/receipts must be an object, not an array"):
        object_at(REPORT, "receipts", "canonical")
    with pytest.raises(ContractError, match="/receipts/0/canonical/taskId must be an object"):
        object_at(REPORT, "receipts", 0, "canonical", "taskId")


def test_a_models_json_field_is_kept_as_parsed_not_walked_again() -> None:
    nested: JsonObject = {"collection": "c0a1"}
    step = ToolStep.model_validate(
        {"kind": "tool", "toolName": "search", "arguments": {"filters": nested}}
    )
    assert step.arguments["filters"] is nested
