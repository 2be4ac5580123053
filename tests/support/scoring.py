"""Small builders of contract objects for scoring tests.

Everything is built from plain contract JSON and validated by the real models, so a test reads
like the files it stands for. Totals of a receipt are derived from its calls, so a factory
receipt is accounting-clean unless a test overrides a field on purpose.
"""

from __future__ import annotations

from typing import Any

from agentic.contract.canonical import canonical_text, sha256_hex
from agentic.contract.envelope import Evidence, FinalEnvelope
from agentic.contract.oracle import HiddenOracle
from agentic.contract.receipt import Call, CanonicalReceipt, ToolEvidence, ToolResult
from agentic.contract.report import CapsuleReplay, ReplayPayload, ScoreRecord, TaskScore
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask
from agentic.scoring.score import score_receipt
from agentic.tools import visible_bytes

TASK_ID = "t0a1b2c3"
COLLECTION = "c001"
DOC_URI = "gno://c001/d001.md"
DOC_TEXT = "# Policy\n\nOwner: Data Platform\nReviewed yearly.\n"
SOURCE_HASH = sha256_hex(DOC_TEXT)
HASH_A = "a" * 64
HASH_B = "b" * 64


def line_evidence(
    line: int = 3,
    text: str = "Owner: Data Platform",
    *,
    uri: str = DOC_URI,
    provenance: str = "harness_observed",
) -> Evidence:
    return Evidence.model_validate(
        {
            "uri": uri,
            "sourceHash": SOURCE_HASH,
            "startLine": line,
            "endLine": line,
            "spanHash": sha256_hex(text),
            "sourceHashProvenance": provenance,
            "spanHashProvenance": provenance,
        }
    )


def tool_evidence(coordinate: Evidence, text: str = "Owner: Data Platform") -> ToolEvidence:
    return ToolEvidence.model_validate(
        {
            **coordinate.to_json(),
            "text": text,
            "backendSourceHash": None,
            "backendSpanHash": None,
            "backendHashUnavailableReason": "not provided by this backend",
        }
    )


def claim_definition(
    key: str = "owner",
    value_type: str = "string",
    *,
    substantive: bool = True,
    required: bool = True,
) -> JsonObject:
    return {
        "claimKey": key,
        "valueType": value_type,
        "substantive": substantive,
        "required": required,
    }


def make_task(
    claims: list[JsonObject] | None = None, *, max_calls: int = 3, max_bytes: int = 12000
) -> AgentTask:
    return AgentTask.model_validate(
        {
            "schemaVersion": "1.0",
            "taskId": TASK_ID,
            "category": "exact_identifier",
            "brief": {"goal": "Find the owner.", "instructions": ["Cite the line."]},
            "claims": claims if claims is not None else [claim_definition()],
            "allowedTools": ["get", "multi_get", "search"],
            "budgets": {"maxAgentCalls": max_calls, "maxModelVisibleBytes": max_bytes},
            "corpus": {"collections": [COLLECTION]},
        }
    )


def oracle_claim(
    key: str = "owner",
    value: Any = "Data Platform",
    value_type: str = "string",
    *,
    normalizer: str = "exact-v1",
    required: list[Evidence] | None = None,
    optional: list[Evidence] | None = None,
    forbidden: list[Evidence] | None = None,
) -> JsonObject:
    return {
        "claimKey": key,
        "expectedValue": {"type": value_type, "value": value},
        "normalizer": {"id": normalizer, "version": 1},
        "requiredEvidence": [e.to_json() for e in (required or [line_evidence()])],
        "optionalEvidence": [e.to_json() for e in (optional or [])],
        "forbiddenEvidence": [e.to_json() for e in (forbidden or [])],
    }


def make_oracle(
    claims: list[JsonObject] | None = None,
    *,
    expected_missing: tuple[str, ...] = (),
    collection: str | None = None,
    filters: JsonObject | None = None,
    expect_abstention: bool = False,
    max_calls: int = 3,
    max_bytes: int = 12000,
    fail_on_unexpected: bool = False,
    task_id: str = TASK_ID,
) -> HiddenOracle:
    return HiddenOracle.model_validate(
        {
            "schemaVersion": "1.0",
            "taskId": task_id,
            "claims": claims if claims is not None else [oracle_claim()],
            "expectedMissing": list(expected_missing),
            "expectedScope": {"collection": collection, "filters": filters or {}},
            "completion": {
                "expectAbstention": expect_abstention,
                "maxAgentCalls": max_calls,
                "maxModelVisibleBytes": max_bytes,
                "failOnUnexpectedEvidence": fail_on_unexpected,
            },
            "leakCanaries": [f"oracle-only-{task_id}-9f7c2a"],
        }
    )


