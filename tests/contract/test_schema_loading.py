"""Loading the published schemas and documents against them (``contract/schemas.py``): a schema
file that is missing, mislabelled or not draft-07 is ``invalid_schema``; a document goes through
strict JSON, then the schema, then the model, and the first violation is one
``schema_violation`` line naming its source.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from agentic import resources
from agentic.contract import schemas
from agentic.contract.errors import ContractError
from agentic.contract.task import AgentTask
from tests.support.fakes import TASK_JSON

TASK_ID = "gno://schemas/evals/agentic/agent-task@1.0"


@pytest.fixture
def schema_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the published schemas that a test may break, read in place of the real ones."""
    copied = tmp_path / "schemas"
    shutil.copytree(resources.schemas_dir(), copied)
    monkeypatch.setattr(resources, "schemas_dir", lambda: copied)
    return copied


def read_error(name: schemas.SchemaName) -> tuple[str, str]:
    with pytest.raises(ContractError) as caught:
        schemas._read_schema(name)
    return caught.value.code, caught.value.message


def test_an_intact_schema_is_read_as_published(schema_dir: Path) -> None:
    schema = schemas._read_schema("agent-task")

    assert schema == json.loads((schema_dir / "agent-task.schema.json").read_text())
    assert schema["$id"] == TASK_ID


@pytest.mark.parametrize("name", schemas.SCHEMA_NAMES)
def test_each_published_schema_is_draft_07_and_its_hash_is_on_record(
    name: schemas.SchemaName,
) -> None:
    # The run-time check of a schema against the metaschema is skipped for these bytes.
    data = schemas.schema_path(name).read_bytes()

    Draft7Validator.check_schema(json.loads(data))
    assert hashlib.sha256(data).hexdigest() == schemas.PUBLISHED_SHA256[name]


def test_a_missing_schema_file_is_invalid_schema(schema_dir: Path) -> None:
    path = schema_dir / "agent-task.schema.json"
    path.unlink()

    assert read_error("agent-task") == ("invalid_schema", f"{path}: No such file or directory")


def test_a_schema_with_another_id_is_invalid_schema(schema_dir: Path) -> None:
    path = schema_dir / "agent-task.schema.json"
    schema = json.loads(path.read_text())
    path.write_text(json.dumps({**schema, "$id": "gno://schemas/evals/agentic/agent-task@2.0"}))

    assert read_error("agent-task") == ("invalid_schema", f"{path}: $id must be {TASK_ID}")


def test_a_schema_that_is_not_an_object_is_invalid_schema(schema_dir: Path) -> None:
    path = schema_dir / "agent-task.schema.json"
    path.write_text("[]")

    assert read_error("agent-task") == ("invalid_schema", f"{path}: $id must be {TASK_ID}")


def test_a_schema_that_is_not_draft_07_is_invalid_schema(schema_dir: Path) -> None:
    path = schema_dir / "agent-task.schema.json"
    path.write_text(json.dumps({"$id": TASK_ID, "type": 5}))

    code, message = read_error("agent-task")

    assert code == "invalid_schema"
    assert message == f"{path}: 5 is not valid under any of the given schemas"


def test_a_valid_draft_07_schema_using_a_keyword_the_kit_does_not_check_is_refused(
    schema_dir: Path,
) -> None:
    # A schema with other bytes than the published ones may be valid draft-07 and still use
    # a keyword contract/draft7.py does not check: it is refused, never half-checked.
    path = schema_dir / "agent-task.schema.json"
    schema = json.loads(path.read_text())
    schema["properties"]["taskId"]["maxLength"] = 8
    path.write_text(json.dumps(schema))
    schemas.load_schemas.cache_clear()
    schemas._validator.cache_clear()
    try:
        with pytest.raises(ContractError) as caught:
            schemas.schema_errors("agent-task", TASK_JSON)
    finally:
        schemas.load_schemas.cache_clear()
        schemas._validator.cache_clear()

    assert caught.value.code == "invalid_schema"
    assert caught.value.message == (
        f"{path}#/properties/taskId: keyword 'maxLength' is not supported"
    )


def test_a_schema_file_is_parsed_strictly(schema_dir: Path) -> None:
    path = schema_dir / "agent-task.schema.json"
    path.write_text(f'{{"$id": "{TASK_ID}", "$id": "{TASK_ID}"}}')

    code, message = read_error("agent-task")

    assert code != "invalid_schema"
    assert message.startswith(str(path))


# --- documents --------------------------------------------------------------------------------


def load_error(data: str, name: str = "agent-task") -> tuple[str, str]:
    with pytest.raises(ContractError) as caught:
        schemas.parse_and_load(name, data, source="task.json")
    return caught.value.code, caught.value.message


def test_a_valid_document_is_parsed_and_loaded_into_its_model() -> None:
    task = schemas.parse_and_load("agent-task", json.dumps(TASK_JSON), source="task.json")

    assert task == AgentTask.model_validate(TASK_JSON)


