"""The committed schema files: draft-07, identified as in the contract, and closed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft7Validator

from agentic.contract.json_access import array_at, object_at
from agentic.contract.schemas import SCHEMA_NAMES, SchemaName, load_schemas, schema_id, schema_path
from agentic.contract.strict_json import parse_strict, parse_strict_object

# The only objects the contract leaves open (contract-v1.md, section 1), by schema location.
OPEN_OBJECTS = {
    ("hidden-oracle", "/properties/expectedScope/properties/filters"),
    ("trajectory-receipt", "/definitions/call/properties/arguments"),
    ("benchmark-report", "/definitions/preparation/properties/observations/properties/details"),
}


# Keywords whose values are data, or conditions on an object described elsewhere (the if/then/else
# branches only narrow members of an object that is itself closed).
NOT_SUBSCHEMAS = {"enum", "const", "required", "if", "then", "else"}


def subschemas(schema: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(schema, dict):
        yield pointer, schema
        for key, value in schema.items():
            if key in NOT_SUBSCHEMAS:
                continue
            yield from subschemas(value, f"{pointer}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from subschemas(value, f"{pointer}/{index}")


def declares_object(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_each_schema_file_is_strict_json_and_valid_draft_07(name: SchemaName) -> None:
    schema = parse_strict_object(schema_path(name).read_bytes())

    Draft7Validator.check_schema(schema)
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert schema["$id"] == f"gno://schemas/evals/agentic/{name}@1.0"
    assert schema["$id"] == schema_id(name)


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_object_with_declared_properties_is_closed(name: SchemaName) -> None:
    schema = load_schemas()[name]
    for pointer, node in subschemas(schema):
        if "properties" in node and (name, pointer) not in OPEN_OBJECTS:
            assert node.get("additionalProperties") is False, f"{name}{pointer} is open"


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_the_only_objects_without_closed_properties_are_the_contracts_open_maps(
    name: SchemaName,
) -> None:
    schema = load_schemas()[name]
    open_objects = {
        (name, pointer)
        for pointer, node in subschemas(schema)
        if declares_object(node) and node.get("additionalProperties") is not False
    }

    assert open_objects == {entry for entry in OPEN_OBJECTS if entry[0] == name}


def test_the_report_carries_the_optional_results_fingerprint() -> None:
    report = load_schemas()["benchmark-report"]

    assert "resultsFingerprint" in object_at(report, "properties")
    assert "resultsFingerprint" not in array_at(report, "required")


def test_schema_files_end_with_a_newline_and_have_no_duplicate_keys() -> None:
    for name in SCHEMA_NAMES:
        raw = schema_path(name).read_bytes()
        assert raw.endswith(b"\n")
        assert parse_strict(raw) == json.loads(raw)