def make_result(
    evidence: list[Evidence] | None = None,
    *,
    role: str = "source",
    content: str = "Owner: Data Platform",
    error_code: str | None = None,
) -> ToolResult:
    return ToolResult.model_validate(
        {
            "status": "ok" if error_code is None else "error",
            "resultRole": role,
            "content": content,
            "evidence": [tool_evidence(e).to_json() for e in (evidence or [])],
            "errorCode": error_code,
        }
    )


def make_call(
    index: int,
    result: ToolResult | None = None,
    *,
    tool: str = "get",
    arguments: JsonObject | None = None,
    delivered: bool = True,
    failure_code: str | None = None,
    backend: int = 1,
    tokens: int | None = None,
    tokenizer: str | None = None,
    charged: int | None = None,
) -> Call:
    result = result or make_result([line_evidence()])
    default_bytes = visible_bytes(result) if delivered else 0
    return Call.model_validate(
        {
            "callIndex": index,
            "toolName": tool,
            "arguments": arguments if arguments is not None else {"uri": DOC_URI},
            "result": result.to_json(),
            "deliveredToAgent": delivered,
            "failureCode": failure_code,
            "modelVisibleUtf8Bytes": default_bytes if charged is None else charged,
            "measuredTokens": tokens,
            "tokenizerFingerprint": tokenizer,
            "backendInvocations": backend,
        }
    )


def make_claim(
    key: str = "owner",
    value: Any = "Data Platform",
    value_type: str = "string",
    citations: list[Evidence] | None = None,
) -> JsonObject:
    cited = [line_evidence()] if citations is None else citations
    return {
        "claimKey": key,
        "value": {"type": value_type, "value": value},
        "citations": [e.to_json() for e in cited],
    }


def make_envelope(
    claims: list[JsonObject] | None = None,
    gaps: list[JsonObject] | None = None,
    *,
    abstained: bool = False,
    stop_reason: str = "complete",
) -> FinalEnvelope:
    return FinalEnvelope.model_validate(
        {
            "schemaVersion": "1.0",
            "claims": claims if claims is not None else [make_claim()],
            "gaps": gaps or [],
            "abstained": abstained,
            "stopReason": stop_reason,
        }
    )


def abstention_envelope(key: str = "owner") -> FinalEnvelope:
    return make_envelope(
        [],
        [{"claimKey": key, "reason": "missing_evidence"}],
        abstained=True,
        stop_reason="abstained",
    )


CAPABILITIES: JsonObject = {
    "backendInvocationAccounting": True,
    "startupTiming": True,
    "modelLoadTiming": False,
    "toolTiming": True,
    "tools": {"search": "supported", "get": "supported", "multi_get": "supported"},
    "exactLineSpans": "supported",
    "measuredTokens": "unavailable",
    "backendHashes": "unsupported",
    "lifecycle": {"cold": "supported", "warm": "supported"},
}


def fingerprints(**overrides: str) -> dict[str, str]:
    base = {name: sha256_hex(name) for name in ("corpus", "prompt", "tools", "model", "runtime")}
    base |= {"config": HASH_A, "index": HASH_B}
    return base | overrides


def make_receipt(
    calls: list[Call] | None = None,
    envelope: FinalEnvelope | str | None = "default",
    *,
    failure_class: str = "none",
    failure_code: str | None = None,
    adapter: str = "lexical",
    lifecycle: str = "cold",
    trial: str = "fixture-01",
    seed: int | None = 0,
    task_id: str = TASK_ID,
    fingerprint_overrides: dict[str, str] | None = None,
    **overrides: Any,
) -> CanonicalReceipt:
    """A receipt whose totals agree with its calls; ``overrides`` replace canonical fields."""
    calls = [make_call(0)] if calls is None else calls
    final = make_envelope() if envelope == "default" else envelope
    delivered = [c for c in calls if c.deliveredToAgent]
    measured = [c.measuredTokens for c in delivered]
    tokens = (
        sum(t for t in measured if t is not None) if measured and None not in measured else None
    )
    data: JsonObject = {
        "schemaVersion": "1.0",
        "taskId": task_id,
        "adapterId": adapter,
        "trialId": trial,
        "seed": seed,
        "lifecycle": lifecycle,
        "agentId": "fixture-agent-v1",
        "capabilities": CAPABILITIES,
        "calls": [c.to_json() for c in calls],
        "agentCalls": len(calls),
        "backendInvocations": sum(c.backendInvocations for c in calls),
        "modelVisibleUtf8Bytes": sum(c.modelVisibleUtf8Bytes for c in calls),
        "measuredTokens": tokens,
        "finalEnvelope": None if not isinstance(final, FinalEnvelope) else final.to_json(),
        "stopReason": final.stopReason if isinstance(final, FinalEnvelope) else "error",
        "failure": {"class": failure_class, "code": failure_code, "redactedMessage": None},
        "fingerprints": dict(fingerprints(**(fingerprint_overrides or {}))),
    }
    return CanonicalReceipt.model_validate(data | overrides)


