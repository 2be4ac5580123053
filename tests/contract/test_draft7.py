"""The kit's draft-07 validator (``contract/draft7.py``) against jsonschema: for documents of
every published schema, broken at random, and for tool arguments, both find the same
violations, in the same order, with the same keyword, instance path and message, and for an
anyOf/oneOf the same alternatives' errors. Beside that, what the module refuses to check."""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator, FormatChecker, ValidationError, validators
from jsonschema._utils import equal
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

from agentic.contract import schemas
from agentic.contract.base import is_date_time, is_full_date
from agentic.contract.draft7 import Draft7, Violation
from agentic.contract.errors import ContractError
from agentic.contract.json_access import object_at
from agentic.contract.strict_json import JsonObject
from agentic.resources import fixtures_dir
from agentic.tools import tool_definitions
from tests.support.backends import REPO

Found = tuple[tuple[Any, ...], Any, str, tuple[tuple[Any, ...], ...]]

# --- jsonschema, configured as contract/schemas.py configures ours ---------------------------


def _ecma_pattern(
    validator: Validator, pattern: str, instance: object, schema: object
) -> Iterator[ValidationError]:
    del validator, schema
    anchored = pattern[:-1] + r"\Z" if pattern.endswith("$") else pattern
    if isinstance(instance, str) and re.search(anchored, instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _unique_items(
    validator: Validator, unique: bool, instance: object, schema: object
) -> Iterator[ValidationError]:
    # jsonschema's own check misses some pairs (see the uniqueItems test below): compare every
    # two items with its equality instead, so the one known departure is not found at random.
    del validator, schema
    pairs = itertools.combinations(instance, 2) if isinstance(instance, list) else ()
    if unique and any(equal(one, two) for one, two in pairs):
        yield ValidationError(f"{instance!r} has non-unique elements")


@cache
def reference_validator(name: schemas.SchemaName) -> Validator:
    def without_dialect(schema: Mapping[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in schema.items() if key != "$schema"}

    loaded = schemas.load_schemas()
    registry: Registry[Any] = Registry().with_resources(
        (schemas.schema_id(each), Resource.from_contents(without_dialect(schema), DRAFT7))
        for each, schema in loaded.items()
    )
    strict = Draft7Validator.TYPE_CHECKER.redefine(
        "integer", lambda _c, value: isinstance(value, int) and not isinstance(value, bool)
    )
    extended: type[Validator] = validators.extend(  # type: ignore[no-untyped-call]
        Draft7Validator,
        validators={"pattern": _ecma_pattern, "uniqueItems": _unique_items},
        type_checker=strict,
    )
    formats = FormatChecker(formats=())
    formats.checks("date")(lambda value: not isinstance(value, str) or is_full_date(value))
    formats.checks("date-time")(lambda value: not isinstance(value, str) or is_date_time(value))
    return extended(without_dialect(loaded[name]), registry=registry, format_checker=formats)


def theirs(error: ValidationError) -> Found:
    groups: dict[int, list[Found]] = {}
    for sub in error.context or ():
        groups.setdefault(int(sub.relative_schema_path[0]), []).append(theirs(sub))
    alternatives = tuple(tuple(group) for _, group in sorted(groups.items()))
    return (tuple(error.absolute_path), error.validator, error.message, alternatives)


def ours(violation: Violation) -> Found:
    alternatives = tuple(tuple(ours(sub) for sub in each) for each in violation.alternatives)
    return (violation.path, violation.keyword, violation.message, alternatives)


def both(name: schemas.SchemaName, document: Any) -> tuple[list[Found], list[Found]]:
    expected = [theirs(error) for error in reference_validator(name).iter_errors(document)]
    found = [ours(violation) for violation in schemas._validator(name).iter_errors(document)]
    return found, expected


# --- documents of each schema, and ways to break them ----------------------------------------


@cache
def _report() -> dict[str, Any]:
    report: dict[str, Any] = json.loads(
        (REPO / "baselines" / "fixture-agent" / "report.json").read_text()
    )
    return report


def _receipts() -> list[dict[str, Any]]:
    """From the committed fixture-agent baseline, the smallest receipt of each of its first
    four failures (by their JSON text; ``null``, a success, among them)."""
    smallest: dict[object, dict[str, Any]] = {}
    for receipt in _report()["receipts"]:
        code = json.dumps(receipt["canonical"].get("failure"))
        size = len(json.dumps(receipt))
        if code not in smallest or size < len(json.dumps(smallest[code])):
            smallest[code] = receipt
    return [smallest[code] for code in sorted(smallest, key=str)][:4]


def _shortened(value: Any) -> Any:
    """The value with every array cut to its first two items: a report small enough to break
    and check a hundred times, with every kind of its parts still in it."""
    if isinstance(value, dict):
        return {key: _shortened(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shortened(item) for item in value[:2]]
    return value


@cache
def seed_documents() -> dict[schemas.SchemaName, list[Any]]:
    fixture = fixtures_dir() / "agentic-retrieval"
    tasks = sorted((fixture / "tasks").glob("*.json"))[:2]
    oracles = sorted((fixture / "oracles").glob("*.json"))[:2]
    receipts = _receipts()
    envelopes = [
        receipt["canonical"]["finalEnvelope"]
        for receipt in receipts
        if isinstance(receipt["canonical"].get("finalEnvelope"), dict)
    ]
    small_report = {**_shortened(_report()), "receipts": receipts[:2]}
    documents: dict[schemas.SchemaName, list[Any]] = {
        "agent-task": [json.loads(path.read_text()) for path in tasks],
        "hidden-oracle": [json.loads(path.read_text()) for path in oracles],
        "final-envelope": envelopes,
        "trajectory-receipt": receipts,
        "benchmark-report": [small_report],
    }
    return documents


def pointers(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from pointers(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            yield from pointers(item, (*at, index))


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-3, max_value=3)
    | st.sampled_from([0.0, 1.0, 2.5, -1.5, 10**20])
    | st.sampled_from(["", "a", "ok", "failed", "string", "t0e10001", "2026-02-30", "x\n"])
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


def nudged(value: Any) -> st.SearchStrategy[Any]:
    """A value near a valid one, to reach the bounds and patterns a random value rarely does."""
    if isinstance(value, bool) or value is None:
        return st.sampled_from([not value, 0, "true"])
    if isinstance(value, int | float):
        return st.sampled_from([value - 1, -value, 0, -1, float(value), str(value)])
    if isinstance(value, str):
        return st.sampled_from([value + "\n", value[:-1], "", value.upper(), value + "0"])
    if isinstance(value, list):
        return st.sampled_from([[], value[:1] * 2, [*value, *value[-1:]]])
    return st.sampled_from([{}, {key: value[key] for key in list(value)[1:]}])


@st.composite
def broken(draw: st.DrawFn, name: schemas.SchemaName) -> Any:
    """A seed document with one to three places changed: a value replaced or nudged, a key
    dropped, a key added, or an array item repeated."""
    document = copy.deepcopy(draw(st.sampled_from(seed_documents()[name])))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        where = draw(st.sampled_from(list(pointers(document))))
        if not where:
            continue
        parent = document
        for step in where[:-1]:
            parent = parent[step]
        last = where[-1]
        action = draw(st.sampled_from(["replace", "nudge", "drop", "add", "repeat"]))
        if action == "nudge":
            parent[last] = draw(nudged(parent[last]))
        elif action == "replace":
            parent[last] = draw(json_values)
        elif action == "drop" and isinstance(parent, dict):
            del parent[last]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "value", "type"]))] = draw(json_values)
        elif action == "repeat" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[last]))
    return document


