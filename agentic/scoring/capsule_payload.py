"""Structural check of a replayed Capsule payload (the ``gno-context-agent-v1`` projection).

The promotion gate only trusts a Capsule pair when both passes (scored and replay) produced the
same payload and that payload is a well-formed projection: canonical JSON, its sha256 recorded,
the exact top-level keys ``b c e g id o r t trust v``, at least one evidence tuple, and an
omission total equal to the sum of its per-reason counts. The check is structural; it does not
re-run retrieval.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TypeGuard

from agentic.contract.canonical import canonical_text, sha256_hex
from agentic.contract.report import ReplayPayload

PROJECTION_VERSION = "gno-context-agent-v1"
PAYLOAD_KEYS = frozenset({"b", "c", "e", "g", "id", "o", "r", "t", "trust", "v"})
EGRESS_CLASSES = frozenset({"local_only", "lan", "remote", "unclassified", "unavailable"})
GUIDANCE_SCOPES = frozenset({"global", "collection", "prefix"})
_SHA256 = re.compile(r"[a-f0-9]{64}")


def replay_payload_valid(payload: ReplayPayload) -> bool:
    try:
        parsed = json.loads(payload.canonicalJson)
        canonical = canonical_text(parsed)
    except ValueError:  # not JSON, or not representable as canonical JSON (NaN, huge ints)
        return False
    if canonical != payload.canonicalJson or sha256_hex(canonical) != payload.sha256:
        return False
    return isinstance(parsed, dict) and projection_valid(parsed)


def projection_valid(projection: Mapping[str, object]) -> bool:
    return (
        set(projection) == PAYLOAD_KEYS
        and projection["v"] == PROJECTION_VERSION
        and _is_hash(projection["id"])
        and _budget_valid(projection["b"])
        and _retrieval_valid(projection["r"])
        and _evidence_valid(projection["e"])
        and _guidance_valid(projection["g"])
        and _coverage_valid(projection["c"])
        and _omissions_valid(projection["o"])
        and isinstance(projection["t"], bool)
        and projection["trust"] == "untrusted_data"
    )


def _is_hash(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and _SHA256.fullmatch(value) is not None


def _is_nullable_hash(value: object) -> bool:
    return value is None or _is_hash(value)


def _is_number(value: object) -> TypeGuard[int | float]:
    # json.loads only yields finite numbers here: canonical_text already rejected NaN/Infinity.
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_integer(value: object) -> TypeGuard[int | float]:
    # JSON has one number type; 1e+21 parses as a Python float but is an integer in JSON.
    return _is_number(value) and float(value).is_integer()


def _is_tuple(value: object, length: int) -> TypeGuard[list[object]]:
    return isinstance(value, list) and len(value) == length


def _is_strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _budget_valid(budget: object) -> bool:
    """[requestedTokens, requestedBytes, usedTokens|null, usedBytes|null, unit, tokenizer|null]"""
    return (
        _is_tuple(budget, 6)
        and all(_is_number(value) for value in budget[0:2])
        and all(value is None or _is_number(value) for value in budget[2:4])
        and isinstance(budget[4], str)
        and _is_nullable_hash(budget[5])
    )


def _retrieval_valid(retrieval: object) -> bool:
    """[mode, index fp, config fp, retrieval fp, embedding fp|null, rerank fp|null, stages,
    fallbacks]"""
    return (
        _is_tuple(retrieval, 8)
        and isinstance(retrieval[0], str)
        and all(_is_hash(value) for value in retrieval[1:4])
        and all(_is_nullable_hash(value) for value in retrieval[4:6])
        and _is_strings(retrieval[6])
        and _is_strings(retrieval[7])
    )


def _evidence_item_valid(item: object) -> bool:
    """[uri, start, end, sourceHash, mirrorHash, passageHash, text, title|null, heading|null,
    contextIds, egress]"""
    return (
        _is_tuple(item, 11)
        and isinstance(item[0], str)
        and _is_integer(item[1])
        and _is_integer(item[2])
        and all(_is_hash(value) for value in item[3:6])
        and isinstance(item[6], str)
        and all(value is None or isinstance(value, str) for value in item[7:9])
        and isinstance(item[9], list)
        and all(_is_hash(value) for value in item[9])
        and item[10] in EGRESS_CLASSES
    )


def _evidence_valid(evidence: object) -> bool:
    return (
        isinstance(evidence, list)
        and len(evidence) > 0
        and all(_evidence_item_valid(item) for item in evidence)
    )


def _guidance_item_valid(item: object) -> bool:
    return (
        _is_tuple(item, 4)
        and _is_hash(item[0])
        and item[1] in GUIDANCE_SCOPES
        and isinstance(item[2], str)
        and isinstance(item[3], str)
    )


def _guidance_valid(guidance: object) -> bool:
    return (
        _is_tuple(guidance, 3)
        and guidance[0] == "untrusted_data"
        and guidance[1] == "hard_delimited"
        and isinstance(guidance[2], list)
        and all(_guidance_item_valid(item) for item in guidance[2])
    )


def _coverage_valid(coverage: object) -> bool:
    """[covered facets, [[facet, reason], ...]]"""
    return (
        _is_tuple(coverage, 2)
        and _is_strings(coverage[0])
        and isinstance(coverage[1], list)
        and all(_is_tuple(gap, 2) and _is_strings(gap) for gap in coverage[1])
    )


def _count(pair: object) -> int | float | None:
    """The count of a ``[reason, count > 0]`` pair, or None when the pair is not one."""
    if not (_is_tuple(pair, 2) and isinstance(pair[0], str)):
        return None
    count = pair[1]
    return count if _is_integer(count) and count > 0 else None


def _omissions_valid(omissions: object) -> bool:
    """[total, [[reason, count > 0], ...]] with total == sum of counts."""
    if not _is_tuple(omissions, 2):
        return False
    total, pairs = omissions
    if not (_is_integer(total) and isinstance(pairs, list)):
        return False
    counts = [count for pair in pairs if (count := _count(pair)) is not None]
    return len(counts) == len(pairs) and total >= 0 and total == sum(counts)
