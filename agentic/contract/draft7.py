"""JSON Schema draft-07 for the keywords the kit's own schemas use.

Every document the kit reads is checked against a published schema, and every tool call's
arguments against the frozen tool contract. Importing a general validator (jsonschema, with
attrs, referencing and its format checkers) cost more than half of `agentic validate`, for
the nineteen keywords these schemas use. This module checks those keywords with
jsonschema's messages, instance paths and order, so every line the kit writes about a
violation (receipts' invalidOutputs, error messages) is what it was; a schema using any other
keyword, or a ``$ref`` that does not resolve, is refused when the validator is built, so
nothing is ever half-checked. tests/contract/test_draft7.py holds it to jsonschema on
generated documents.

Three choices, each documented in contract/schemas.py for the published schemas:
- ``strict_integers``: ``integer`` is a JSON integer token only (the contract's documents);
  off, ``2.0`` is an integer too, as in stock draft-07 (tool arguments, as the reference reads
  them in JavaScript, where 2.0 and 2 are one number).
- A trailing ``$`` in a ``pattern`` anchors at the very end, as in ECMA-262.
- Formats: only those given are asserted; any other is an annotation.

Two departures from jsonschema, neither changing which documents the published schemas accept
(their arrays with uniqueItems hold strings or objects, not arrays): ``uniqueItems``
compares every two items (jsonschema sorts them and compares neighbours, which misses
``[[1], [true], [1]]``), and a ``false`` subschema's violation has the path of the value it
refused (jsonschema's has the path of the value's parent).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TypeAlias
from urllib.parse import unquote

from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject, JsonValue

PathItem: TypeAlias = "str | int"
InstancePath: TypeAlias = "tuple[PathItem, ...]"
Schema: TypeAlias = "JsonObject | bool"
FormatCheck: TypeAlias = Callable[[object], bool]

# Keywords that only annotate or hold subschemas reached through other keywords.
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "default", "examples", "definitions"}
)
_IF_BRANCHES = frozenset({"then", "else"})
TYPE_NAMES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})


@dataclass(frozen=True)
class Violation:
    """One way an instance breaks its schema. ``keyword`` is the keyword that failed (the one
    inside a ``$ref``, ``then`` or ``properties``, as jsonschema's ``validator``); ``path`` is
    the absolute instance path. An ``anyOf``/``oneOf`` that nothing matched holds what each
    alternative found wrong in ``alternatives``, in order."""

    keyword: str | None
    message: str
    path: InstancePath
    alternatives: tuple[tuple[Violation, ...], ...] = field(default=())


@dataclass(frozen=True)
class _Scope:
    """What a walk needs besides the schema in hand: every whole schema by name, the one whose
    local refs apply (``root``), each ref's target (resolved once, when the validator is
    built), and the validator's choices."""

    resources: Mapping[str, JsonObject]
    root: str
    targets: dict[tuple[str, str], tuple[str, Schema]]
    strict_integers: bool
    formats: Mapping[str, FormatCheck]


def _schema_error(where: str, what: str) -> ContractError:
    return ContractError("invalid_schema", f"{where}: {what}")


class Draft7:
    """A validator of one schema. ``resources`` holds other whole schemas by ``$id``, for refs
    that name them (a report's schema refers to the receipt's). A schema this module cannot
    check in full is ``invalid_schema``, its message naming ``source`` and the JSON pointer."""

    def __init__(
        self,
        schema: JsonObject,
        *,
        source: str,
        resources: Mapping[str, JsonObject] | None = None,
        strict_integers: bool = False,
        formats: Mapping[str, FormatCheck] | None = None,
    ) -> None:
        identity = schema.get("$id")
        root = identity if isinstance(identity, str) else source
        known = {**(resources or {}), root: schema}
        self._scope = _Scope(known, root, {}, strict_integers, dict(formats or {}))
        for name, resource in known.items():
            label = f"{source}#" if name == root else f"{name}#"
            _check_supported(resource, replace(self._scope, root=name), label)
        self._tests = _Tests()

    def iter_errors(self, instance: object) -> Iterator[Violation]:
        """Every violation, lazily, in jsonschema's order."""
        scope = self._scope
        return _errors(scope, scope.resources[scope.root], instance, ())

    def is_valid(self, instance: object) -> bool:
        """Whether :meth:`iter_errors` would yield nothing, decided without wording a
        violation (see "validity alone" below)."""
        scope = self._scope
        return self._tests.of(scope, scope.resources[scope.root])(instance)


