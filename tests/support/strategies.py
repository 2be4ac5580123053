"""Hypothesis strategies that generate VALID documents of each of the five contracts.

They follow contract-v1.md, not the schemas or the models, so that a disagreement between the
two (or with the contract) shows up as a failing example. Sizes stay small to keep runs fast.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from hypothesis import strategies as st

from agentic.contract.strict_json import JsonArray, JsonObject, JsonValue

Draw = st.DrawFn

sha256 = st.from_regex(r"[a-f0-9]{64}", fullmatch=True)
task_ids = st.from_regex(r"t[0-9a-f]{7}", fullmatch=True)
claim_keys = st.from_regex(r"[a-z][a-zA-Z0-9]{0,6}", fullmatch=True)
collections = st.from_regex(r"c[0-9a-f]{3}", fullmatch=True)
tool_names = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)
# JSON text cannot carry lone surrogates (the strict parser rejects them), so neither do we:
# every character UTF-8 can encode, which is every one but a surrogate.
json_characters = st.characters(codec="utf-8")
texts = st.text(json_characters, max_size=12)
non_empty_texts = st.text(json_characters, min_size=1, max_size=12)
safe_ints = st.integers(min_value=-(2**53 - 1), max_value=2**53 - 1)
non_negative_ints = st.integers(min_value=0, max_value=2**53 - 1)
positive_ints = st.integers(min_value=1, max_value=2**31)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
numbers = safe_ints | finite_floats
non_negative_numbers = non_negative_ints | st.floats(min_value=0, allow_infinity=False)
seeds = st.none() | safe_ints
lifecycles = st.sampled_from(["cold", "warm"])
failure_classes = st.sampled_from(["none", "harness_error", "agent_error", "product_error"])
stop_reasons = st.sampled_from(
    ["complete", "abstained", "budget_exhausted", "tool_unavailable", "error"]
)
provenances = st.sampled_from(["harness_observed", "backend_provided"])
capability_states = st.sampled_from(["supported", "unsupported", "unavailable"])
dates = st.dates().map(dt.date.isoformat)
date_times = st.datetimes(timezones=st.just(dt.UTC)).map(dt.datetime.isoformat)
json_values = st.recursive(
    st.none() | st.booleans() | safe_ints | finite_floats | texts,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(texts, children, max_size=3),
    max_leaves=6,
)


def _unique_list(elements: st.SearchStrategy[Any], *, min_size: int = 0) -> Any:
    return st.lists(elements, min_size=min_size, max_size=4, unique=True)


def _nullable(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


def _json_lists(
    elements: st.SearchStrategy[JsonValue], *, max_size: int
) -> st.SearchStrategy[JsonArray]:
    """``st.lists`` as JSON arrays: a ``list[str]`` is no ``JsonArray`` (a list is invariant)."""
    return st.lists(elements, max_size=max_size)


@st.composite
def claim_values(draw: Draw) -> JsonObject:
    kind = draw(st.sampled_from(["string", "number", "boolean", "string[]", "date", "identifier"]))
    values: dict[str, st.SearchStrategy[Any]] = {
        "string": texts,
        "number": numbers,
        "boolean": st.booleans(),
        "string[]": _unique_list(texts),
        "date": dates,
        "identifier": non_empty_texts,
    }
    return {"type": kind, "value": draw(values[kind])}


@st.composite
def evidences(draw: Draw) -> JsonObject:
    # Any two positive lines: a reversed range is a semantic issue, not a schema violation.
    return {
        "uri": "gno://" + draw(texts),
        "sourceHash": draw(sha256),
        "startLine": draw(positive_ints),
        "endLine": draw(positive_ints),
        "spanHash": draw(sha256),
        "sourceHashProvenance": draw(provenances),
        "spanHashProvenance": draw(provenances),
    }


@st.composite
def tasks(draw: Draw) -> JsonObject:
    claim = st.fixed_dictionaries(
        {
            "claimKey": claim_keys,
            "valueType": st.sampled_from(
                ["string", "number", "boolean", "string[]", "date", "identifier"]
            ),
            "substantive": st.booleans(),
            "required": st.booleans(),
        }
    )
    return {
        "schemaVersion": "1.0",
        "taskId": draw(task_ids),
        "category": draw(
            st.sampled_from(
                [
                    "exact_identifier",
                    "ambiguity",
                    "multi_document_comparison",
                    "meeting_decision",
                    "temporal",
                    "typed_relationship",
                    "code_documentation",
                    "multilingual",
                    "missing_evidence",
                ]
            )
        ),
        "brief": {
            "goal": draw(non_empty_texts),
            "instructions": draw(st.lists(non_empty_texts, min_size=1, max_size=3)),
        },
        "claims": draw(st.lists(claim, min_size=1, max_size=3)),
        "allowedTools": draw(_unique_list(tool_names, min_size=1)),
        "budgets": {
            "maxAgentCalls": draw(positive_ints),
            "maxModelVisibleBytes": draw(positive_ints),
        },
        "corpus": {"collections": draw(_unique_list(collections, min_size=1))},
    }


@st.composite
def oracles(draw: Draw) -> JsonObject:
    evidence_lists = st.lists(evidences(), max_size=2)
    claim = st.fixed_dictionaries(
        {
            "claimKey": claim_keys,
            "expectedValue": claim_values(),
            "normalizer": st.fixed_dictionaries(
                {
                    "id": st.sampled_from(
                        [
                            "exact-v1",
                            "trim-lower-v1",
                            "identifier-v1",
                            "iso-date-v1",
                            "string-set-v1",
                        ]
                    ),
                    "version": st.just(1),
                }
            ),
            "requiredEvidence": evidence_lists,
            "optionalEvidence": evidence_lists,
            "forbiddenEvidence": evidence_lists,
        }
    )
    filter_values = texts | numbers | st.booleans()
    return {
        "schemaVersion": "1.0",
        "taskId": draw(task_ids),
        "claims": draw(st.lists(claim, max_size=2)),
        "expectedMissing": draw(_unique_list(claim_keys)),
        "expectedScope": {
            "collection": draw(_nullable(collections)),
            "filters": draw(st.dictionaries(claim_keys, filter_values, max_size=3)),
        },
        "completion": {
            "expectAbstention": draw(st.booleans()),
            "maxAgentCalls": draw(positive_ints),
            "maxModelVisibleBytes": draw(positive_ints),
            "failOnUnexpectedEvidence": draw(st.booleans()),
        },
        "leakCanaries": draw(_unique_list(st.text(json_characters, min_size=8, max_size=16))),
    }


@st.composite
def envelopes(draw: Draw) -> JsonObject:
    claim: st.SearchStrategy[JsonObject] = st.fixed_dictionaries(
        {
            "claimKey": claim_keys,
            "value": claim_values(),
            "citations": _json_lists(evidences(), max_size=2),
        }
    )
    gap: st.SearchStrategy[JsonObject] = st.fixed_dictionaries(
        {
            "claimKey": claim_keys,
            "reason": st.sampled_from(
                ["missing_evidence", "conflicting_evidence", "budget_exhausted", "tool_unavailable"]
            ),
        }
    )
    return {
        "schemaVersion": "1.0",
        "claims": draw(_json_lists(claim, max_size=3)),
        "gaps": draw(_json_lists(gap, max_size=2)),
        "abstained": draw(st.booleans()),
        "stopReason": draw(stop_reasons),
    }


@st.composite
def tool_evidences(draw: Draw) -> JsonObject:
    backend = draw(st.booleans())
    return {
        **draw(evidences()),
        "text": draw(texts),
        "backendSourceHash": draw(sha256) if backend else None,
        "backendSpanHash": draw(sha256) if backend else None,
        "backendHashUnavailableReason": None if backend else draw(texts),
    }


@st.composite
def tool_results(draw: Draw) -> JsonObject:
    status = draw(st.sampled_from(["ok", "error"]))
    return {
        "status": status,
        "resultRole": draw(st.sampled_from(["candidates", "source", "evidence_bundle"])),
        "content": draw(texts),
        "evidence": draw(_json_lists(tool_evidences(), max_size=2)),
        "errorCode": None if status == "ok" else draw(non_empty_texts),
    }


@st.composite
def calls(draw: Draw) -> JsonObject:
    return {
        "callIndex": draw(non_negative_ints),
        "toolName": draw(texts),
        "arguments": draw(st.dictionaries(texts, json_values, max_size=3)),
        "result": draw(tool_results()),
        "deliveredToAgent": draw(st.booleans()),
        "failureCode": draw(_nullable(texts)),
        "modelVisibleUtf8Bytes": draw(non_negative_ints),
        "measuredTokens": draw(_nullable(non_negative_ints)),
        "tokenizerFingerprint": draw(_nullable(sha256)),
        "backendInvocations": draw(non_negative_ints),
    }


@st.composite
def timings(draw: Draw) -> JsonObject:
    if draw(st.booleans()):
        return {"valueMs": draw(non_negative_numbers), "unavailableReason": None}
    return {"valueMs": None, "unavailableReason": draw(non_empty_texts)}


@st.composite
def processes(draw: Draw) -> JsonObject:
    if draw(st.booleans()):
        return {"peakRssBytes": draw(non_negative_ints), "unavailableReason": None}
    return {"peakRssBytes": None, "unavailableReason": draw(non_empty_texts)}


@st.composite
def receipts(draw: Draw) -> JsonObject:
    capabilities = {
        "backendInvocationAccounting": draw(st.booleans()),
        "startupTiming": draw(st.booleans()),
        "modelLoadTiming": draw(st.booleans()),
        "toolTiming": draw(st.booleans()),
        "tools": {name: draw(capability_states) for name in ("search", "get", "multi_get")},
        "exactLineSpans": draw(capability_states),
        "measuredTokens": draw(capability_states),
        "backendHashes": draw(capability_states),
        "lifecycle": {"cold": draw(capability_states), "warm": draw(capability_states)},
    }
    fingerprint_names = ("corpus", "prompt", "tools", "model", "runtime", "config", "index")
    canonical = {
        "schemaVersion": "1.0",
        "taskId": draw(task_ids),
        "adapterId": draw(texts),
        "trialId": draw(texts),
        "seed": draw(seeds),
        "lifecycle": draw(lifecycles),
        "agentId": draw(texts),
        "capabilities": capabilities,
        "calls": draw(st.lists(calls(), max_size=2)),
        "agentCalls": draw(non_negative_ints),
        "backendInvocations": draw(non_negative_ints),
        "modelVisibleUtf8Bytes": draw(non_negative_ints),
        "measuredTokens": draw(_nullable(non_negative_ints)),
        "finalEnvelope": draw(_nullable(envelopes())),
        "stopReason": draw(stop_reasons),
        "failure": {
            "class": draw(failure_classes),
            "code": draw(_nullable(texts)),
            "redactedMessage": draw(_nullable(texts)),
        },
        "fingerprints": {name: draw(sha256) for name in fingerprint_names},
    }
    timing_names = ("preparation", "startup", "modelLoad", "tool", "driver", "endToEnd")
    observations: JsonObject = {
        "recordedAt": draw(date_times),
        "timings": {name: draw(timings()) for name in timing_names},
        "process": draw(processes()),
        "tempPaths": draw(_json_lists(texts, max_size=2)),
        "diagnostics": draw(_json_lists(texts, max_size=2)),
    }
    return {"schemaVersion": "1.0", "canonical": canonical, "observations": observations}


@st.composite
def _identities(draw: Draw, *, adapter: st.SearchStrategy[str] = texts) -> JsonObject:
    return {
        "taskId": draw(task_ids),
        "adapterId": draw(adapter),
        "trialId": draw(texts),
        "seed": draw(seeds),
        "lifecycle": draw(lifecycles),
        "agentId": draw(texts),
    }


@st.composite
def task_scores(draw: Draw) -> JsonObject:
    string_lists = st.lists(texts, max_size=2)
    return {
        "taskId": draw(task_ids),
        "scored": draw(st.booleans()),
        "exclusionReason": draw(_nullable(texts)),
        "success": draw(st.sampled_from([0, 1])),
        "completed": draw(st.booleans()),
        **{
            name: draw(string_lists)
            for name in (
                "supportedClaims",
                "unsupportedClaims",
                "unsupportedSubstantiveClaims",
                "missingRequiredClaims",
                "forbiddenEvidenceClaims",
                "invalidOutputs",
            )
        },
        **{
            name: draw(st.booleans())
            for name in (
                "correctAbstention",
                "prematureStop",
                "unnecessaryRead",
                "collectionCorrect",
                "filtersCorrect",
            )
        },
        "substantiveClaims": draw(non_negative_ints),
        "linkedSupportedClaims": draw(non_negative_ints),
    }


@st.composite
def _replay_payloads(draw: Draw) -> JsonObject:
    return {
        "canonicalJson": draw(st.text(json_characters, min_size=2, max_size=16)),
        "sha256": draw(sha256),
    }


@st.composite
def _promotions(draw: Draw) -> JsonObject:
    rates = (
        "baselineSuccessRate",
        "candidateSuccessRate",
        "agentCallReduction",
        "contextByteReduction",
        "claimLinkageRate",
        "unsupportedClaimReduction",
    )
    counts = ("baselineUnsupportedClaims", "candidateUnsupportedClaims")
    metrics = {name: draw(_nullable(numbers)) for name in rates}
    metrics.update({name: draw(_nullable(non_negative_ints)) for name in counts})
    return {
        "passed": draw(st.booleans()),
        "pairCount": draw(non_negative_ints),
        "failures": draw(_json_lists(texts, max_size=2)),
        "metrics": metrics,
    }


@st.composite
def _environments(draw: Draw) -> JsonObject:
    environment = {
        "packageVersion": draw(texts),
        "bunVersion": draw(_nullable(texts)),
        "platform": draw(texts),
        "architecture": draw(texts),
        "git": {
            "commit": draw(_nullable(st.from_regex(r"[a-f0-9]{40}", fullmatch=True))),
            "dirty": draw(_nullable(st.booleans())),
            "unavailableReason": draw(_nullable(texts)),
        },
        "fixtureVersion": draw(texts),
        "agentId": draw(texts),
        "trials": draw(
            st.lists(
                st.fixed_dictionaries({"trialId": texts, "seed": seeds}), min_size=1, max_size=2
            )
        ),
    }
    if draw(st.booleans()):  # our optional extension
        environment["pythonVersion"] = draw(_nullable(texts))
    return environment


@st.composite
def reports(draw: Draw) -> JsonObject:
    detail_values = st.none() | st.booleans() | numbers | texts
    preparation: st.SearchStrategy[JsonObject] = st.fixed_dictionaries(
        {
            "adapterId": texts,
            "corpusFingerprint": sha256,
            "indexFingerprint": sha256,
            "observations": st.fixed_dictionaries(
                {
                    "preparationMs": _nullable(numbers),
                    "preparationUnavailableReason": _nullable(texts),
                    "details": st.dictionaries(texts, detail_values, max_size=3),
                }
            ),
        }
    )
    exclusion = st.builds(
        lambda ident, cls, reason: {**ident, "failureClass": cls, "reason": reason},
        _identities(),
        failure_classes,
        texts,
    )
    score = st.builds(lambda ident, s: {**ident, "score": s}, _identities(), task_scores())
    replay = st.builds(
        lambda ident, first, second: {**ident, "first": first, "second": second},
        _identities(adapter=st.just("capsule")),
        _replay_payloads(),
        _replay_payloads(),
    )
    report: JsonObject = {
        "schemaVersion": "1.0",
        "benchmarkId": "agentic-retrieval@1",
        "canonicalFingerprint": draw(sha256),
        "fixtureFingerprint": draw(sha256),
        "environment": draw(_environments()),
        "methodology": draw(_json_lists(texts, max_size=2)),
        "limitations": draw(_json_lists(texts, max_size=2)),
        "preparations": draw(_json_lists(preparation, max_size=2)),
        "attemptedPairs": draw(non_negative_ints),
        "scoredPairs": draw(non_negative_ints),
        "exclusions": draw(_json_lists(exclusion, max_size=2)),
        "receipts": draw(_json_lists(receipts(), max_size=1)),  # receipts are tested on their own
        "scores": draw(_json_lists(score, max_size=2)),
        "capsuleReplays": draw(_json_lists(replay, max_size=1)),
        "promotion": draw(_nullable(_promotions())),
    }
    if draw(st.booleans()):  # our optional extension
        report["resultsFingerprint"] = draw(_nullable(sha256))
    return report


DOCUMENTS: dict[str, st.SearchStrategy[JsonObject]] = {
    "agent-task": tasks(),
    "hidden-oracle": oracles(),
    "final-envelope": envelopes(),
    "trajectory-receipt": receipts(),
    "benchmark-report": reports(),
}
