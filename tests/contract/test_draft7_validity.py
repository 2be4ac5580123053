"""``Draft7.is_valid`` (each schema compiled into a test, no violation worded) gives the answer
of the full walk, ``next(iter_errors(...)) is None``, on every document the walk's own tests
generate: broken documents of each published schema, any JSON value, tool arguments and each
keyword's cases. ``schema_errors`` trusts it to skip the walk of a valid document."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.contract import schemas
from agentic.contract.draft7 import Draft7
from agentic.contract.json_access import object_at
from agentic.contract.strict_json import JsonObject
from agentic.tools import tool_definitions
from tests.contract.test_draft7 import (
    EXAMPLES,
    KEYWORD_CASES,
    broken,
    json_values,
    seed_documents,
    tool_arguments,
)


def agrees(validator: Draft7, document: Any) -> bool:
    return validator.is_valid(document) == (next(validator.iter_errors(document), None) is None)


@pytest.mark.parametrize("name", schemas.SCHEMA_NAMES)
def test_every_seed_document_is_valid(name: schemas.SchemaName) -> None:
    for document in seed_documents()[name]:
        assert schemas._validator(name).is_valid(document)


@pytest.mark.parametrize("name", schemas.SCHEMA_NAMES)
@EXAMPLES
@given(data=st.data())
def test_a_broken_document_gets_the_walks_answer(
    name: schemas.SchemaName, data: st.DataObject
) -> None:
    assert agrees(schemas._validator(name), data.draw(broken(name)))


@pytest.mark.parametrize("name", schemas.SCHEMA_NAMES)
@EXAMPLES
@given(document=json_values)
def test_any_json_value_gets_the_walks_answer(name: schemas.SchemaName, document: Any) -> None:
    assert agrees(schemas._validator(name), document)


@EXAMPLES
@given(call=tool_arguments())
def test_tool_arguments_get_the_walks_answer(call: tuple[str, Any]) -> None:
    name, arguments = call
    schema = next(
        object_at(tool, "inputSchema") for tool in tool_definitions() if tool["name"] == name
    )

    assert agrees(Draft7(schema, source=name), arguments)


@pytest.mark.parametrize(("schema", "instances"), KEYWORD_CASES)
@pytest.mark.parametrize("strict_integers", [False, True])
def test_each_keyword_gets_the_walks_answer(
    schema: dict[str, Any], instances: list[Any], strict_integers: bool
) -> None:
    validator = Draft7(schema, source="s", strict_integers=strict_integers)
    for instance in [*instances, 2.0, None, {}, [], [1, 1], {"a": 1}]:
        assert agrees(validator, instance), instance


def test_a_schema_that_refers_to_itself_is_compiled_once_and_terminates() -> None:
    tree: JsonObject = {
        "$id": "gno://tree",
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#"}}},
        "additionalProperties": False,
    }
    validator = Draft7(tree, source="tree")
    deep: dict[str, Any] = {"children": []}
    for _ in range(50):
        deep = {"children": [deep, {"children": []}]}

    assert validator.is_valid(deep)
    assert not validator.is_valid({"children": [{"children": [{"leaf": 1}]}]})
    assert agrees(validator, {"children": [{"children": [{"leaf": 1}]}]})
