"""Turning an agent's search query into qmd lexical sub-queries, without changing its meaning.

qmd's ``lex`` grammar ANDs every term of one sub-query, so a natural-language question usually
matches nothing. The plan keeps qmd's own token grammar (a bare term is a prefix match, a quoted
phrase is exact, hyphenated and dotted tokens are qmd's own compounds, a leading ``-`` negates)
and only regroups the tokens:

1. the query is split into tokens exactly where qmd's lex parser splits them (whitespace, and
   double quotes around a phrase); a multi-line query or an unmatched quote is rejected with
   ``invalid_search_query``, as the lexical adapter does;
2. bare terms that are English function words, that hold no letter or digit, or that are a prefix
   of one of the index's own collection names (which every document's path field contains) are
   dropped; if nothing is left, the dropped function words are kept instead;
3. positive tokens are de-duplicated (case-insensitively) in order; negations apply to every
   sub-query;
4. with one positive token the plan is that token; with several it is first all of them together
   (qmd weights the first list double, so documents holding every term lead), then one sub-query
   per token, at most ten sub-queries in all (qmd's cap).

The first sub-query is also what qmd uses to pick each result's snippet lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from agentic.adapters.errors import AdapterCallError

MAX_SUBQUERIES = 10
_STOPWORD_TEXT = """a about after all also an and any are as at be been before but by can could
    did do does for from had has have how i if in into is it its may more most must no not of on
    or our out over should so such than that the their them then there these they this those to
    under up was we were what when where which while who whom whose why will with would you your"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_CONTENT = re.compile(r"\w")  # a letter, digit or underscore: what qmd keeps of a bare term


@dataclass(frozen=True)
class Token:
    text: str
    negated: bool
    phrase: bool

    def render(self) -> str:
        body = f'"{self.text}"' if self.phrase else self.text
        return f"-{body}" if self.negated else body

    @property
    def key(self) -> str:
        return self.render().lower()


@dataclass(frozen=True)
class LexPlan:
    """The lex sub-queries sent to qmd, in order; the first one picks snippets."""

    searches: tuple[str, ...]


def invalid_query(message: str) -> AdapterCallError:
    return AdapterCallError("invalid_search_query", "product_error", message)


def tokenize(query: str) -> tuple[Token, ...]:
    """qmd's lex token boundaries: whitespace, and a quoted phrase as one token."""
    if "\n" in query or "\r" in query:
        raise invalid_query("a search query must be a single line")
    if query.count('"') % 2:
        raise invalid_query("a search query has an unmatched double quote")
    tokens: list[Token] = []
    i, text = 0, query.strip()
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        negated = text[i] == "-"
        i += 1 if negated else 0
        if i < len(text) and text[i] == '"':
            end = text.index('"', i + 1)
            phrase = " ".join(text[i + 1 : end].split())
            i = end + 1
            if phrase:
                tokens.append(Token(phrase, negated, phrase=True))
            continue
        start = i
        while i < len(text) and not text[i].isspace() and text[i] != '"':
            i += 1
        if i > start:
            tokens.append(Token(text[start:i], negated, phrase=False))
    return tuple(tokens)


def _bare(token: Token) -> str:
    """The lowercase letters, digits and underscores of a bare term (what qmd matches on)."""
    return "".join(_CONTENT.findall(token.text)).lower()


def _is_noise(token: Token, reserved: tuple[str, ...]) -> bool:
    if token.phrase:
        return False
    bare = _bare(token)
    return not bare or any(name.lower().startswith(bare) for name in reserved)


def _unique(tokens: Iterable[Token]) -> list[Token]:
    seen: set[str] = set()
    kept = []
    for token in tokens:
        if token.key not in seen:
            seen.add(token.key)
            kept.append(token)
    return kept


def plan_lex(query: str, reserved: tuple[str, ...] = ()) -> LexPlan:
    """The lex sub-queries for one agent query; ``reserved`` are the index's collection names."""
    tokens = [t for t in tokenize(query) if not _is_noise(t, reserved)]
    positive = [t for t in tokens if not t.negated]
    negations = " ".join(t.render() for t in _unique(t for t in tokens if t.negated))
    content = [t for t in positive if t.phrase or _bare(t) not in STOPWORDS]
    terms = _unique(content or positive)
    if not terms:
        raise invalid_query("a search query needs at least one term that is not excluded")
    rendered = [t.render() for t in terms]
    groups = [" ".join(rendered)] if len(rendered) == 1 else [" ".join(rendered), *rendered]
    searches = tuple(f"{group} {negations}".strip() for group in groups[:MAX_SUBQUERIES])
    return LexPlan(searches=searches)