# --- the schema check, at construction ------------------------------------------------------


def _check_supported(schema: JsonValue, scope: _Scope, where: str) -> None:
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise _schema_error(where, "a schema must be an object or a boolean")
    if "$id" in schema and schema is not scope.resources[scope.root]:
        raise _schema_error(where, "$id is supported on a whole schema only")
    for keyword, value in schema.items():
        inner = f"{where}/{keyword}"
        if keyword in _ANNOTATIONS:
            if keyword == "definitions":
                _check_children(value, scope, inner)
            continue
        if keyword in _IF_BRANCHES:
            _check_supported(value, scope, inner)
            continue
        if keyword != "$ref" and keyword not in _KEYWORDS:
            raise _schema_error(where, f"keyword {keyword!r} is not supported")
        _check_value(keyword, value, scope, inner)


def _check_children(value: JsonValue, scope: _Scope, where: str) -> None:
    if not isinstance(value, dict):
        raise _schema_error(where, "must be an object of schemas")
    for name, child in value.items():
        _check_supported(child, scope, f"{where}/{name}")


def _check_value(keyword: str, value: JsonValue, scope: _Scope, where: str) -> None:
    if keyword == "properties":
        _check_children(value, scope, where)
    elif keyword in ("anyOf", "oneOf"):
        if not isinstance(value, list) or not value:
            raise _schema_error(where, "must be a non-empty array of schemas")
        for index, child in enumerate(value):
            _check_supported(child, scope, f"{where}/{index}")
    elif keyword == "items" and isinstance(value, list):
        for index, child in enumerate(value):
            _check_supported(child, scope, f"{where}/{index}")
    elif keyword in ("items", "additionalProperties", "propertyNames", "if"):
        _check_supported(value, scope, where)
    elif keyword == "type":
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not set(map(str, names)) <= TYPE_NAMES:
            raise _schema_error(where, f"unknown type in {value!r}")
    elif keyword == "$ref":
        if not isinstance(value, str):
            raise _schema_error(where, "must be a string")
        scope.targets[(scope.root, value)] = _resolve(scope, value, where)
    elif keyword in _VALUE_SHAPES:
        fits, wanted = _VALUE_SHAPES[keyword]
        if not fits(value):
            raise _schema_error(where, f"must be {wanted}")
    if keyword == "pattern":
        try:
            _compiled(str(value))
        except re.error as exc:
            raise _schema_error(where, f"not a regular expression: {exc}") from None


def _is_count(value: JsonValue) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: JsonValue) -> bool:
    return _number(value) is not None


def _is_names(value: JsonValue) -> bool:
    return isinstance(value, list) and all(isinstance(each, str) for each in value)


# The values of the keywords that hold no subschema; ``const`` takes any value.
_VALUE_SHAPES: Mapping[str, tuple[Callable[[JsonValue], bool], str]] = {
    "enum": (lambda value: isinstance(value, list), "an array"),
    "exclusiveMinimum": (_is_number, "a number"),
    "format": (lambda value: isinstance(value, str), "a string"),
    "minItems": (_is_count, "a non-negative integer"),
    "minLength": (_is_count, "a non-negative integer"),
    "minimum": (_is_number, "a number"),
    "pattern": (lambda value: isinstance(value, str), "a string"),
    "required": (_is_names, "an array of strings"),
    "uniqueItems": (lambda value: isinstance(value, bool), "a boolean"),
}


