"""The committed schemas and the pydantic models accept and reject exactly the same documents.

Valid documents come from two sources: hypothesis strategies written from contract-v1.md (not
from either implementation), and the smallest hand-written documents of ``tests.support.documents``.
Invalid documents are targeted edits of valid ones: an extra field on every closed object, each
required member removed, and every member replaced by values of the wrong JSON type, a wrong
enum, a bad pattern, a boolean where an integer belongs, and so on.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agentic.contract.errors import ContractError
from agentic.contract.schemas import (
    SCHEMA_NAMES,
    SchemaName,
    load_document,
    model_class,
    schema_errors,
)
from tests.support import documents as docs
from tests.support.strategies import DOCUMENTS

# Values of every JSON type, and the edge cases of the contract's integer and string rules.
REPLACEMENTS: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    1.0,
    1.5,
    2**63,
    "",
    "x",
    "t0a1b2c3\n",
    [],
    ["x"],
    {},
)


def schema_accepts(name: SchemaName, document: Any) -> bool:
    return not schema_errors(name, document)


def model_accepts(name: SchemaName, document: Any) -> bool:
    try:
        model_class(name).model_validate(document)
    except ValidationError:
        return False
    return True


def assert_agree(
    name: SchemaName, document: Any, *, expected: bool | None = None, where: str = ""
) -> None:
    by_schema, by_model = schema_accepts(name, document), model_accepts(name, document)
    verdicts = f"{name} {where}: schema accepts={by_schema}, model accepts={by_model}"
    assert by_schema == by_model, verdicts
    if expected is not None:
        assert by_schema is expected, verdicts


def as_json(name: SchemaName, document: Any) -> Any:
    model = model_class(name).model_validate(document)
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


@pytest.mark.parametrize("name", SCHEMA_NAMES)
@given(data=st.data())
def test_generated_valid_documents_pass_schema_and_model_unchanged(
    name: SchemaName, data: st.DataObject
) -> None:
    document = data.draw(DOCUMENTS[name])

    assert schema_errors(name, document) == []
    assert as_json(name, document) == document


@pytest.mark.parametrize("name", SCHEMA_NAMES)
@given(data=st.data())
def test_generated_documents_with_one_member_replaced_are_judged_alike(
    name: SchemaName, data: st.DataObject
) -> None:
    document = data.draw(DOCUMENTS[name])
    members = sorted(docs.member_pointers(document))
    pointer = data.draw(st.sampled_from(members))
    value = data.draw(st.sampled_from(REPLACEMENTS))

    assert_agree(name, docs.with_value(document, pointer, value), where=f"{pointer} = {value!r}")


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_hand_written_documents_are_valid_for_both(name: SchemaName) -> None:
    document = docs.BUILDERS[name]()

    assert_agree(name, document, expected=True)
    assert as_json(name, document) == document


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_an_extra_field_on_any_closed_object_is_rejected_by_both(name: SchemaName) -> None:
    document = docs.BUILDERS[name]()
    closed = [p for p in docs.object_pointers(document) if not docs.is_open_map(name, p)]
    assert closed
    for pointer in closed:
        extended = docs.with_value(document, f"{pointer}/unexpected", 1)
        assert_agree(name, extended, expected=False, where=f"extra field at {pointer!r}")


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_an_extra_key_inside_an_open_map_is_accepted_by_both(name: SchemaName) -> None:
    document = docs.BUILDERS[name]()
    for pointer in docs.OPEN_MAPS.get(name, ()):
        assert_agree(name, docs.with_value(document, f"{pointer}/extraKey", "v"), expected=True)


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_required_member_missing_is_rejected_by_both(name: SchemaName) -> None:
    document = docs.BUILDERS[name]()
    for pointer in docs.member_pointers(document):
        if docs.inside_open_map(name, pointer) or pointer in docs.OPTIONAL_FIELDS:
            continue
        assert_agree(
            name, docs.without(document, pointer), expected=False, where=f"{pointer} missing"
        )


def test_the_report_extension_fields_may_be_absent() -> None:
    document = docs.report()
    for pointer in docs.OPTIONAL_FIELDS:
        document = docs.without(document, pointer)

    assert_agree("benchmark-report", document, expected=True)


# Whole contracts embedded in another one, and their smallest valid stand-in. Their members are
# swept on the standalone document, so the sweep of the outer one replaces them to stay fast;
# that the same rules hold through the cross-schema reference is tested separately, below.
EMBEDDED: dict[str, tuple[str, Any]] = {
    "trajectory-receipt": ("/canonical/finalEnvelope", None),
    "benchmark-report": ("/receipts", []),
}


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_member_replaced_by_any_json_type_is_judged_alike(name: SchemaName) -> None:
    document = docs.BUILDERS[name]()
    if name in EMBEDDED:
        document = docs.with_value(document, *EMBEDDED[name])
    for pointer in docs.member_pointers(document):
        for value in REPLACEMENTS:
            edited = docs.with_value(document, pointer, value)
            assert_agree(name, edited, where=f"{pointer} = {value!r}")


@pytest.mark.parametrize(
    ("name", "pointer", "value"),
    [
        # wrong enum or const
        ("agent-task", "/category", "trivia"),
        ("agent-task", "/schemaVersion", "1.1"),
        ("agent-task", "/claims/0/valueType", "integer"),
        ("final-envelope", "/stopReason", "done"),
        ("final-envelope", "/gaps/0/reason", "unknown"),
        ("final-envelope", "/claims/0/citations/0/spanHashProvenance", "model"),
        ("hidden-oracle", "/claims/0/normalizer/id", "lower-v1"),
        ("hidden-oracle", "/claims/0/normalizer/version", 2),
        ("trajectory-receipt", "/canonical/lifecycle", "hot"),
        ("trajectory-receipt", "/canonical/failure/class", "fatal"),
        ("trajectory-receipt", "/canonical/calls/0/result/resultRole", "bundle"),
        ("benchmark-report", "/benchmarkId", "agentic-retrieval@2"),
        ("benchmark-report", "/capsuleReplays/0/adapterId", "lexical"),
        ("benchmark-report", "/scores/0/score/success", 2),
        # bad pattern, including the newline Python's "$" would let through
        ("agent-task", "/taskId", "t0a1b2c"),
        ("agent-task", "/taskId", "T0a1b2c3"),
        ("agent-task", "/taskId", "t0a1b2c3\n"),
        ("agent-task", "/claims/0/claimKey", "LaunchDate"),
        ("agent-task", "/claims/0/claimKey", "launch_date"),
        ("agent-task", "/corpus/collections/0", "c00g"),
        ("agent-task", "/allowedTools/0", "Search"),
        ("final-envelope", "/claims/0/citations/0/uri", "https://c001/d001.md"),
        ("final-envelope", "/claims/0/citations/0/sourceHash", "A" * 64),
        ("final-envelope", "/claims/0/citations/0/spanHash", "a" * 63),
        ("hidden-oracle", "/expectedScope/collection", "collection1"),
        ("benchmark-report", "/environment/git/commit", "0" * 39),
        # wrong type, booleans as integers, floats as integers
        ("agent-task", "/budgets/maxAgentCalls", True),
        ("agent-task", "/budgets/maxAgentCalls", 3.0),
        ("agent-task", "/budgets/maxAgentCalls", "3"),
        ("agent-task", "/claims/0/required", 1),
        ("final-envelope", "/abstained", 0),
        ("final-envelope", "/claims/0/citations/0/startLine", True),
        ("final-envelope", "/claims/0/citations/0/startLine", 3.0),
        ("final-envelope", "/claims/0/value", {"type": "number", "value": True}),
        ("final-envelope", "/claims/0/value", {"type": "number", "value": "64"}),
        ("final-envelope", "/claims/0/value", {"type": "boolean", "value": 1}),
        ("trajectory-receipt", "/canonical/seed", False),
        ("trajectory-receipt", "/canonical/calls/0/arguments", []),
        ("benchmark-report", "/promotion/metrics/baselineSuccessRate", True),
        # ranges, sizes and uniqueness
        ("agent-task", "/budgets/maxModelVisibleBytes", 0),
        ("agent-task", "/claims", []),
        ("agent-task", "/allowedTools", ["search", "search"]),
        ("agent-task", "/corpus/collections", ["c001", "c001"]),
        ("agent-task", "/brief/goal", ""),
        ("agent-task", "/brief/instructions", [""]),
        ("final-envelope", "/claims/0/citations/0/endLine", 0),
        ("final-envelope", "/claims/0/value", {"type": "string[]", "value": ["a", "a"]}),
        ("final-envelope", "/claims/0/value", {"type": "identifier", "value": ""}),
        ("hidden-oracle", "/leakCanaries", ["short"]),
        ("hidden-oracle", "/expectedMissing", ["owner", "owner"]),
        ("hidden-oracle", "/expectedScope/filters", {"Bad Key": "x"}),
        ("hidden-oracle", "/expectedScope/filters", {"lang": None}),
        ("trajectory-receipt", "/canonical/agentCalls", -1),
        ("benchmark-report", "/environment/trials", []),
        ("benchmark-report", "/capsuleReplays/0/first/canonicalJson", "{"),
        # dates and date-times (RFC 3339, with day-of-month checks)
        ("final-envelope", "/claims/0/value", {"type": "date", "value": "2026-02-30"}),
        ("final-envelope", "/claims/0/value", {"type": "date", "value": "2026-9-14"}),
        ("final-envelope", "/claims/0/value", {"type": "date", "value": "2026-09-14T00:00:00Z"}),
        ("final-envelope", "/claims/0/value", {"type": "date", "value": "２０２６-09-14"}),
        ("trajectory-receipt", "/observations/recordedAt", "2026-07-22T10:00:00"),
        ("trajectory-receipt", "/observations/recordedAt", "2026-07-22 10:00:00Z"),
        ("trajectory-receipt", "/observations/recordedAt", "2026-07-22T12:59:60Z"),
        # cross-field rules
        ("trajectory-receipt", "/canonical/calls/0/result/errorCode", "tool_timeout"),
        ("trajectory-receipt", "/canonical/calls/0/result/evidence/0/backendSpanHash", None),
        (
            "trajectory-receipt",
            "/canonical/calls/0/result/evidence/0/backendHashUnavailableReason",
            "also a reason",
        ),
        ("trajectory-receipt", "/observations/timings/tool/unavailableReason", "also a reason"),
        ("trajectory-receipt", "/observations/timings/modelLoad/unavailableReason", None),
        ("trajectory-receipt", "/observations/timings/modelLoad/unavailableReason", ""),
        ("trajectory-receipt", "/observations/process/peakRssBytes", 1024),
    ],
)
def test_targeted_invalid_values_are_rejected_by_both(
    name: SchemaName, pointer: str, value: Any
) -> None:
    document = docs.with_value(docs.BUILDERS[name](), pointer, value)

    assert_agree(name, document, expected=False)


@pytest.mark.parametrize(
    ("name", "pointer", "value"),
    [
        ("final-envelope", "/claims/0/citations/0/startLine", 9),  # reversed: semantic, not schema
        ("final-envelope", "/claims/0/value", {"type": "date", "value": "2024-02-29"}),
        ("final-envelope", "/claims/0/value", {"type": "number", "value": -0.5}),
        ("final-envelope", "/claims/0/value", {"type": "string[]", "value": []}),
        ("trajectory-receipt", "/observations/recordedAt", "2026-12-31T23:59:60Z"),
        ("trajectory-receipt", "/observations/recordedAt", "2026-07-22T10:00:00+05:30"),
        ("trajectory-receipt", "/canonical/seed", None),
        ("trajectory-receipt", "/canonical/calls/0/result/status", "error"),
        ("trajectory-receipt", "/canonical/finalEnvelope", None),
        ("benchmark-report", "/promotion", None),
        ("benchmark-report", "/environment/bunVersion", "1.2.19"),
    ],
)
def test_edge_values_the_contract_allows_are_accepted_by_both(
    name: SchemaName, pointer: str, value: Any
) -> None:
    document = docs.with_value(docs.BUILDERS[name](), pointer, value)
    if pointer.endswith("/status"):  # an error result needs its code
        document = docs.with_value(document, "/canonical/calls/0/result/errorCode", "tool_timeout")

    assert_agree(name, document, expected=True)


@pytest.mark.parametrize(
    ("name", "pointer", "value"),
    [
        ("trajectory-receipt", "/canonical/finalEnvelope/claims/0/claimKey", "launchDate\n"),
        ("trajectory-receipt", "/canonical/finalEnvelope/claims/0/citations/0/startLine", 3.0),
        (
            "trajectory-receipt",
            "/canonical/finalEnvelope/claims/0/value",
            {"type": "date", "value": "2026-02-30"},
        ),
        ("benchmark-report", "/receipts/0/canonical/taskId", "t0a1b2c3\n"),
        ("benchmark-report", "/receipts/0/canonical/agentCalls", 1.0),
        ("benchmark-report", "/receipts/0/observations/recordedAt", "2026-07-22T10:00:00"),
        ("benchmark-report", "/receipts/0/canonical/finalEnvelope/gaps/0/claimKey", "owner\n"),
    ],
)
def test_the_contract_rules_hold_inside_a_referenced_contract(
    name: SchemaName, pointer: str, value: Any
) -> None:
    # A reference to a whole schema must not fall back to a stock draft-07 validator, which
    # would take 3.0 for an integer and let a pattern's "$" match before a final newline.
    document = docs.with_value(docs.BUILDERS[name](), pointer, value)

    assert_agree(name, document, expected=False, where=f"{pointer} = {value!r}")


def test_load_document_names_the_first_violation_with_a_json_pointer() -> None:
    document = docs.with_value(docs.task(), "/budgets/maxAgentCalls", 0)

    with pytest.raises(ContractError) as raised:
        load_document("agent-task", document, source="task.json")

    assert raised.value.code == "schema_violation"
    assert raised.value.message.startswith("task.json: /budgets/maxAgentCalls minimum")


def test_a_claim_value_error_names_the_field_not_the_one_of() -> None:
    document = docs.with_value(
        docs.envelope(), "/claims/0/value", {"type": "number", "value": "64"}
    )

    assert schema_errors("final-envelope", document) == [
        "/claims/0/value/value type '64' is not of type 'number'"
    ]


def test_an_unknown_schema_name_is_a_contract_error() -> None:
    with pytest.raises(ContractError) as raised:
        schema_errors("agent-answer", {})

    assert raised.value.code == "unknown_schema"