# More than the fast profile's 40: a random break reaches most keywords only over a hundred or
# so documents (derandomized, as the profile says, so CI sees the same ones).
EXAMPLES = settings(
    max_examples=max(150, settings().max_examples),
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize("name", schemas.SCHEMA_NAMES)
def test_every_seed_document_is_valid_for_both(name: schemas.SchemaName) -> None:
    for document in seed_documents()[name]:
        assert both(name, document) == ([], [])


@pytest.mark.parametrize("name", schemas.SCHEMA_NAMES)
@EXAMPLES
@given(data=st.data())
def test_a_broken_document_gets_the_violations_jsonschema_finds(
    name: schemas.SchemaName, data: st.DataObject
) -> None:
    found, expected = both(name, data.draw(broken(name)))

    assert found == expected


@pytest.mark.parametrize("name", schemas.SCHEMA_NAMES)
@EXAMPLES
@given(document=json_values)
def test_any_json_value_gets_the_violations_jsonschema_finds(
    name: schemas.SchemaName, document: Any
) -> None:
    found, expected = both(name, document)

    assert found == expected


@st.composite
def tool_arguments(draw: st.DrawFn) -> tuple[str, Any]:
    tool = draw(st.sampled_from(tool_definitions()))
    declared = list(object_at(tool, "inputSchema", "properties"))
    keys = st.sampled_from([*declared, "extra"])
    values = json_values | st.sampled_from([1, 2.0, 0, "q", ["a"], []])
    return str(tool["name"]), draw(st.dictionaries(keys, values, max_size=4))


@EXAMPLES
@given(call=tool_arguments())
def test_tool_arguments_get_the_violations_stock_jsonschema_finds(call: tuple[str, Any]) -> None:
    name, arguments = call
    schema = next(
        object_at(tool, "inputSchema") for tool in tool_definitions() if tool["name"] == name
    )
    expected = [theirs(error) for error in Draft7Validator(schema).iter_errors(arguments)]

    found = [ours(each) for each in Draft7(schema, source=name).iter_errors(arguments)]

    assert found == expected


KEYWORD_CASES: list[tuple[dict[str, Any], list[Any]]] = [
    ({"exclusiveMinimum": 0}, [0, -1, 0.5, "a"]),
    ({"minimum": 1}, [0, 1, 0.5, True]),
    ({"propertyNames": {"pattern": "^[a-z]+$"}}, [{"A": 1, "b": 2}, {}]),
    ({"minLength": 3}, ["ab", "abc", 3]),
    ({"minItems": 2}, [[1], [], "ab"]),
    ({"items": [{"type": "string"}, {"type": "integer"}]}, [["a", "b", 3], [1]]),
    ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, [5, -1, 0.5, "x"]),
    ({"anyOf": [{"type": "string"}, {"required": ["a"]}]}, [1, {}, {"a": 0}]),
    ({"enum": [1, True, [0]]}, [1.0, True, False, [False], [0.0]]),
    ({"const": {"a": [1]}}, [{"a": [True]}, {"a": [1.0]}, {"a": [1], "b": 0}]),
    ({"type": ["string", "null"]}, [1, None, True]),
    ({"if": {"minimum": 0}, "then": {"type": "integer"}, "else": {"const": -1}}, [0.5, -2, 3]),
    ({"if": {"type": "string"}}, [1, "a"]),
    ({"additionalProperties": {"type": "integer"}}, [{"a": "x", "b": 1}]),
    ({"required": ["b", "a"], "additionalProperties": False}, [{"c": 1, "d": 2}]),
    ({"$ref": "#/definitions/n", "type": "string", "definitions": {"n": {"type": "integer"}}}, [1]),
    ({"type": "number"}, [1, 1.5, True, "1"]),
]