def test_a_document_is_parsed_as_strict_json_naming_its_source() -> None:
    code, message = load_error('{"taskId": 1, "taskId": 2}')

    assert code == "duplicate_key"
    assert message.startswith("task.json")


def test_the_first_schema_violation_names_the_source_and_the_rule() -> None:
    document = {**TASK_JSON, "taskId": "T1"}

    assert load_error(json.dumps(document)) == (
        "schema_violation",
        "task.json: /taskId pattern 'T1' does not match '^t[0-9a-f]{7}$'",
    )


def test_a_document_the_schema_lets_through_is_still_checked_by_the_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(schemas, "schema_errors", lambda name, document, **options: [])
    document = {**TASK_JSON, "taskId": 7}

    assert load_error(json.dumps(document)) == (
        "schema_violation",
        "task.json: /taskId string_type Input should be a valid string",
    )


def test_an_unknown_schema_name_is_refused() -> None:
    code, message = load_error("{}", name="agent-tasks")

    assert code == "unknown_schema"
    assert message.startswith("unknown schema 'agent-tasks'; expected one of ('agent-task',")


# --- the validator's departures from stock draft-07 -------------------------------------------


def envelope(value: dict[str, object], start_line: object = 3) -> dict[str, object]:
    citation = {
        "uri": "gno://c001/d001.md",
        "sourceHash": "a" * 64,
        "startLine": start_line,
        "endLine": 3,
        "spanHash": "b" * 64,
        "sourceHashProvenance": "harness_observed",
        "spanHashProvenance": "harness_observed",
    }
    claim = {"claimKey": "due", "value": value, "citations": [citation]}
    return {
        "schemaVersion": "1.0",
        "claims": [claim],
        "gaps": [],
        "abstained": False,
        "stopReason": "complete",
    }


def test_a_date_value_must_be_a_calendar_date() -> None:
    good = envelope({"type": "date", "value": "2026-02-28"})
    bad = envelope({"type": "date", "value": "2026-02-30"})

    assert schemas.schema_errors("final-envelope", good) == []
    assert schemas.schema_errors("final-envelope", bad) == [
        "/claims/0/value/value format '2026-02-30' is not a 'date'"
    ]


def test_a_receipt_timestamp_must_be_an_rfc_3339_date_time() -> None:
    report = {"recordedAt": "2026-12-01 10:00:00"}

    errors = schemas.schema_errors("trajectory-receipt", {"observations": report})

    assert "/observations/recordedAt format '2026-12-01 10:00:00' is not a 'date-time'" in errors


def test_an_integer_written_as_a_float_is_refused_inside_a_referenced_schema() -> None:
    # The receipt's envelope is a $ref into the envelope schema: our integer rule holds there too.
    bad = envelope({"type": "string", "value": "x"}, start_line=3.0)

    errors = schemas.schema_errors("trajectory-receipt", {"canonical": {"finalEnvelope": bad}})

    pointer = "/canonical/finalEnvelope/claims/0/citations/0/startLine"
    assert f"{pointer} type 3.0 is not of type 'integer'" in errors


# --- how a violation is described -------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ({"type": "date", "value": 5}, ["/claims/0/value/value type 5 is not of type 'string'"]),
        (
            {"type": "string[]", "value": ["a", 1]},
            ["/claims/0/value/value/1 type 1 is not of type 'string'"],
        ),
        (
            {"type": "number", "value": "1", "x": 1},
            [
                "/claims/0/value additionalProperties Additional properties are not allowed"
                " ('x' was unexpected)",
                "/claims/0/value/value type '1' is not of type 'number'",
            ],
        ),
    ],
)
def test_a_tagged_value_is_judged_by_the_alternative_its_tag_names(
    value: dict[str, object], errors: list[str]
) -> None:
    assert schemas.schema_errors("final-envelope", envelope(value)) == errors


@pytest.mark.parametrize("value", [{"type": "nope", "value": "x"}, "string"])
def test_a_value_no_alternative_plainly_fits_is_named_as_a_whole(value: object) -> None:
    assert schemas.schema_errors("final-envelope", envelope(value)) == [  # type: ignore[arg-type]
        f"/claims/0/value oneOf {value!r} is not valid under any of the given schemas"
    ]


def test_pointer_tokens_escape_slash_and_tilde() -> None:
    oracle = json.loads(next((resources.default_fixture_dir() / "oracles").iterdir()).read_text())
    oracle["expectedScope"]["filters"] = {"a/b~c": [1]}

    errors = schemas.schema_errors("hidden-oracle", oracle)

    assert (
        "/expectedScope/filters/a~1b~0c type [1] is not of type 'string', 'number', 'boolean'"
        in (errors)
    )


def test_a_long_message_is_cut_to_one_bounded_line() -> None:
    task = {**TASK_JSON, "taskId": "x" * 300}

    (error,) = schemas.schema_errors("agent-task", task)

    assert error.startswith("/taskId pattern 'xxx")
    assert len(error) == len("/taskId pattern ") + 200
    assert error.endswith("x…")
