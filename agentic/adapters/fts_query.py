"""The agent query grammar, compiled to an SQLite FTS5 MATCH expression (contract v1, 5.1).

Grammar, applied to the query string as the agent sent it:

- The query must be non-empty (not only whitespace), a single line (no CR or LF) and hold an
  even number of double quotes; anything else is ``invalid_search_query``.
- Terms are whitespace-separated tokens or ``"quoted phrases"``; a leading ``-`` negates a term.
- A plain token is sanitized (keep letters, numbers, apostrophe and underscore; lowercase) and
  becomes a prefix term ``"tok"*``.
- A quoted phrase becomes a phrase of its sanitized words, without prefix: ``"a b"``.
- A hyphen or plus compound (``a-b``, ``a+b``) becomes the phrase ``"a b"``.
- Positive terms are joined with ``AND``; each negative term is appended as ``NOT term``. A
  query whose only terms are negative is invalid, and so is one with no usable term at all.

One deliberate refinement: a term whose sanitized form holds no letter or number (``'`` or
``_`` alone) is dropped, because FTS5's unicode61 tokenizer would turn it into an empty phrase
that matches nothing and, joined with ``AND``, would silently empty the whole result.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from agentic.adapters.errors import AdapterCallError

INVALID_QUERY = "invalid_search_query"

# A quoted phrase (optionally negated) or a bare run of non-space characters.
_TERM = re.compile(r'(-?)"([^"]*)"|(\S+)')
_COMPOUND = re.compile(r"[-+]")


@dataclass(frozen=True)
class _Term:
    expression: str
    negated: bool


def _invalid(reason: str) -> AdapterCallError:
    return AdapterCallError(INVALID_QUERY, "product_error", f"invalid search query: {reason}")


def _keeps(ch: str) -> bool:
    return ch in "'_" or unicodedata.category(ch)[0] in "LN"


def _indexable(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def sanitize(word: str) -> str:
    """Keep letters, numbers, ' and _, lowercased; '' when nothing indexable is left."""
    kept = "".join(ch for ch in word if _keeps(ch)).lower()
    return kept if any(_indexable(ch) for ch in kept) else ""


def _phrase(words: list[str]) -> str | None:
    clean = [w for w in (sanitize(word) for word in words) if w]
    return '"' + " ".join(clean) + '"' if clean else None


def _bare_term(token: str) -> str | None:
    parts = [p for p in (sanitize(part) for part in _COMPOUND.split(token)) if p]
    if not parts:
        return None
    if len(parts) == 1:
        return f'"{parts[0]}"*'
    return '"' + " ".join(parts) + '"'


def _terms(query: str) -> list[_Term]:
    terms: list[_Term] = []
    for match in _TERM.finditer(query):
        negation, phrase, bare = match.group(1), match.group(2), match.group(3)
        if phrase is not None:
            expression = _phrase(phrase.split())
            negated = negation == "-"
        else:
            negated = bare.startswith("-") and len(bare) > 1
            expression = _bare_term(bare[1:] if negated else bare)
        if expression is not None:
            terms.append(_Term(expression, negated))
    return terms


def compile_query(query: str) -> str:
    """The FTS5 MATCH expression of an agent query; raises ``invalid_search_query``."""
    if not query.strip():
        raise _invalid("empty query")
    if "\n" in query or "\r" in query:
        raise _invalid("query must be a single line")
    if query.count('"') % 2:
        raise _invalid("unbalanced double quotes")
    terms = _terms(query)
    positives = [t.expression for t in terms if not t.negated]
    negatives = [t.expression for t in terms if t.negated]
    if not positives:
        reason = "a negated term needs a positive term" if negatives else "no searchable term"
        raise _invalid(reason)
    return " AND ".join(positives) + "".join(f" NOT {n}" for n in negatives)
