"""Capsule query planning (contract v1, 5.2 step 1): only agent-visible inputs are used.

- ``query`` = NFKC of the agent query, whitespace runs collapsed to one space, trimmed.
- Terms are runs of letters, numbers, ``_`` and ``-`` in the lowercased text.
- Claim terms come from each claim key split at camelCase boundaries (``retentionPeriod`` ->
  ``retention period``).
- ``facets`` = unique query and claim terms of at least 2 UTF-16 code units, sorted by code unit.
- ``variants`` = unique non-empty ``[query, "query", "facet"...]`` (a quoted variant doubles any
  inner quote). A variant the FTS grammar rejects (a facet of only hyphens, say) is dropped here,
  so every planned variant is one real lexical search.

The agent's query is held to the grammar's size cap (``fts_query.MAX_QUERY_BYTES``) as sent,
before it is normalized: normalizing megabytes only to refuse them would be the unbounded work
the cap exists to prevent.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.fts_query import check_query_size, compile_query
from agentic.contract.jsrules import utf16_key

_WHITESPACE = re.compile(r"\s+")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")


@dataclass(frozen=True)
class CapsulePlan:
    query: str
    facets: tuple[str, ...]
    variants: tuple[str, ...]


def normalize_text(text: str) -> str:
    """NFKC, lowercased: the form facets are matched against."""
    return unicodedata.normalize("NFKC", text).lower()


def _term_char(ch: str) -> bool:
    return ch in "_-" or unicodedata.category(ch)[0] in "LN"


def terms(text: str) -> list[str]:
    """Maximal runs of letters, numbers, ``_`` and ``-`` of the lowercased text, in order."""
    found: list[str] = []
    current: list[str] = []
    for ch in text.lower():
        if _term_char(ch):
            current.append(ch)
        elif current:
            found.append("".join(current))
            current = []
    if current:
        found.append("".join(current))
    return found


def claim_terms(claim_key: str) -> list[str]:
    return terms(_CAMEL.sub(r"\1 \2", claim_key))


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _compiles(variant: str) -> bool:
    try:
        compile_query(variant)
    except AdapterCallError:
        return False
    return True


def plan_query(raw_query: str, claim_keys: tuple[str, ...]) -> CapsulePlan:
    """The plan of one capsule search; the agent's own query must be valid for the grammar."""
    check_query_size(raw_query)
    query = _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", raw_query)).strip()
    compile_query(query)  # the agent's query obeys the same grammar as a lexical search
    candidates = terms(query) + [t for key in claim_keys for t in claim_terms(key)]
    facets = tuple(sorted({t for t in candidates if _utf16_length(t) >= 2}, key=utf16_key))
    variants: list[str] = []
    for variant in (query, quoted(query), *(quoted(f) for f in facets)):
        if variant and variant not in variants and _compiles(variant):
            variants.append(variant)
    return CapsulePlan(query=query, facets=facets, variants=tuple(variants))
