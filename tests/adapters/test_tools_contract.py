"""The frozen tool contract (contract v1, 3) and the agent-visible projection of a result."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from agentic.contract.canonical import canonical_bytes, canonical_text, sha256_hex
from agentic.contract.json_access import member, object_at, str_at
from agentic.contract.receipt import ToolEvidence, ToolResult
from agentic.contract.steps import VisibleEvidence
from agentic.tools import (
    TOOL_NAMES,
    TOOLS_FINGERPRINT,
    argument_errors,
    project_result,
    tool_definitions,
    tools_fingerprint,
    visible_bytes,
)

PINNED = "962605265a83834284686f2f41838c358bd1c2d67632efcdfb0897abdb58f484"


def evidence(line: int, text: str, *, backend: bool = False) -> ToolEvidence:
    return ToolEvidence(
        uri="gno://c001/d001.md",
        sourceHash="a" * 64,
        startLine=line,
        endLine=line,
        spanHash=sha256_hex(text),
        sourceHashProvenance="backend_provided" if backend else "harness_observed",
        spanHashProvenance="harness_observed",
        text=text,
        backendSourceHash="b" * 64 if backend else None,
        backendSpanHash="c" * 64 if backend else None,
        backendHashUnavailableReason=None if backend else "no backend hashes",
    )


ITEMS = (evidence(3, "Launch: 2026-09-14", backend=True), evidence(4, "Owner: Priya"))


def result(
    role: str = "source", content: str = "text", items: tuple[ToolEvidence, ...] = ITEMS
) -> ToolResult:
    return ToolResult.model_validate(
        {
            "status": "ok",
            "resultRole": role,
            "content": content,
            "evidence": [e.to_json() for e in items],
            "errorCode": None,
        }
    )


def context_payload(items: tuple[ToolEvidence, ...]) -> str:
    tuples: list[list[Any]] = [
        [
            e.uri,
            e.startLine,
            e.endLine,
            e.sourceHash,
            e.sourceHash,
            e.spanHash,
            e.text,
            None,
            None,
            [],
            "unavailable",
        ]
        for e in items
    ]
    return canonical_text({"v": "gno-context-agent-v1", "e": tuples})


# --- definitions --------------------------------------------------------------------------------


def test_the_tools_fingerprint_is_the_contracts() -> None:
    assert tools_fingerprint() == TOOLS_FINGERPRINT == PINNED


def test_the_fingerprint_is_sha256_of_the_canonical_definitions_sorted_by_name() -> None:
    definitions = sorted(tool_definitions(), key=lambda tool: str_at(tool, "name"))

    assert hashlib.sha256(canonical_bytes(definitions)).hexdigest() == PINNED


def test_the_tools_are_get_multi_get_and_search_with_their_descriptions() -> None:
    assert [(t["name"], t["description"]) for t in tool_definitions()] == [
        ("get", "Read one source or exact inclusive line range."),
        ("multi_get", "Read multiple sources by URI."),
        ("search", "Search task-visible sources with optional scope."),
    ]
    assert TOOL_NAMES == ("get", "multi_get", "search")


def test_every_input_schema_is_a_closed_object_with_one_required_field() -> None:
    required = {str_at(t, "name"): member(t, "inputSchema", "required") for t in tool_definitions()}

    assert required == {"get": ["uri"], "multi_get": ["uris"], "search": ["query"]}
    for tool in tool_definitions():
        assert object_at(tool, "inputSchema")["type"] == "object"
        assert object_at(tool, "inputSchema")["additionalProperties"] is False


def test_callers_get_copies_so_the_contract_cannot_be_mutated() -> None:
    object_at(tool_definitions()[0], "inputSchema", "properties", "uri")["type"] = "number"

    assert tools_fingerprint() == PINNED


# --- argument validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get", {"uri": "gno://c001/a.md"}),
        ("get", {"uri": "gno://c001/a.md", "fromLine": 3, "lineCount": 1}),
        ("multi_get", {"uris": ["gno://c001/a.md"], "maxBytes": 100}),
        (
            "search",
            {
                "query": "x",
                "collection": "c001",
                "filters": {"lang": "en"},
                "limit": 5,
                "minScore": 0.5,
                "queryModes": [{}],
                "fast": True,
                "tagsAny": ["a"],
            },
        ),
    ],
)
def test_arguments_within_the_schema_have_no_error(tool: str, arguments: dict[str, Any]) -> None:
    assert argument_errors(tool, arguments) == []


def test_argument_errors_name_the_path_and_rule_sorted() -> None:
    errors = argument_errors("get", {"uri": 3, "fromLine": 0})

    assert errors == [
        "/fromLine minimum 0 is less than the minimum of 1",
        "/uri type 3 is not of type 'string'",
    ]


def test_an_unknown_tool_is_one_argument_error() -> None:
    assert argument_errors("delete", {}) == ["unknown tool 'delete'"]


# --- projection ---------------------------------------------------------------------------------


def test_the_projection_drops_every_backend_field_and_keeps_the_rest() -> None:
    projected = project_result(result()).to_json()

    assert projected["evidence"] == [
        {key: value for key, value in e.to_json().items() if not key.startswith("backend")}
        for e in ITEMS
    ]
    assert {k: projected[k] for k in ("status", "resultRole", "content", "errorCode")} == {
        "status": "ok",
        "resultRole": "source",
        "content": "text",
        "errorCode": None,
    }
    shown = canonical_text(projected)
    assert "b" * 64 not in shown and "c" * 64 not in shown and "no backend hashes" not in shown


def test_visible_evidence_has_no_field_for_backend_hashes() -> None:
    assert not [name for name in VisibleEvidence.model_fields if name.startswith("backend")]


def test_a_bundle_whose_payload_carries_every_item_is_not_charged_twice() -> None:
    bundle = result("evidence_bundle", context_payload(ITEMS))

    assert project_result(bundle).evidence == ()


def test_a_bundle_whose_evidence_objects_carry_every_item_is_not_charged_twice() -> None:
    objects = [
        {"uri": e.uri, "startLine": e.startLine, "endLine": e.endLine, "passageHash": e.spanHash}
        for e in ITEMS
    ]
    bundle = result("evidence_bundle", json.dumps({"evidence": objects}))

    assert project_result(bundle).evidence == ()


def test_a_bundle_missing_one_item_from_its_payload_shows_the_evidence() -> None:
    bundle = result("evidence_bundle", context_payload(ITEMS[:1]))

    assert len(project_result(bundle).evidence) == 2


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"v": "other", "e": []}'])
def test_a_bundle_whose_content_is_not_a_known_payload_shows_the_evidence(content: str) -> None:
    assert len(project_result(result("evidence_bundle", content)).evidence) == 2


def test_only_bundles_hide_evidence() -> None:
    candidates = result("candidates", context_payload(ITEMS))

    assert len(project_result(candidates).evidence) == 2


def test_visible_bytes_are_the_utf8_size_of_the_canonical_projection() -> None:
    shown = result(content="Größe: 3 €")

    expected = len(canonical_text(project_result(shown).to_json()).encode("utf-8"))
    assert visible_bytes(shown) == expected
    assert expected > len(canonical_text(project_result(shown).to_json()))


def test_an_error_result_projects_its_code() -> None:
    failed = ToolResult(
        status="error", resultRole="candidates", content="", evidence=(), errorCode="gno_timeout"
    )

    assert project_result(failed).to_json() == {
        "status": "error",
        "resultRole": "candidates",
        "content": "",
        "evidence": [],
        "errorCode": "gno_timeout",
    }