# --- the walk -------------------------------------------------------------------------------


def _errors(
    scope: _Scope, schema: Schema, instance: object, path: InstancePath
) -> Iterator[Violation]:
    if schema is True:
        return
    if schema is False:
        yield Violation(None, f"False schema does not allow {instance!r}", path)
        return
    assert isinstance(schema, dict)  # guaranteed by _check_supported
    reference = schema.get("$ref")
    if isinstance(reference, str):
        # Draft-07: a $ref's siblings are ignored.
        root, target = scope.targets[(scope.root, reference)]
        inner = scope if root == scope.root else replace(scope, root=root)
        yield from _errors(inner, target, instance, path)
        return
    for keyword, value in schema.items():
        check = _KEYWORDS.get(keyword)
        if check is not None:
            yield from check(scope, value, instance, schema, path)


def _is_valid(scope: _Scope, schema: Schema, instance: object) -> bool:
    return next(_errors(scope, schema, instance, ()), None) is None


def _is_type(scope: _Scope, instance: object, name: str) -> bool:
    if name == "object":
        return isinstance(instance, dict)
    if name == "array":
        return isinstance(instance, list)
    if name == "string":
        return isinstance(instance, str)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "null":
        return instance is None
    if isinstance(instance, bool):
        return False
    if name == "number":
        return isinstance(instance, int | float)
    if isinstance(instance, float):
        return not scope.strict_integers and instance.is_integer()
    return isinstance(instance, int)


