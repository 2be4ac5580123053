"""How the agent's query reaches a configured server (``query_split`` and ``query_syntax`` in a
config's ``[tools.search]``), and how the rankings of a split or paged search are merged.

``query_syntax`` escapes the agent's text so the server's query operators are literal:

``fts5``
    SQLite FTS5 ``MATCH``: each whitespace-separated word becomes a string in double quotes
    (``"`` doubled), the words left side by side (FTS5's implicit AND, as bare words are read):
    ``AND``/``OR``/``NOT``/``NEAR``, ``col:``, ``-``, ``^``, ``*`` and ``+`` are text. A query
    with no word is ``""`` (FTS5 refuses an empty query).
``lucene``
    Lucene's classic query parser (Solr, Elasticsearch ``query_string``): each of
    ``+ - & | ! ( ) { } [ ] ^ " ~ * ? : \\ /`` gets a ``\\`` before it, and a word ``AND``,
    ``OR`` or ``NOT`` one before its first letter (a term, not an operator).
``plain``
    A server with no operators the kit can escape: the query's words (runs of letters and
    digits) alone, one space between them.

``query_split = "words"`` asks a server that matches its whole query as one string once per
word (``query_words``): the whitespace-separated pieces of the query, punctuation trimmed from
their ends, repeats dropped, at most ``MAX_WORDS``; a query with no word is sent whole. Each
word is escaped on its own.

Merge rule (``round_robin``): the rankings (one per word; each is its calls' replies in order:
the task's collections, each call's pages) are taken rank by rank: the first hit of each ranking
in word order, then the second of each, and so on; a hit whose (document, line) an earlier hit
had is dropped (a hit without a line: its document and text). The agent is shown the first
``limit`` of the merge.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from typing import Literal, TypeVar

from agentic.adapters.mcp.backend_config import QuerySyntax

# At most this many words of one query are asked (each is one call per collection, per page).
MAX_WORDS = 8
_WORD_EDGES = re.compile(r"^\W+|\W+$")
_PLAIN_WORD = re.compile(r"[^\W_]+")
_LUCENE_SPECIAL = re.compile(r'[+\-&|!(){}\[\]^"~*?:\\/]')
_LUCENE_OPERATORS = frozenset({"AND", "OR", "NOT"})

T = TypeVar("T")


def query_words(query: str) -> tuple[str, ...]:
    """The words a split query asks for, in order (see the module docstring)."""
    trimmed = (_WORD_EDGES.sub("", piece) for piece in query.split())
    return tuple(dict.fromkeys(word for word in trimmed if word))[:MAX_WORDS]


def split_query(split: Literal["whole", "words"] | None, query: str) -> tuple[str, ...]:
    """The queries one search sends: each word (``words``), else the query whole."""
    if split != "words":
        return (query,)
    return query_words(query) or (query,)


def escaped(syntax: QuerySyntax, query: str) -> str:
    """The agent's ``query`` with the operators of ``syntax`` made literal."""
    if syntax == "fts5":
        quoted = ('"' + word.replace('"', '""') + '"' for word in query.split())
        return " ".join(quoted) or '""'  # no word: an empty string, not an empty query
    if syntax == "lucene":
        return " ".join(_lucene_word(word) for word in query.split())
    return " ".join(_PLAIN_WORD.findall(query))


def _lucene_word(word: str) -> str:
    if word in _LUCENE_OPERATORS:
        return "\\" + word
    return _LUCENE_SPECIAL.sub(r"\\\g<0>", word)


def round_robin(rankings: Sequence[Sequence[T]], key: Callable[[T], Hashable]) -> list[T]:
    """The rankings merged rank by rank, in ranking order, each key kept once (its first)."""
    merged: list[T] = []
    seen: set[Hashable] = set()
    for rank in range(max((len(ranking) for ranking in rankings), default=0)):
        for ranking in rankings:
            if rank < len(ranking) and key(ranking[rank]) not in seen:
                seen.add(key(ranking[rank]))
                merged.append(ranking[rank])
    return merged
