"""Observed evidence: the coordinates and exact text that delivered results showed an agent.

Both agents read evidence the same way: a result's projected evidence list, or, for a bundle
whose projection left that list empty, the evidence its content carries (read by the rules the
tool projection used to hide it, ``agentic.tools``). Content that is not strict JSON, or an entry
that could not be cited validly, carries nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TypeGuard

from agentic.contract.errors import ContractError
from agentic.contract.steps import VisibleCall, VisibleEvidence
from agentic.contract.strict_json import parse_strict

BUNDLE_PROJECTION = "gno-context-agent-v1"
_SHA256 = re.compile(r"[a-f0-9]{64}", re.ASCII)


@dataclass(frozen=True)
class Item:
    """One observed evidence item. ``span_hash`` is what the result stated for the text: the
    projected span hash, or a bundle entry's passage hash (None when the entry had none)."""

    uri: str
    source_hash: str
    start_line: int
    end_line: int
    text: str
    span_hash: str | None = field(compare=False)


def from_visible(evidence: VisibleEvidence) -> Item:
    return Item(
        evidence.uri,
        evidence.sourceHash,
        evidence.startLine,
        evidence.endLine,
        evidence.text,
        evidence.spanHash,
    )


def _is_line(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _checked(
    uri: object, start: object, end: object, source: object, text: object, *, span: object
) -> Item | None:
    if not (isinstance(uri, str) and uri.startswith("gno://")):
        return None
    if not (_is_line(start) and _is_line(end) and start <= end):
        return None
    if not (isinstance(source, str) and _SHA256.fullmatch(source)):
        return None
    if not isinstance(text, str):
        return None
    return Item(uri, source, start, end, text, span if isinstance(span, str) else None)


def _tuple_item(value: object) -> Item | None:
    # [uri, startLine, endLine, sourceHash, mirrorHash, passageHash, text, ...]
    if not (isinstance(value, list) and len(value) >= 7):
        return None
    return _checked(value[0], value[1], value[2], value[3], value[6], span=value[5])


def _object_item(value: object) -> Item | None:
    if not isinstance(value, dict):
        return None
    return _checked(
        value.get("uri"),
        value.get("startLine"),
        value.get("endLine"),
        value.get("sourceHash"),
        value.get("text"),
        span=value.get("passageHash", value.get("spanHash")),
    )


def bundle_items(content: str) -> tuple[Item, ...]:
    try:
        payload = parse_strict(content, source="bundle content")
    except ContractError:
        return ()
    if not isinstance(payload, dict):
        return ()
    compact, evidence = payload.get("e"), payload.get("evidence")
    if payload.get("v") == BUNDLE_PROJECTION and isinstance(compact, list):
        found = [_tuple_item(value) for value in compact]
    elif isinstance(evidence, list):
        found = [_object_item(value) for value in evidence]
    else:
        return ()
    return tuple(item for item in found if item is not None)


def call_items(call: VisibleCall) -> tuple[Item, ...]:
    items = tuple(from_visible(evidence) for evidence in call.result.evidence)
    if not items and call.result.resultRole == "evidence_bundle":
        return bundle_items(call.result.content)
    return items