@pytest.mark.parametrize(("schema", "instances"), KEYWORD_CASES)
def test_each_keyword_words_its_violations_as_stock_jsonschema(
    schema: dict[str, Any], instances: list[Any]
) -> None:
    for instance in instances:
        expected = [theirs(error) for error in Draft7Validator(schema).iter_errors(instance)]

        found = [ours(each) for each in Draft7(schema, source="s").iter_errors(instance)]

        assert found == expected, instance


# --- what the module refuses, and its choices ------------------------------------------------


def refusal(schema: dict[str, Any]) -> str:
    with pytest.raises(ContractError) as caught:
        Draft7(schema, source="s.json")
    assert caught.value.code == "invalid_schema"
    return caught.value.message


def test_a_keyword_it_does_not_check_refuses_the_schema() -> None:
    schema = {"properties": {"a": {"type": "string", "maxLength": 3}}}

    assert refusal(schema) == "s.json#/properties/a: keyword 'maxLength' is not supported"


def test_a_ref_that_does_not_resolve_refuses_the_schema() -> None:
    schema = {"properties": {"a": {"$ref": "#/definitions/missing"}}}

    assert refusal(schema) == (
        "s.json#/properties/a/$ref: $ref '#/definitions/missing' does not resolve"
    )


def test_a_ref_to_an_unknown_schema_refuses_the_schema() -> None:
    assert refusal({"$ref": "gno://elsewhere#/definitions/a"}) == (
        "s.json#/$ref: $ref 'gno://elsewhere#/definitions/a' names no known schema"
    )


