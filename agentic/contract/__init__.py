"""Contract v1.0: models, strict JSON, canonical JSON. Imports nothing else from ``agentic``."""

from agentic.contract.canonical import (
    ZERO_HASH,
    canonical_bytes,
    canonical_text,
    fingerprint,
    sha256_hex,
    stable_pretty_json,
)
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import (
    JsonArray,
    JsonObject,
    JsonValue,
    parse_strict,
    parse_strict_object,
)

__all__ = [
    "ZERO_HASH",
    "ContractError",
    "JsonArray",
    "JsonObject",
    "JsonValue",
    "canonical_bytes",
    "canonical_text",
    "fingerprint",
    "parse_strict",
    "parse_strict_object",
    "sha256_hex",
    "stable_pretty_json",
]
