"""Canonical JSON (RFC 8785 via ``rfc8785``) and sha256 fingerprints.

Canonical bytes are what every fingerprint in the kit hashes. Anything that is not plain JSON
(tuples, sets, non-string keys, NaN, integers beyond 2^53-1, lone surrogates) raises instead of
being coerced, so a fingerprint can never silently depend on a Python accident.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

import rfc8785

from agentic.contract.errors import ContractError

MAX_SAFE_INTEGER = 2**53 - 1
ZERO_HASH = "0" * 64
# Any surrogate code point in a Python str is unpaired (pairs decode to one code point).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _check(value: Any, pointer: str) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise ContractError("non_json_value", f"integer beyond 2^53-1 at {pointer or '/'}")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ContractError("non_json_value", f"non-finite number at {pointer or '/'}")
        return
    if isinstance(value, str):
        if not value.isascii() and _LONE_SURROGATE.search(value):
            raise ContractError("non_json_value", f"lone surrogate at {pointer or '/'}")
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            _check(item, f"{pointer}/{index}")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ContractError("non_json_value", f"non-string key {key!r} at {pointer or '/'}")
            _check(key, pointer)
            _check(item, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
        return
    raise ContractError(
        "non_json_value", f"{type(value).__name__} is not a JSON value at {pointer or '/'}"
    )


def canonical_bytes(value: Any) -> bytes:
    """RFC 8785 canonical UTF-8 bytes of a plain JSON value."""
    _check(value, "")
    result: bytes = rfc8785.dumps(value)
    return result


def canonical_text(value: Any) -> str:
    return canonical_bytes(value).decode("utf-8")


def sha256_hex(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def fingerprint(value: Any) -> str:
    """Lowercase sha256 hex of the canonical bytes."""
    return sha256_hex(canonical_bytes(value))


def stable_pretty_json(value: Any) -> str:
    """Human-readable JSON whose key order and number spelling are the canonical ones."""
    reparsed = json.loads(canonical_bytes(value))
    return json.dumps(reparsed, indent=2, ensure_ascii=False) + "\n"