def score(receipt: CanonicalReceipt, **oracle: Any) -> TaskScore:
    """``receipt`` scored against the default task and ``make_oracle(**oracle)``."""
    return score_receipt(receipt, make_task(), make_oracle(**oracle))


def score_record(receipt: CanonicalReceipt, score: TaskScore) -> ScoreRecord:
    return ScoreRecord.model_validate(
        {
            "taskId": receipt.taskId,
            "adapterId": receipt.adapterId,
            "trialId": receipt.trialId,
            "seed": receipt.seed,
            "lifecycle": receipt.lifecycle,
            "agentId": receipt.agentId,
            "score": score.to_json(),
        }
    )


def plain_score(
    *,
    success: int = 1,
    substantive: int = 1,
    linked: int = 1,
    unsupported_substantive: tuple[str, ...] = (),
    scored: bool = True,
    task_id: str = TASK_ID,
) -> TaskScore:
    """A score with the fields promotion reads set directly, the rest neutral."""
    return TaskScore.model_validate(
        {
            "taskId": task_id,
            "scored": scored,
            "exclusionReason": None if scored else "harness_error",
            "success": success,
            "completed": bool(success),
            "supportedClaims": [],
            "unsupportedClaims": list(unsupported_substantive),
            "unsupportedSubstantiveClaims": list(unsupported_substantive),
            "missingRequiredClaims": [],
            "forbiddenEvidenceClaims": [],
            "invalidOutputs": [],
            "correctAbstention": False,
            "prematureStop": False,
            "unnecessaryRead": False,
            "collectionCorrect": True,
            "filtersCorrect": True,
            "substantiveClaims": substantive,
            "linkedSupportedClaims": linked,
        }
    )


def capsule_projection(**overrides: Any) -> JsonObject:
    """A well-formed gno-context-agent-v1 payload with one evidence tuple and 3 omissions."""
    line = line_evidence()
    projection: JsonObject = {
        "v": "gno-context-agent-v1",
        "id": HASH_A,
        "b": [3000, 12000, None, None, "model_visible_utf8", None],
        "r": ["fast", HASH_A, HASH_B, HASH_A, None, None, ["lexicalSearch"], []],
        "e": [
            [
                line.uri,
                3,
                3,
                line.sourceHash,
                line.sourceHash,
                line.spanHash,
                "Owner: Data Platform",
                None,
                None,
                [],
                "unavailable",
            ]
        ],
        "g": ["untrusted_data", "hard_delimited", []],
        "c": [["owner"], [["team", "facet_not_found"]]],
        "o": [3, [["duplicate", 1], ["redundant_coverage", 2]]],
        "t": False,
        "trust": "untrusted_data",
    }
    return projection | overrides


def payload_text(projection: JsonObject | None = None) -> str:
    return canonical_text(projection if projection is not None else capsule_projection())


def replay_payload(text: str | None = None) -> ReplayPayload:
    text = payload_text() if text is None else text
    return ReplayPayload(canonicalJson=text, sha256=sha256_hex(text))


def bundle_call(index: int = 0, payload: str | None = None, *, delivered: bool = True) -> Call:
    result = make_result(
        [line_evidence()],
        role="evidence_bundle",
        content=payload_text() if payload is None else payload,
    )
    return make_call(
        index,
        result,
        tool="search",
        arguments={"query": "owner", "collection": COLLECTION},
        delivered=delivered,
        failure_code=None if delivered else "tool_timeout",
    )


def make_replay(
    receipt: CanonicalReceipt,
    first: ReplayPayload | None = None,
    second: ReplayPayload | None = None,
    **overrides: Any,
) -> CapsuleReplay:
    data = {
        "taskId": receipt.taskId,
        "adapterId": "capsule",
        "trialId": receipt.trialId,
        "seed": receipt.seed,
        "lifecycle": receipt.lifecycle,
        "agentId": receipt.agentId,
        "first": (first or replay_payload()).to_json(),
        "second": (second or replay_payload()).to_json(),
    }
    return CapsuleReplay.model_validate(data | overrides)
