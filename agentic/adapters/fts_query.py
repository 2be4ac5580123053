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

Size caps (the contract's tool schema bounds ``query`` by nothing, so these are the kit's own):
a query over ``MAX_QUERY_BYTES`` UTF-8 bytes, or whose terms hold more than ``MAX_QUERY_WORDS``
sanitized words in all (a phrase or a compound counts each of its words), is
``invalid_search_query``. FTS5 parses a query and scores each row in time that grows with the
square of its phrase count, inside single SQLite instructions that neither the deadline's
progress handler nor SIGTERM can interrupt (80k words ran 52 s past a 30 s deadline); at these
caps one instruction stays within milliseconds, so the deadline holds. Real queries are far below
them: the longest golden question has 24 words.

One deliberate refinement: a term whose sanitized form holds no letter or number (``'`` or
``_`` alone) is dropped, because FTS5's unicode61 tokenizer would turn it into an empty phrase
that matches nothing and, joined with ``AND``, would silently empty the whole result.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from agentic.adapters.errors import AdapterCallError
from agentic.contract.code_names import ErrorCodeName

INVALID_QUERY: ErrorCodeName = "invalid_search_query"
MAX_QUERY_BYTES = 4096
MAX_QUERY_WORDS = 128

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


def _phrase(words: list[str]) -> list[str]:
    return [w for w in (sanitize(word) for word in words) if w]


def _bare_parts(token: str) -> list[str]:
    return [p for p in (sanitize(part) for part in _COMPOUND.split(token)) if p]


def _expression(words: list[str], *, prefix: bool) -> str:
    """A quoted FTS5 phrase; a single bare word is a prefix term."""
    return f'"{words[0]}"*' if prefix and len(words) == 1 else '"' + " ".join(words) + '"'


def _terms(query: str) -> list[_Term]:
    terms: list[_Term] = []
    total = 0
    for match in _TERM.finditer(query):
        negation, phrase, bare = match.group(1), match.group(2), match.group(3)
        if phrase is not None:
            words, negated = _phrase(phrase.split()), negation == "-"
        else:
            negated = bare.startswith("-") and len(bare) > 1
            words = _bare_parts(bare[1:] if negated else bare)
        if not words:
            continue
        total += len(words)
        if total > MAX_QUERY_WORDS:  # stop at once: the rest of a huge query is never read
            raise _invalid(f"more than {MAX_QUERY_WORDS} words")
        terms.append(_Term(_expression(words, prefix=phrase is None), negated))
    return terms


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def check_query_size(query: str) -> None:
    """Refuse a query over ``MAX_QUERY_BYTES`` before any work proportional to its length."""
    # The character count first: a huge query is refused without encoding it.
    if len(query) > MAX_QUERY_BYTES or _utf8_size(query) > MAX_QUERY_BYTES:
        raise _invalid(f"longer than {MAX_QUERY_BYTES} UTF-8 bytes")


def compile_query(query: str) -> str:
    """The FTS5 MATCH expression of an agent query; raises ``invalid_search_query``."""
    check_query_size(query)
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