def _resolve(scope: _Scope, reference: str, where: str) -> tuple[str, Schema]:
    """The schema a ``$ref`` names, and the name of the whole schema holding it."""
    address, _, fragment = reference.partition("#")
    root = address or scope.root
    target: JsonValue | None = scope.resources.get(root)
    if target is None:
        raise _schema_error(where, f"$ref {reference!r} names no known schema")
    for token in unquote(fragment).split("/")[1:] if fragment else ():
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and key in target:
            target = target[key]
        elif isinstance(target, list) and key.isdigit() and int(key) < len(target):
            target = target[int(key)]
        else:
            raise _schema_error(where, f"$ref {reference!r} does not resolve")
    if not isinstance(target, dict | bool):
        raise _schema_error(where, f"$ref {reference!r} is not a schema")
    return root, target


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _json_equal(one: object, two: object) -> bool:
    """Equality of JSON values: true is not 1, 1 is 1.0, containers compare item by item."""
    if isinstance(one, bool) or isinstance(two, bool):
        return type(one) is type(two) and one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(map(_json_equal, one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return len(one) == len(two) and all(
            key in two and _json_equal(value, two[key]) for key, value in one.items()
        )
    return one == two


def _identity(value: object) -> object:
    """A hashable stand-in, equal for exactly the values :func:`_json_equal` calls equal."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, list):
        return ("array", tuple(_identity(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _identity(item)) for key, item in value.items()))
    return ("value", value)


def _has_duplicates(items: list[object]) -> bool:
    seen: set[object] = set()
    for item in items:
        identity = _identity(item)
        if identity in seen:
            return True
        seen.add(identity)
    return False


# --- the keywords, each as jsonschema words its violation -----------------------------------

_Check: TypeAlias = Callable[
    [_Scope, JsonValue, object, JsonObject, InstancePath], Iterator[Violation]
]


def _type(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    names = [value] if isinstance(value, str) else value
    assert isinstance(names, list)
    if not any(_is_type(scope, instance, str(name)) for name in names):
        wanted = ", ".join(repr(name) for name in names)
        yield Violation("type", f"{instance!r} is not of type {wanted}", path)


def _properties(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    if not isinstance(instance, dict) or not isinstance(value, dict):
        return
    for name, subschema in value.items():
        if name in instance:
            assert isinstance(subschema, dict | bool)
            yield from _errors(scope, subschema, instance[name], (*path, name))


def _additional_properties(
    scope: _Scope, value: JsonValue, instance: object, schema: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    if not isinstance(instance, dict):
        return
    declared = schema.get("properties", {})
    assert isinstance(declared, dict)
    extras = [name for name in instance if name not in declared]
    if isinstance(value, dict):
        for name in extras:
            yield from _errors(scope, value, instance[name], (*path, name))
    elif value is False and extras:
        named = ", ".join(repr(name) for name in sorted(extras, key=str))
        verb = "was" if len(extras) == 1 else "were"
        message = f"Additional properties are not allowed ({named} {verb} unexpected)"
        yield Violation("additionalProperties", message, path)


def _required(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    if not isinstance(instance, dict) or not isinstance(value, list):
        return
    for name in value:
        if name not in instance:
            yield Violation("required", f"{name!r} is a required property", path)


def _items(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    if not isinstance(instance, list):
        return
    if isinstance(value, list):
        for index, (item, subschema) in enumerate(zip(instance, value, strict=False)):
            assert isinstance(subschema, dict | bool)
            yield from _errors(scope, subschema, item, (*path, index))
        return
    assert isinstance(value, dict | bool)
    for index, item in enumerate(instance):
        yield from _errors(scope, value, item, (*path, index))


def _pattern(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    assert isinstance(value, str)
    if isinstance(instance, str) and _compiled(value).search(instance) is None:
        yield Violation("pattern", f"{instance!r} does not match {value!r}", path)


def _enum(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    assert isinstance(value, list)
    if not any(_json_equal(each, instance) for each in value):
        yield Violation("enum", f"{instance!r} is not one of {value!r}", path)


def _const(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    if not _json_equal(instance, value):
        yield Violation("const", f"{value!r} was expected", path)


def _number(instance: object) -> float | int | None:
    if isinstance(instance, bool) or not isinstance(instance, int | float):
        return None
    return instance


def _minimum(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    number = _number(instance)
    assert isinstance(value, int | float)
    if number is not None and number < value:
        yield Violation("minimum", f"{number!r} is less than the minimum of {value!r}", path)


def _exclusive_minimum(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    number = _number(instance)
    assert isinstance(value, int | float)
    if number is not None and number <= value:
        message = f"{number!r} is less than or equal to the minimum of {value!r}"
        yield Violation("exclusiveMinimum", message, path)


def _too_few(
    keyword: str, instance: str | list[object], least: JsonValue, path: InstancePath
) -> Iterator[Violation]:
    """``minLength`` and ``minItems``: one wording for a string and an array."""
    assert isinstance(least, int)
    if len(instance) < least:
        wording = "should be non-empty" if least == 1 else "is too short"
        yield Violation(keyword, f"{instance!r} {wording}", path)


def _min_length(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    if isinstance(instance, str):
        yield from _too_few("minLength", instance, value, path)


def _min_items(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    if isinstance(instance, list):
        yield from _too_few("minItems", instance, value, path)


def _unique_items(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    if value is True and isinstance(instance, list) and _has_duplicates(instance):
        yield Violation("uniqueItems", f"{instance!r} has non-unique elements", path)


def _format(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    assert isinstance(value, str)
    check = scope.formats.get(value)
    if check is not None and not check(instance):
        yield Violation("format", f"{instance!r} is not a {value!r}", path)


def _property_names(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    if not isinstance(instance, dict):
        return
    assert isinstance(value, dict | bool)
    for name in instance:
        yield from _errors(scope, value, name, path)


def _if(
    scope: _Scope, value: JsonValue, instance: object, schema: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    assert isinstance(value, dict | bool)
    branch = "then" if _is_valid(scope, value, instance) else "else"
    chosen = schema.get(branch)
    if isinstance(chosen, dict | bool):
        yield from _errors(scope, chosen, instance, path)


def _alternatives(
    scope: _Scope, value: JsonValue, instance: object, path: InstancePath
) -> tuple[int | None, list[tuple[Violation, ...]]]:
    """The index of the first alternative the instance meets (None if none does), and what
    each alternative before it found wrong."""
    assert isinstance(value, list)
    missed: list[tuple[Violation, ...]] = []
    for index, subschema in enumerate(value):
        assert isinstance(subschema, dict | bool)
        errors = tuple(_errors(scope, subschema, instance, path))
        if not errors:
            return index, missed
        missed.append(errors)
    return None, missed


def _none_matched(
    keyword: str, instance: object, path: InstancePath, missed: list[tuple[Violation, ...]]
) -> Violation:
    message = f"{instance!r} is not valid under any of the given schemas"
    return Violation(keyword, message, path, tuple(missed))


def _any_of(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    matched, missed = _alternatives(scope, value, instance, path)
    if matched is None:
        yield _none_matched("anyOf", instance, path, missed)


def _one_of(
    scope: _Scope, value: JsonValue, instance: object, _s: JsonObject, path: InstancePath
) -> Iterator[Violation]:
    matched, missed = _alternatives(scope, value, instance, path)
    if matched is None:
        yield _none_matched("oneOf", instance, path, missed)
        return
    assert isinstance(value, list)
    also = [each for each in value[matched + 1 :] if _is_valid(scope, _as_schema(each), instance)]
    if also:
        schemas = ", ".join(repr(each) for each in [*also, value[matched]])
        yield Violation("oneOf", f"{instance!r} is valid under each of {schemas}", path)


def _as_schema(value: JsonValue) -> Schema:
    assert isinstance(value, dict | bool)
    return value


_KEYWORDS: Mapping[str, _Check] = {
    "additionalProperties": _additional_properties,
    "anyOf": _any_of,
    "const": _const,
    "enum": _enum,
    "exclusiveMinimum": _exclusive_minimum,
    "format": _format,
    "if": _if,
    "items": _items,
    "minItems": _min_items,
    "minLength": _min_length,
    "minimum": _minimum,
    "oneOf": _one_of,
    "pattern": _pattern,
    "properties": _properties,
    "propertyNames": _property_names,
    "required": _required,
    "type": _type,
    "uniqueItems": _unique_items,
}


# --- validity alone -------------------------------------------------------------------------
#
# A valid document, the common case, needs no violation: no message, no instance path, no
# generator per value. Each (sub)schema is compiled once into a test that answers whether the
# walk above would yield nothing, keyword by keyword on the same rules; only a document that
# fails is walked, which words its violations exactly as before.
# tests/contract/test_draft7_validity.py holds the two to the same answer on the documents
# tests/contract/test_draft7.py generates.

_Test: TypeAlias = Callable[[object], bool]


def _always(_instance: object) -> bool:
    return True


def _never(_instance: object) -> bool:
    return False


def _type_test(scope: _Scope, name: str) -> _Test:
    """:func:`_is_type` for one type name, decided once instead of per value."""
    if name == "object":
        return lambda instance: isinstance(instance, dict)
    if name == "array":
        return lambda instance: isinstance(instance, list)
    if name == "string":
        return lambda instance: isinstance(instance, str)
    if name == "boolean":
        return lambda instance: isinstance(instance, bool)
    if name == "null":
        return lambda instance: instance is None
    return lambda instance: _is_type(scope, instance, name)


def _all_of(tests: list[_Test]) -> _Test:
    if not tests:
        return _always
    if len(tests) == 1:
        return tests[0]

    def test(instance: object) -> bool:
        # A loop, not all() over a generator: this runs once per value of a document.
        for each in tests:  # noqa: SIM110
            if not each(instance):
                return False
        return True

    return test


class _Tests:
    """The compiled test of every schema one validator reaches, each compiled when first
    needed and kept for the validator's life (the schemas it holds keep their ids)."""

    def __init__(self) -> None:
        self._compiled: dict[tuple[str, int], _Test] = {}

    def of(self, scope: _Scope, schema: Schema) -> _Test:
        key = (scope.root, id(schema))
        found = self._compiled.get(key)
        if found is None:
            found = self._compiled[key] = self._compile(scope, schema)
        return found

    def _compile(self, scope: _Scope, schema: Schema) -> _Test:
        if schema is True:
            return _always
        if schema is False:
            return _never
        assert isinstance(schema, dict)  # guaranteed by _check_supported
        reference = schema.get("$ref")
        if isinstance(reference, str):
            return self._reference(scope, reference)
        return _all_of(
            [
                self._keyword(scope, keyword, value, schema)
                for keyword, value in schema.items()
                if keyword in _KEYWORDS
            ]
        )

    def _reference(self, scope: _Scope, reference: str) -> _Test:
        """A ``$ref``'s test, compiled on its first use: a schema may refer to itself."""
        root, target = scope.targets[(scope.root, reference)]
        inner = scope if root == scope.root else replace(scope, root=root)
        resolved: list[_Test] = []

        def test(instance: object) -> bool:
            if not resolved:
                resolved.append(self.of(inner, target))
            return resolved[0](instance)

        return test

    def _keyword(self, scope: _Scope, keyword: str, value: JsonValue, schema: JsonObject) -> _Test:
        if keyword in _SUBSCHEMA_TESTS:
            return _SUBSCHEMA_TESTS[keyword](self, scope, value, schema)
        return _VALUE_TESTS[keyword](scope, value)

    def properties(self, scope: _Scope, value: JsonValue, _s: JsonObject) -> _Test:
        if not isinstance(value, dict):
            return _always
        members = [(name, self.of(scope, _as_schema(sub))) for name, sub in value.items()]

        def test(instance: object) -> bool:
            if not isinstance(instance, dict):
                return True
            for name, each in members:
                if name in instance and not each(instance[name]):
                    return False
            return True

        return test

    def additional(self, scope: _Scope, value: JsonValue, schema: JsonObject) -> _Test:
        declared = schema.get("properties", {})
        assert isinstance(declared, dict)
        if value is True:
            return _always
        if value is False:
            known = declared.keys()
            return lambda instance: not isinstance(instance, dict) or instance.keys() <= known
        extra = self.of(scope, _as_schema(value))

        def test(instance: object) -> bool:
            if not isinstance(instance, dict):
                return True
            return all(name in declared or extra(item) for name, item in instance.items())

        return test

    def items(self, scope: _Scope, value: JsonValue, _s: JsonObject) -> _Test:
        if isinstance(value, list):
            each_of = [self.of(scope, _as_schema(sub)) for sub in value]
            return lambda instance: (
                not isinstance(instance, list)
                or all(each(item) for item, each in zip(instance, each_of, strict=False))
            )
        each = self.of(scope, _as_schema(value))
        return lambda instance: not isinstance(instance, list) or all(map(each, instance))

    def property_names(self, scope: _Scope, value: JsonValue, _s: JsonObject) -> _Test:
        each = self.of(scope, _as_schema(value))
        return lambda instance: not isinstance(instance, dict) or all(map(each, instance))

    def if_(self, scope: _Scope, value: JsonValue, schema: JsonObject) -> _Test:
        condition = self.of(scope, _as_schema(value))
        branches = [schema.get(name) for name in ("then", "else")]
        then, otherwise = (
            self.of(scope, branch) if isinstance(branch, dict | bool) else _always
            for branch in branches
        )
        return lambda instance: (then if condition(instance) else otherwise)(instance)

    def any_of(self, scope: _Scope, value: JsonValue, _s: JsonObject) -> _Test:
        assert isinstance(value, list)
        alternatives = [self.of(scope, _as_schema(sub)) for sub in value]
        return lambda instance: any(each(instance) for each in alternatives)

    def one_of(self, scope: _Scope, value: JsonValue, _s: JsonObject) -> _Test:
        assert isinstance(value, list)
        alternatives = [self.of(scope, _as_schema(sub)) for sub in value]
        # Exactly one: the walk refuses none, and a second one after the first that matched.
        return lambda instance: sum(1 for each in alternatives if each(instance)) == 1


def _type_keyword(scope: _Scope, value: JsonValue) -> _Test:
    names = [value] if isinstance(value, str) else value
    assert isinstance(names, list)
    tests = [_type_test(scope, str(name)) for name in names]
    if len(tests) == 1:
        return tests[0]
    return lambda instance: any(each(instance) for each in tests)


def _required_keyword(scope: _Scope, value: JsonValue) -> _Test:
    if not isinstance(value, list):
        return _always
    names = frozenset(value)
    return lambda instance: not isinstance(instance, dict) or instance.keys() >= names


def _pattern_keyword(scope: _Scope, value: JsonValue) -> _Test:
    assert isinstance(value, str)
    search = _compiled(value).search
    return lambda instance: not isinstance(instance, str) or search(instance) is not None


def _enum_keyword(scope: _Scope, value: JsonValue) -> _Test:
    assert isinstance(value, list)
    if all(type(each) is str for each in value):
        # A string is JSON-equal to a string only, and then exactly when the two are equal.
        names = frozenset(value)
        return lambda instance: isinstance(instance, str) and instance in names
    return lambda instance: any(_json_equal(each, instance) for each in value)


def _const_keyword(scope: _Scope, value: JsonValue) -> _Test:
    return lambda instance: _json_equal(instance, value)


def _minimum_keyword(scope: _Scope, value: JsonValue) -> _Test:
    assert isinstance(value, int | float)

    def test(instance: object) -> bool:
        number = _number(instance)
        return number is None or not number < value

    return test


def _exclusive_minimum_keyword(scope: _Scope, value: JsonValue) -> _Test:
    assert isinstance(value, int | float)

    def test(instance: object) -> bool:
        number = _number(instance)
        return number is None or not number <= value

    return test


def _min_length_keyword(scope: _Scope, value: JsonValue) -> _Test:
    assert isinstance(value, int)
    return lambda instance: not isinstance(instance, str) or len(instance) >= value


def _min_items_keyword(scope: _Scope, value: JsonValue) -> _Test:
    assert isinstance(value, int)
    return lambda instance: not isinstance(instance, list) or len(instance) >= value


def _unique_items_keyword(scope: _Scope, value: JsonValue) -> _Test:
    if value is not True:
        return _always
    return lambda instance: not isinstance(instance, list) or not _has_duplicates(instance)


def _format_keyword(scope: _Scope, value: JsonValue) -> _Test:
    assert isinstance(value, str)
    check = scope.formats.get(value)
    return _always if check is None else check


_VALUE_TESTS: Mapping[str, Callable[[_Scope, JsonValue], _Test]] = {
    "const": _const_keyword,
    "enum": _enum_keyword,
    "exclusiveMinimum": _exclusive_minimum_keyword,
    "format": _format_keyword,
    "minItems": _min_items_keyword,
    "minLength": _min_length_keyword,
    "minimum": _minimum_keyword,
    "pattern": _pattern_keyword,
    "required": _required_keyword,
    "type": _type_keyword,
    "uniqueItems": _unique_items_keyword,
}
_SUBSCHEMA_TESTS: Mapping[str, Callable[[_Tests, _Scope, JsonValue, JsonObject], _Test]] = {
    "additionalProperties": _Tests.additional,
    "anyOf": _Tests.any_of,
    "if": _Tests.if_,
    "items": _Tests.items,
    "oneOf": _Tests.one_of,
    "properties": _Tests.properties,
    "propertyNames": _Tests.property_names,
}
