"""Validation against the five published JSON Schemas, then the pydantic models.

Every boundary runs strict JSON -> schema -> model (docs/architecture.md, "Fail closed"). The
schemas are the published contract; the models must accept exactly the documents the schemas
accept, and the contract tests hold the two together.

The schemas are checked by the kit's own draft-07 validator (contract/draft7.py: the keywords
they use, with jsonschema's messages), configured with three departures from a stock Python
draft-07 validator, each making it agree with the reference's Ajv and with the models:
- ``integer`` means a JSON integer token (a Python ``int``), never ``1.0``: the models are strict
  and canonical JSON could otherwise differ from the bytes an agent wrote.
- A trailing ``$`` in a ``pattern`` anchors at the very end of the string, as in ECMA-262
  (Python's ``$`` also matches before a final newline, which would admit ``"t0123456\\n"``).
- ``date`` and ``date-time`` are asserted (RFC 3339, with day-of-month checks), not annotations.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import reprlib
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from pydantic import ValidationError as ModelValidationError

from agentic import __version__, resources
from agentic.contract.base import ContractModel, is_date_time, is_full_date
from agentic.contract.draft7 import Draft7, Violation
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject, parse_strict
from agentic.contract.text import one_line

if TYPE_CHECKING:
    from agentic.contract.envelope import FinalEnvelope
    from agentic.contract.oracle import HiddenOracle
    from agentic.contract.receipt import TrajectoryReceipt
    from agentic.contract.report import BenchmarkReport
    from agentic.contract.task import AgentTask

# A document is refused on its first violation; looking further than this many is wasted work
# (and memory: a huge malformed array would yield one violation per item).
LOAD_ERROR_LIMIT = 64

SchemaName = Literal[
    "agent-task", "hidden-oracle", "final-envelope", "trajectory-receipt", "benchmark-report"
]
SCHEMA_NAMES: tuple[SchemaName, ...] = (
    "agent-task",
    "hidden-oracle",
    "final-envelope",
    "trajectory-receipt",
    "benchmark-report",
)
# The sha256 of each published schema file. Their bytes are checked against draft-07's
# metaschema by the test suite (tests/contract/test_schema_loading.py, which also holds this
# table to the files), so at run time only a file with other bytes pays that check (about a
# tenth of a second, most of `agentic validate`'s own time).
PUBLISHED_SHA256: Mapping[SchemaName, str] = {
    "agent-task": "7e74619a8e446ad0dd1a6d74d3da9b3b037c2eb91a39947abc694ed68e0b36b4",
    "hidden-oracle": "bc77b47be5ce82353179fbf115429d89b2068f9e79315528ecf15a35cba0b5bb",
    "final-envelope": "80e60842db5bbc466d24cf83e5722b3f17bac57a9d207014b884e266045ef6eb",
    "trajectory-receipt": "df09805f733c56677317a8350cae3a40bfec9f76fd4ef0b001018f0192d8fcd8",
    "benchmark-report": "4ae78ae4178d017f5246254917e99fef3dedb60e05d3c073520906e8d3c92247",
}
SCHEMA_ID_PREFIX = "gno://schemas/evals/agentic/"
SCHEMA_ID_SUFFIX = "@1.0"

# Each document's model, by module and class: imported when first asked for, so checking one
# kind of document (`agentic validate task`) builds one model, not all five.
_MODELS: Mapping[SchemaName, tuple[str, str]] = {
    "agent-task": ("agentic.contract.task", "AgentTask"),
    "hidden-oracle": ("agentic.contract.oracle", "HiddenOracle"),
    "final-envelope": ("agentic.contract.envelope", "FinalEnvelope"),
    "trajectory-receipt": ("agentic.contract.receipt", "TrajectoryReceipt"),
    "benchmark-report": ("agentic.contract.report", "BenchmarkReport"),
}


def model_class(name: SchemaName) -> type[ContractModel]:
    """The closed model of the documents of schema ``name``."""
    module, attribute = _MODELS[name]
    found: type[ContractModel] = getattr(importlib.import_module(module), attribute)
    return found


# Error lines end up in receipts' invalidOutputs, so they must stay one bounded line.
_MAX_MESSAGE = 200


def schema_id(name: str) -> str:
    return f"{SCHEMA_ID_PREFIX}{name}{SCHEMA_ID_SUFFIX}"


def schema_path(name: str) -> Path:
    return resources.schemas_dir() / f"{name}.schema.json"


def _checked_name(name: str) -> SchemaName:
    for known in SCHEMA_NAMES:
        if known == name:
            return known
    raise ContractError(
        "unknown_schema", f"unknown schema {name!r}; expected one of {SCHEMA_NAMES}"
    )


def _read_schema(name: SchemaName) -> JsonObject:
    path = schema_path(name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ContractError("invalid_schema", f"{path}: {exc.strerror or exc}") from None
    schema = parse_strict(data, source=str(path))
    if not isinstance(schema, dict) or schema.get("$id") != schema_id(name):
        raise ContractError("invalid_schema", f"{path}: $id must be {schema_id(name)}")
    if hashlib.sha256(data).hexdigest() == PUBLISHED_SHA256[name]:
        return schema
    # Only a schema file with other bytes pays for the general validator and its metaschema.
    from jsonschema import Draft7Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft7Validator.check_schema(schema)
    except SchemaError as exc:
        raise ContractError("invalid_schema", f"{path}: {exc.message}") from None
    return schema


@cache
def load_schemas() -> Mapping[SchemaName, JsonObject]:
    """The five schemas, read once from the schemas folder and checked against draft-07."""
    return {name: _read_schema(name) for name in SCHEMA_NAMES}


def _date_format(instance: object) -> bool:
    return not isinstance(instance, str) or is_full_date(instance)


def _date_time_format(instance: object) -> bool:
    return not isinstance(instance, str) or is_date_time(instance)


@cache
def _validator(name: SchemaName) -> Draft7:
    """The validator of one schema, built when first needed (see _MODELS); every schema is
    a resource of it, since a schema may refer to another (a report holds receipts)."""
    schemas = load_schemas()
    return Draft7(
        schemas[name],
        source=str(schema_path(name)),
        resources={schema_id(each): schema for each, schema in schemas.items()},
        strict_integers=True,
        formats={"date": _date_format, "date-time": _date_time_format},
    )


def _pointer(path: Iterable[str | int]) -> str:
    tokens = [str(token).replace("~", "~0").replace("/", "~1") for token in path]
    return "/" + "/".join(tokens) if tokens else "/"


def _shorten(text: str) -> str:
    return one_line(text, _MAX_MESSAGE)


def _branch_rank(error: Violation, missed: tuple[Violation, ...]) -> tuple[int, int, int]:
    """How badly one alternative missed: the wrong JSON type for the whole instance is worse
    than a wrong ``const`` (the tag of a claim value), which is worse than more errors."""
    shape_missed = any(sub.keyword == "type" and sub.path == error.path for sub in missed)
    tag_missed = any(sub.keyword == "const" for sub in missed)
    return (int(shape_missed), int(tag_missed), len(missed))


def _leaves(error: Violation) -> Iterator[Violation]:
    """The errors that explain a failure. For anyOf/oneOf, the bare "not valid under any of the
    given schemas" names neither the field nor the rule, so report the errors of the one
    alternative the document plainly meant, when there is one."""
    if not error.alternatives:
        yield error
        return
    ranked = sorted(
        (_branch_rank(error, missed), index) for index, missed in enumerate(error.alternatives)
    )
    best_rank, best_index = ranked[0]
    ambiguous = len(ranked) > 1 and ranked[1][0] == best_rank
    if best_rank[0] or ambiguous:
        yield error
        return
    for sub in error.alternatives[best_index]:
        yield from _leaves(sub)


def _describe(error: Violation) -> str:
    return f"{_pointer(error.path)} {error.keyword} {_shorten(error.message)}"


def schema_errors(name: str, document: object, *, limit: int | None = None) -> list[str]:
    """Every schema violation of ``document``, as sorted "<json pointer> <keyword> <message>"
    lines; empty when the document is valid. ``limit``: look at the first ``limit`` violations
    only (in the validator's fixed order), so a huge malformed document costs bounded memory."""
    validator = _validator(_checked_name(name))
    instance: Any = document  # any Python value may arrive here; the schema decides
    if validator.is_valid(instance):
        return []  # the common case, decided without wording (or looking for) a violation
    errors = itertools.islice(validator.iter_errors(instance), limit)
    return sorted({_describe(leaf) for error in errors for leaf in _leaves(error)})


def _model_error(exc: ModelValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    return f"{_pointer(first['loc'])} {first['type']} {_shorten(first['msg'])}"


def _written_by(document: JsonObject) -> str:
    """Which kit wrote a report, said beside its violation: a report of a shape this kit does
    not write (an older kit's, say) is rerun with this kit, never read through a shim."""
    environment = document.get("environment")
    version = environment.get("packageVersion") if isinstance(environment, dict) else None
    if not isinstance(version, str):
        return ""
    return (
        f" (a report written by agentic {_shorten(version)}; this is agentic {__version__}: "
        "rerun it with this kit)"
    )


@overload
def load_document(name: Literal["agent-task"], document: object, *, source: str) -> AgentTask: ...
@overload
def load_document(
    name: Literal["hidden-oracle"], document: object, *, source: str
) -> HiddenOracle: ...
@overload
def load_document(
    name: Literal["final-envelope"], document: object, *, source: str
) -> FinalEnvelope: ...
@overload
def load_document(
    name: Literal["trajectory-receipt"], document: object, *, source: str
) -> TrajectoryReceipt: ...
@overload
def load_document(
    name: Literal["benchmark-report"], document: object, *, source: str
) -> BenchmarkReport: ...
@overload
def load_document(name: str, document: object, *, source: str) -> ContractModel: ...
def load_document(name: str, document: object, *, source: str) -> ContractModel:
    """Schema first, then the model; the first violation becomes a one-line ContractError."""
    checked = _checked_name(name)
    if not isinstance(document, dict):
        # Every document is an object; the type check would repr a (possibly huge) value whole.
        message = f"{reprlib.repr(document)} is not of type 'object'"
        raise ContractError("schema_violation", f"{source}: {_pointer(())} type {message}")
    errors = schema_errors(checked, document, limit=LOAD_ERROR_LIMIT)
    if errors:
        raise ContractError("schema_violation", f"{source}: {errors[0]}{_written_by(document)}")
    return load_model(checked, document, source=source)


def load_model(name: str, document: JsonObject, *, source: str) -> ContractModel:
    """The closed model alone, without the JSON Schema pass: for a reader that only renders a
    document the kit wrote (``agentic view``), where the schema pass would dominate its time on
    a large report. The models are closed too (``extra="forbid"``, strict types), so a document
    they accept has every field the report needs; ``agentic validate`` is the full check."""
    try:
        return model_class(_checked_name(name)).model_validate(document)
    except ModelValidationError as exc:
        message = f"{source}: {_model_error(exc)}{_written_by(document)}"
        raise ContractError("schema_violation", message) from None


@overload
def parse_and_load(name: Literal["agent-task"], data: bytes | str, *, source: str) -> AgentTask: ...
@overload
def parse_and_load(
    name: Literal["hidden-oracle"], data: bytes | str, *, source: str
) -> HiddenOracle: ...
@overload
def parse_and_load(
    name: Literal["final-envelope"], data: bytes | str, *, source: str
) -> FinalEnvelope: ...
@overload
def parse_and_load(
    name: Literal["trajectory-receipt"], data: bytes | str, *, source: str
) -> TrajectoryReceipt: ...
@overload
def parse_and_load(
    name: Literal["benchmark-report"], data: bytes | str, *, source: str
) -> BenchmarkReport: ...
@overload
def parse_and_load(name: str, data: bytes | str, *, source: str) -> ContractModel: ...
def parse_and_load(name: str, data: bytes | str, *, source: str) -> ContractModel:
    """Strict JSON parse, then :func:`load_document`."""
    return load_document(name, parse_strict(data, source=source), source=source)