def test_an_id_inside_a_schema_refuses_it() -> None:
    schema = {"definitions": {"a": {"$id": "gno://a", "type": "string"}}}

    assert refusal(schema) == "s.json#/definitions/a: $id is supported on a whole schema only"


def test_an_unknown_type_name_refuses_the_schema() -> None:
    assert refusal({"type": "text"}) == "s.json#/type: unknown type in 'text'"


def test_a_pattern_that_is_no_regular_expression_refuses_the_schema() -> None:
    assert refusal({"pattern": "a("}).startswith("s.json#/pattern: not a regular expression: ")


def test_a_keyword_value_of_the_wrong_kind_refuses_the_schema() -> None:
    assert refusal({"required": "a"}) == "s.json#/required: must be an array of strings"


def test_a_local_ref_inside_another_resource_resolves_in_that_resource() -> None:
    other: JsonObject = {
        "$id": "gno://other",
        "definitions": {"n": {"type": "integer"}},
        "$ref": "#/definitions/n",
    }
    validator = Draft7({"$ref": "gno://other"}, source="s.json", resources={"gno://other": other})

    assert [each.message for each in validator.iter_errors("x")] == ["'x' is not of type 'integer'"]


def test_strict_integers_refuse_a_float_that_stock_draft_07_calls_an_integer() -> None:
    schema: JsonObject = {"type": "integer"}

    assert Draft7(schema, source="s").is_valid(2.0)
    assert not Draft7(schema, source="s", strict_integers=True).is_valid(2.0)
    assert not Draft7(schema, source="s").is_valid(True)


def test_a_trailing_dollar_anchors_at_the_very_end() -> None:
    validator = Draft7({"pattern": "^t[0-9]{2}$"}, source="s")

    assert validator.is_valid("t01")
    assert not validator.is_valid("t01\n")


def test_only_the_given_formats_are_asserted() -> None:
    schema: JsonObject = {"properties": {"d": {"format": "date"}, "e": {"format": "email"}}}
    validator = Draft7(schema, source="s", formats={"date": lambda value: value == "2026-12-06"})

    assert validator.is_valid({"d": "2026-12-06", "e": "not an address"})
    assert [each.message for each in validator.iter_errors({"d": "x"})] == ["'x' is not a 'date'"]


def test_unique_items_compares_every_two_items_where_jsonschema_misses_a_pair() -> None:
    # jsonschema sorts the items and compares neighbours: [1] and [true] sort as equal and
    # keep [true] between the two [1]s, so it calls the array unique.
    items = [[1], [True], [1]]
    validator = Draft7({"uniqueItems": True}, source="s")

    assert Draft7Validator({"uniqueItems": True}).is_valid(items)
    assert [each.keyword for each in validator.iter_errors(items)] == ["uniqueItems"]


def test_a_false_subschema_names_the_path_of_what_it_refused() -> None:
    # jsonschema gives this violation the path of the object holding it, not of the value.
    validator = Draft7({"properties": {"a": True, "b": False}}, source="s")

    assert [(each.path, each.message) for each in validator.iter_errors({"a": 1, "b": 2})] == [
        (("b",), "False schema does not allow 2")
    ]


def test_unique_items_tells_true_from_one_and_one_from_one_point_zero() -> None:
    validator = Draft7({"uniqueItems": True}, source="s")

    assert validator.is_valid([1, True, {"a": 0}, {"a": False}])
    assert not validator.is_valid([1, 1.0])
    assert not validator.is_valid([{"a": [1]}, {"a": [1.0]}])


def test_violations_are_found_lazily() -> None:
    # A document is refused on its first violations (schemas.LOAD_ERROR_LIMIT): taking a few
    # must not look at every item of a huge array.
    seen: list[int] = []

    class Watched(list[object]):
        def __iter__(self) -> Iterator[object]:
            for index, item in enumerate(super().__iter__()):
                seen.append(index)
                yield item

    errors = Draft7({"items": {"type": "string"}}, source="s").iter_errors(Watched(range(10_000)))

    assert [next(errors).path for _ in range(2)] == [(0,), (1,)]
    assert len(seen) <= 3
