"""Smallest hand-written valid documents of the five contracts, and JSON-pointer edits on them.

Each builder returns a fresh document, so a test can edit it freely. Together they contain every
object shape of the contract at least once (a call with backend hashes, a non-null envelope with a
citation and a gap, a non-null promotion...), which the walk-every-object tests rely on.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from agentic.contract.strict_json import JsonObject

HASH_A = "a" * 64
HASH_B = "b" * 64
TASK_ID = "t0a1b2c3"


def evidence(start: int = 3, end: int = 4) -> JsonObject:
    return {
        "uri": "gno://c001/d001.md",
        "sourceHash": HASH_A,
        "startLine": start,
        "endLine": end,
        "spanHash": HASH_B,
        "sourceHashProvenance": "harness_observed",
        "spanHashProvenance": "harness_observed",
    }


def task() -> JsonObject:
    return {
        "schemaVersion": "1.0",
        "taskId": TASK_ID,
        "category": "temporal",
        "brief": {"goal": "Find the launch date.", "instructions": ["Cite exact lines."]},
        "claims": [
            {"claimKey": "launchDate", "valueType": "date", "substantive": True, "required": True},
            {"claimKey": "owner", "valueType": "string", "substantive": False, "required": False},
        ],
        "allowedTools": ["search", "get", "multi_get"],
        "budgets": {"maxAgentCalls": 3, "maxModelVisibleBytes": 12000},
        "corpus": {"collections": ["c001", "c002"]},
    }


def oracle() -> JsonObject:
    return {
        "schemaVersion": "1.0",
        "taskId": TASK_ID,
        "claims": [
            {
                "claimKey": "launchDate",
                "expectedValue": {"type": "date", "value": "2026-09-14"},
                "normalizer": {"id": "iso-date-v1", "version": 1},
                "requiredEvidence": [evidence()],
                "optionalEvidence": [],
                "forbiddenEvidence": [evidence(7, 7)],
            }
        ],
        "expectedMissing": ["owner"],
        "expectedScope": {"collection": "c001", "filters": {"lang": "en"}},
        "completion": {
            "expectAbstention": False,
            "maxAgentCalls": 3,
            "maxModelVisibleBytes": 12000,
            "failOnUnexpectedEvidence": False,
        },
        "leakCanaries": ["oracle-only-t0a1b2c3-9f7c2a"],
    }


def envelope() -> JsonObject:
    return {
        "schemaVersion": "1.0",
        "claims": [
            {
                "claimKey": "launchDate",
                "value": {"type": "date", "value": "2026-09-14"},
                "citations": [evidence()],
            }
        ],
        "gaps": [{"claimKey": "owner", "reason": "missing_evidence"}],
        "abstained": False,
        "stopReason": "complete",
    }


def tool_evidence(*, backend: bool = True) -> JsonObject:
    return {
        **evidence(),
        "text": "Launch: 2026-09-14\nOwner: n/a",
        "backendSourceHash": HASH_A if backend else None,
        "backendSpanHash": HASH_B if backend else None,
        "backendHashUnavailableReason": None if backend else "backend returns no hashes",
    }


def timing(value: float | None = 1.5) -> JsonObject:
    if value is None:
        return {"valueMs": None, "unavailableReason": "not measured"}
    return {"valueMs": value, "unavailableReason": None}


def receipt() -> JsonObject:
    state = "supported"
    return {
        "schemaVersion": "1.0",
        "canonical": {
            "schemaVersion": "1.0",
            "taskId": TASK_ID,
            "adapterId": "lexical",
            "trialId": "fixture-01",
            "seed": 0,
            "lifecycle": "cold",
            "agentId": "fixture-agent-v1",
            "capabilities": {
                "backendInvocationAccounting": True,
                "startupTiming": True,
                "modelLoadTiming": False,
                "toolTiming": True,
                "tools": {"search": state, "get": state, "multi_get": state},
                "exactLineSpans": state,
                "measuredTokens": "unavailable",
                "backendHashes": "unsupported",
                "lifecycle": {"cold": state, "warm": state},
            },
            "calls": [
                {
                    "callIndex": 0,
                    "toolName": "search",
                    "arguments": {"query": "launch", "filters": {"lang": "en"}},
                    "result": {
                        "status": "ok",
                        "resultRole": "candidates",
                        "content": "1 hit",
                        "evidence": [tool_evidence()],
                        "errorCode": None,
                    },
                    "deliveredToAgent": True,
                    "failureCode": None,
                    "modelVisibleUtf8Bytes": 420,
                    "measuredTokens": None,
                    "tokenizerFingerprint": None,
                    "backendInvocations": 1,
                }
            ],
            "agentCalls": 1,
            "backendInvocations": 1,
            "modelVisibleUtf8Bytes": 420,
            "measuredTokens": None,
            "finalEnvelope": envelope(),
            "stopReason": "complete",
            "failure": {"class": "none", "code": None, "redactedMessage": None},
            "fingerprints": {
                name: HASH_A
                for name in ("corpus", "prompt", "tools", "model", "runtime", "config", "index")
            },
        },
        "observations": {
            "recordedAt": "2026-07-22T10:00:00.000Z",
            "timings": {
                "preparation": timing(12.25),
                "startup": timing(3),
                "modelLoad": timing(None),
                "tool": timing(0.5),
                "driver": timing(0),
                "endToEnd": timing(20.125),
            },
            "process": {"peakRssBytes": None, "unavailableReason": "peak RSS not sampled"},
            "tempPaths": ["<temp>"],
            "diagnostics": [],
        },
    }


def identity() -> JsonObject:
    return {
        "taskId": TASK_ID,
        "adapterId": "capsule",
        "trialId": "fixture-01",
        "seed": 0,
        "lifecycle": "cold",
        "agentId": "fixture-agent-v1",
    }


def task_score() -> JsonObject:
    return {
        "taskId": TASK_ID,
        "scored": True,
        "exclusionReason": None,
        "success": 1,
        "completed": True,
        "supportedClaims": ["launchDate"],
        "unsupportedClaims": [],
        "unsupportedSubstantiveClaims": [],
        "missingRequiredClaims": [],
        "forbiddenEvidenceClaims": [],
        "invalidOutputs": [],
        "correctAbstention": False,
        "prematureStop": False,
        "unnecessaryRead": False,
        "collectionCorrect": True,
        "filtersCorrect": True,
        "substantiveClaims": 1,
        "linkedSupportedClaims": 1,
    }


def report() -> JsonObject:
    payload: JsonObject = {"canonicalJson": "{}", "sha256": HASH_A}
    return {
        "schemaVersion": "1.0",
        "benchmarkId": "agentic-retrieval@1",
        "canonicalFingerprint": HASH_A,
        "resultsFingerprint": HASH_B,
        "fixtureFingerprint": HASH_B,
        "environment": {
            "packageVersion": "0.1.0",
            "bunVersion": None,
            "pythonVersion": "3.11.7",
            "platform": "linux",
            "architecture": "x64",
            "git": {
                "commit": "0123456789abcdef0123456789abcdef01234567",
                "dirty": False,
                "unavailableReason": None,
            },
            "fixtureVersion": "2026-07-22.1",
            "agentId": "fixture-agent-v1",
            "trials": [{"trialId": "fixture-01", "seed": 0}],
        },
        "methodology": ["Deterministic fixture agent."],
        "limitations": ["Synthetic corpus."],
        "preparations": [
            {
                "adapterId": "capsule",
                "corpusFingerprint": HASH_B,
                "indexFingerprint": HASH_A,
                "observations": {
                    "preparationMs": 703.015,
                    "preparationUnavailableReason": None,
                    "details": {
                        "documents": 34,
                        "tokenizer": "snowball english",
                        "vectors": False,
                        "model": None,
                    },
                },
            }
        ],
        "attemptedPairs": 2,
        "scoredPairs": 1,
        "exclusions": [
            {
                **identity(),
                "lifecycle": "warm",
                "failureClass": "harness_error",
                "reason": "warm_cohort_corrupted",
            }
        ],
        "receipts": [receipt()],
        "scores": [{**identity(), "score": task_score()}],
        "capsuleReplays": [{**identity(), "first": payload, "second": dict(payload)}],
        "promotion": {
            "passed": False,
            "pairCount": 1,
            "failures": ["paired_cohort_empty"],
            "metrics": {
                "baselineSuccessRate": 1,
                "candidateSuccessRate": 0.5,
                "agentCallReduction": None,
                "contextByteReduction": -0.25,
                "claimLinkageRate": None,
                "baselineUnsupportedClaims": 2,
                "candidateUnsupportedClaims": None,
                "unsupportedClaimReduction": None,
            },
        },
    }


BUILDERS = {
    "agent-task": task,
    "hidden-oracle": oracle,
    "final-envelope": envelope,
    "trajectory-receipt": receipt,
    "benchmark-report": report,
}

# The contract's only open maps: any key may appear in them (and below them).
OPEN_MAPS = {
    "hidden-oracle": ("/expectedScope/filters",),
    "trajectory-receipt": ("/canonical/calls/0/arguments",),
    "benchmark-report": (
        "/preparations/0/observations/details",
        "/receipts/0/canonical/calls/0/arguments",
    ),
}
# Fields that may be absent: our extensions of the reference report.
OPTIONAL_FIELDS = {"/resultsFingerprint", "/environment/pythonVersion"}


def _tokens(pointer: str) -> list[str]:
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]


def _parent(document: Any, pointer: str) -> tuple[Any, str | int]:
    *parents, last = _tokens(pointer)
    node = document
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node, (int(last) if isinstance(node, list) else last)


def with_value(document: Any, pointer: str, value: Any) -> Any:
    """A copy of ``document`` with ``value`` set at ``pointer`` (added if the key is new)."""
    result = copy.deepcopy(document)
    node, key = _parent(result, pointer)
    node[key] = value
    return result


def without(document: Any, pointer: str) -> Any:
    """A copy of ``document`` with the member at ``pointer`` removed."""
    result = copy.deepcopy(document)
    node, key = _parent(result, pointer)
    del node[key]
    return result


def object_pointers(document: Any, pointer: str = "") -> Iterator[str]:
    """The pointer of every object in ``document``, outermost first ("" is the root)."""
    if isinstance(document, dict):
        yield pointer
        for key, value in document.items():
            yield from object_pointers(value, f"{pointer}/{key}")
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from object_pointers(value, f"{pointer}/{index}")


def member_pointers(document: Any, pointer: str = "") -> Iterator[str]:
    """The pointer of every member of every object in ``document``."""
    if isinstance(document, dict):
        for key, value in document.items():
            yield f"{pointer}/{key}"
            yield from member_pointers(value, f"{pointer}/{key}")
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from member_pointers(value, f"{pointer}/{index}")


def inside_open_map(name: str, pointer: str) -> bool:
    """Whether ``pointer`` lies strictly inside one of the open maps of contract ``name``."""
    return any(pointer.startswith(root + "/") for root in OPEN_MAPS.get(name, ()))


def is_open_map(name: str, pointer: str) -> bool:
    """Whether ``pointer`` is an open map itself or lies inside one."""
    return pointer in OPEN_MAPS.get(name, ()) or inside_open_map(name, pointer)
