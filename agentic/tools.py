"""The one frozen tool contract (search / get / multi_get) and the agent-visible projection.

Every adapter lists exactly these definitions; the fingerprint below is the contract's and a test
pins it. The projection is the only path by which a tool result reaches an agent: it drops every
evaluator-only field (backend hashes and their reasons), and its canonical UTF-8 size is what the
byte budget charges.
"""

from __future__ import annotations

import json
from functools import cache
from types import MappingProxyType

from agentic.contract.canonical import canonical_bytes, canonical_text, fingerprint
from agentic.contract.draft7 import Draft7
from agentic.contract.receipt import ToolEvidence, ToolResult
from agentic.contract.steps import VisibleEvidence, VisibleResult
from agentic.contract.strict_json import JsonObject

TOOLS_FINGERPRINT = "962605265a83834284686f2f41838c358bd1c2d67632efcdfb0897abdb58f484"
TOOL_NAMES: tuple[str, ...] = ("get", "multi_get", "search")

_STRING: JsonObject = {"type": "string"}
_STRINGS: JsonObject = {"type": "array", "items": {"type": "string"}}
_BOOLEAN: JsonObject = {"type": "boolean"}
_POSITIVE: JsonObject = {"type": "integer", "minimum": 1}

_DEFINITIONS: tuple[JsonObject, ...] = (
    {
        "name": "get",
        "description": "Read one source or exact inclusive line range.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": False,
            "required": ["uri"],
            "properties": {"uri": _STRING, "fromLine": _POSITIVE, "lineCount": _POSITIVE},
        },
    },
    {
        "name": "multi_get",
        "description": "Read multiple sources by URI.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": False,
            "required": ["uris"],
            "properties": {
                "uris": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                "maxBytes": _POSITIVE,
            },
        },
    },
    {
        "name": "search",
        "description": "Search task-visible sources with optional scope.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": False,
            "required": ["query"],
            "properties": {
                "query": _STRING,
                "collection": _STRING,
                "filters": {"type": "object"},
                "limit": _POSITIVE,
                "minScore": {"type": "number"},
                "lang": _STRING,
                "intent": _STRING,
                "candidateLimit": _POSITIVE,
                "exclude": _STRINGS,
                "since": _STRING,
                "until": _STRING,
                "categories": _STRINGS,
                "author": _STRING,
                "queryModes": {"type": "array", "items": {"type": "object"}},
                "fast": _BOOLEAN,
                "thorough": _BOOLEAN,
                "expand": _BOOLEAN,
                "rerank": _BOOLEAN,
                "graph": _BOOLEAN,
                "tagsAll": _STRINGS,
                "tagsAny": _STRINGS,
            },
        },
    },
)

# Frozen by serialization: callers always receive fresh copies, so nobody can mutate the contract.
_FROZEN_TEXT = canonical_text(list(_DEFINITIONS))


def tool_definitions() -> list[JsonObject]:
    """A fresh copy of the frozen definitions, sorted by name."""
    definitions: list[JsonObject] = json.loads(_FROZEN_TEXT)
    return definitions


def tools_fingerprint() -> str:
    return fingerprint(sorted(tool_definitions(), key=lambda tool: str(tool["name"])))


@cache
def _validators() -> MappingProxyType[str, Draft7]:
    validators = {}
    for tool in tool_definitions():
        name, schema = str(tool["name"]), tool["inputSchema"]
        assert isinstance(schema, dict)
        validators[name] = Draft7(schema, source=f"the input schema of {name}")
    return MappingProxyType(validators)


def argument_errors(tool_name: str, arguments: object) -> list[str]:
    """Schema errors of one call's arguments (empty when valid); an unknown tool is one error."""
    validator = _validators().get(tool_name)
    if validator is None:
        return [f"unknown tool {tool_name!r}"]
    messages = []
    for error in validator.iter_errors(arguments):
        path = "/" + "/".join(str(part) for part in error.path)
        messages.append(f"{path} {error.keyword} {error.message}")
    return sorted(messages)


def _bundle_carries_evidence(result: ToolResult) -> bool:
    """True when a bundle's content already holds every evidence item, so it is charged once."""
    try:
        payload = json.loads(result.content)
    except ValueError:
        return False
    if not isinstance(payload, dict):
        return False
    carried: set[tuple[str, int, int, str]] = set()
    if payload.get("v") == "gno-context-agent-v1" and isinstance(payload.get("e"), list):
        for item in payload["e"]:
            if isinstance(item, list) and len(item) >= 6:
                carried.add((str(item[0]), _as_int(item[1]), _as_int(item[2]), str(item[5])))
    elif isinstance(payload.get("evidence"), list):
        for item in payload["evidence"]:
            if isinstance(item, dict):
                span = item.get("passageHash", item.get("spanHash"))
                carried.add(
                    (
                        str(item.get("uri")),
                        _as_int(item.get("startLine")),
                        _as_int(item.get("endLine")),
                        str(span),
                    )
                )
    needed = {(e.uri, e.startLine, e.endLine, e.spanHash) for e in result.evidence}
    return needed <= carried


def _as_int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def _visible(evidence: ToolEvidence) -> VisibleEvidence:
    """The coordinate and text of one evidence item; its backend fields stay behind."""
    # Each field of the visible model is read from the evidence attribute of the same name.
    return VisibleEvidence.model_validate(evidence, from_attributes=True)


def project_result(result: ToolResult) -> VisibleResult:
    """The agent-visible view of a result: no backend hashes, bundles not charged twice."""
    hide = result.resultRole == "evidence_bundle" and _bundle_carries_evidence(result)
    evidence = () if hide else tuple(_visible(e) for e in result.evidence)
    return VisibleResult(
        status=result.status,
        resultRole=result.resultRole,
        content=result.content,
        evidence=evidence,
        errorCode=result.errorCode,
    )


def visible_bytes(result: ToolResult) -> int:
    """UTF-8 bytes of the canonical projected result: what the byte budget charges."""
    return len(canonical_bytes(project_result(result).to_json()))
