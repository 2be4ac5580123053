"""The fixture agent's cue table: data shipped beside a fixture, parsed strictly and closed.

Format (docs/design.md, "The fixture on disk")::

    {"schemaVersion": "1.1",
     "agentId": "fixture-agent-v1",
     "claims": {"<claimKey>": {"cues": ["preferred cue", ...],
                               "template": "Standard: {0}; Regulated: {1}",
                               "pattern": "\\\\buse\\\\s+(.+?)(?:\\\\s+for\\\\b|[.;]|$)",
                               "select": "all"}}}

- ``cues``: non-empty list of unique, non-blank, lowercase strings without control characters
  (they are matched as substrings of lowercased lines, and the first one becomes part of a
  single-line search query, so anything else could never match or would break the query).
- ``template`` (optional): literal text with ``{0}``, ``{1}``, ... placeholders, indices
  ``0..n-1`` all used; any other brace is an error, so there is no escaping to get wrong.
- ``pattern`` (optional): a Python regular expression with at least one group, compiled with
  ``re.IGNORECASE | re.ASCII`` so that ``\\b``, ``\\w`` and ``\\d`` are ASCII, as in the
  reference's non-unicode JavaScript regexes. ``template`` and ``pattern`` exclude each other.
  In a 1.0 table a pattern serves string claims only; from 1.1 it serves every value type
  (``agentic.agents.fixture_agent`` says how each type reads the group).
- ``select`` (optional, 1.1 only): which cued lines the claim reads, ``first``, ``last`` or
  ``all``, instead of the rule the task's category and goal words imply.

A table's version decides its behaviour, and its bytes are part of the agent's fingerprint, so a
1.0 table reads exactly as it did before 1.1 existed and no committed receipt moves.

Every violation raises ``ContractError("invalid_cue_table", ...)`` naming the JSON pointer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from agentic.contract.errors import ContractError
from agentic.contract.strict_json import parse_strict_object

SCHEMA_VERSION = "1.1"
LEGACY_VERSION = "1.0"
SELECTIONS = ("first", "last", "all")
AGENT_ID = "fixture-agent-v1"
PATTERN_FLAGS = re.IGNORECASE | re.ASCII

_TOP_KEYS = frozenset({"schemaVersion", "agentId", "claims"})
_CLAIM_KEYS = {
    LEGACY_VERSION: frozenset({"cues", "template", "pattern"}),
    SCHEMA_VERSION: frozenset({"cues", "template", "pattern", "select"}),
}
_CLAIM_KEY = re.compile(r"[a-z][a-zA-Z0-9]*", re.ASCII)
_PLACEHOLDER = re.compile(r"\{(0|[1-9][0-9]*)\}", re.ASCII)


@dataclass(frozen=True)
class Template:
    """A parsed template: literal text and placeholder indices, in order."""

    source: str
    parts: tuple[str | int, ...]
    arity: int

    def render(self, values: tuple[str, ...]) -> str | None:
        """The filled template, or None when there are fewer values than placeholders."""
        if len(values) < self.arity:
            return None
        return "".join(values[part] if isinstance(part, int) else part for part in self.parts)


@dataclass(frozen=True)
class ClaimCues:
    cues: tuple[str, ...]
    template: Template | None = None
    pattern: re.Pattern[str] | None = None
    select: str | None = None
    version: str = SCHEMA_VERSION

    @property
    def typed_pattern(self) -> bool:
        """Whether the pattern reads every value type (1.1) or strings only (1.0)."""
        return self.pattern is not None and self.version != LEGACY_VERSION

    @property
    def preferred(self) -> str:
        return self.cues[0]


@dataclass(frozen=True)
class CueTable:
    claims: Mapping[str, ClaimCues]
    version: str = SCHEMA_VERSION

    def get(self, claim_key: str) -> ClaimCues | None:
        return self.claims.get(claim_key)


def _error(pointer: str, message: str) -> ContractError:
    return ContractError("invalid_cue_table", f"cue table {pointer or '/'}: {message}")


def _check_keys(value: Mapping[str, object], allowed: frozenset[str], pointer: str) -> None:
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise _error(f"{pointer}/{unknown[0]}", "unknown field")


def _parse_cue(value: object, pointer: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _error(pointer, "a cue must be a non-blank string")
    if value != value.lower():
        raise _error(pointer, f"cue {value!r} must be lowercase")
    if any(unicodedata.category(ch) == "Cc" for ch in value):
        raise _error(pointer, f"cue {value!r} must not contain control characters")
    return value


def _parse_cues(value: object, pointer: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise _error(pointer, "cues must be a non-empty array")
    cues = tuple(_parse_cue(item, f"{pointer}/{index}") for index, item in enumerate(value))
    for index, cue in enumerate(cues):
        if cue in cues[:index]:
            raise _error(f"{pointer}/{index}", f"duplicate cue {cue!r}")
    return cues


def parse_template(source: str, pointer: str = "") -> Template:
    parts: list[str | int] = []
    position = 0
    for match in _PLACEHOLDER.finditer(source):
        parts.append(source[position : match.start()])
        parts.append(int(match.group(1)))
        position = match.end()
    parts.append(source[position:])
    literals = [part for part in parts if isinstance(part, str)]
    if any("{" in text or "}" in text for text in literals):
        raise _error(pointer, "a brace outside a {N} placeholder")
    indices = {part for part in parts if isinstance(part, int)}
    if not indices:
        raise _error(pointer, "a template needs at least one {N} placeholder")
    if indices != set(range(len(indices))):
        raise _error(pointer, f"placeholders must be numbered 0..{len(indices) - 1}")
    return Template(source, tuple(part for part in parts if part != ""), len(indices))


def _parse_pattern(source: str, pointer: str) -> re.Pattern[str]:
    try:
        compiled = re.compile(source, PATTERN_FLAGS)
    except re.error as exc:
        raise _error(pointer, f"invalid regular expression: {exc}") from None
    if compiled.groups < 1:
        raise _error(pointer, "a pattern needs at least one capturing group")
    return compiled


def _parse_select(value: object, pointer: str) -> str | None:
    if value is None:
        return None
    if value not in SELECTIONS:
        raise _error(pointer, f"select must be one of {', '.join(SELECTIONS)}")
    return str(value)


def _parse_claim(value: object, pointer: str, version: str) -> ClaimCues:
    if not isinstance(value, dict):
        raise _error(pointer, "a claim entry must be an object")
    _check_keys(value, _CLAIM_KEYS[version], pointer)
    if "cues" not in value:
        raise _error(pointer, "missing field cues")
    if "template" in value and "pattern" in value:
        raise _error(pointer, "template and pattern exclude each other")
    template = value.get("template")
    pattern = value.get("pattern")
    for name, field in (("template", template), ("pattern", pattern)):
        if name in value and not isinstance(field, str):
            raise _error(f"{pointer}/{name}", f"{name} must be a string")
    return ClaimCues(
        cues=_parse_cues(value["cues"], f"{pointer}/cues"),
        template=None if template is None else parse_template(template, f"{pointer}/template"),
        pattern=None if pattern is None else _parse_pattern(pattern, f"{pointer}/pattern"),
        select=_parse_select(value.get("select"), f"{pointer}/select"),
        version=version,
    )


def _parse_claims(value: object, version: str) -> dict[str, ClaimCues]:
    if not isinstance(value, dict):
        raise _error("/claims", "claims must be an object")
    claims: dict[str, ClaimCues] = {}
    for key in sorted(value):
        pointer = f"/claims/{key.replace('~', '~0').replace('/', '~1')}"
        if _CLAIM_KEY.fullmatch(key) is None:
            raise _error(pointer, "a claim key must match ^[a-z][a-zA-Z0-9]*$")
        claims[key] = _parse_claim(value[key], pointer, version)
    return claims


def parse_cue_table(data: bytes) -> CueTable:
    """Parse and check a cue file's raw bytes; fails closed on any deviation from the format."""
    value = parse_strict_object(data, source="cue table", code="invalid_cue_table")
    _check_keys(value, _TOP_KEYS, "")
    missing = sorted(_TOP_KEYS - set(value))
    if missing:
        raise _error("", f"missing field {missing[0]}")
    version = value["schemaVersion"]
    if version not in _CLAIM_KEYS:
        raise _error("/schemaVersion", f"must be {LEGACY_VERSION!r} or {SCHEMA_VERSION!r}")
    if value["agentId"] != AGENT_ID:
        raise _error("/agentId", f"must be {AGENT_ID!r}")
    return CueTable(MappingProxyType(_parse_claims(value["claims"], version)), version)
