"""``title-search``: an example adapter plugin that ranks documents by the words of their titles.

A document's title is its first ``# `` heading. ``search`` scores each document of the searched
collections (the ``collection`` argument, or every collection of the task) by the share of the
query's words that its title holds, keeps those holding at least one, and returns the best
``limit`` (ties broken by URI). Each result's evidence is the non-blank lines of its first
``SNIPPET_LINES`` lines. ``get`` and ``multi_get`` are the kit's shared reads (the indexed base).

It imports only ``agentic.plugins``, the kit's stable plugin API.
"""

from __future__ import annotations

import re
from typing import Any

from agentic.plugins import (
    AdapterEntry,
    AdapterInputs,
    CallOutcome,
    CorpusFile,
    CorpusSnapshot,
    IndexedAdapter,
    SearchContext,
    ToolEvidence,
    canonical_text,
    check_deadline,
    nonblank_evidence,
    ok_outcome,
)

ADAPTER_ID = "title-search"  # the one place the id is written: the config and the entry read it
# Part of every receipt's config fingerprint: change "version" whenever the ranking changes.
CONFIG: dict[str, Any] = {"adapter": ADAPTER_ID, "version": 1, "retrieval": "title-words"}
DEFAULT_LIMIT = 10
SNIPPET_LINES = 40
HASH_REASON = "title search returns no source/span hashes"

_WORD = re.compile(r"\w+")


def words(text: str) -> frozenset[str]:
    """The distinct words of a text, case-folded."""
    return frozenset(word.casefold() for word in _WORD.findall(text))


def title_score(query: frozenset[str], file: CorpusFile) -> float:
    """The share of the query's words that the document's title holds (0 for an empty query)."""
    if not query:
        return 0.0
    return len(query & words(file.title)) / len(query)


def searched_collections(context: SearchContext, arguments: dict[str, Any]) -> tuple[str, ...]:
    """The named collection (refused unless the task sees it), else every task collection."""
    collection = arguments.get("collection")
    if collection is None:
        return context.scope.collections
    context.scope.check_collection(str(collection))
    return (str(collection),)


def rank(
    context: SearchContext, query: frozenset[str], collections: tuple[str, ...], deadline: float
) -> list[tuple[float, CorpusFile]]:
    """Every matching document, best first, ties by URI; stops at the call's deadline."""
    scored: list[tuple[float, CorpusFile]] = []
    for file in context.snapshot.in_collections(collections):
        check_deadline(deadline)
        score = title_score(query, file)
        if score > 0:
            scored.append((score, file))
    return sorted(scored, key=lambda item: (-item[0], item[1].uri))


def title_search(context: SearchContext, arguments: dict[str, Any], deadline: float) -> CallOutcome:
    query = str(arguments["query"])
    limit = int(arguments.get("limit", DEFAULT_LIMIT))
    ranked = rank(context, words(query), searched_collections(context, arguments), deadline)
    results: list[dict[str, Any]] = []
    evidence: list[ToolEvidence] = []
    for score, file in ranked[:limit]:
        end = min(SNIPPET_LINES, len(file.lines))
        results.append({"uri": file.uri, "title": file.title, "score": score, "endLine": end})
        evidence.extend(nonblank_evidence(file, 1, end, HASH_REASON))
    content = canonical_text({"mode": "title", "query": query, "results": results})
    return ok_outcome("candidates", content, evidence, 1)


class TitleSearchAdapter(IndexedAdapter):
    """The indexed base gives preparation, sessions, task scope, reads and deadlines."""

    def __init__(self, snapshot: CorpusSnapshot) -> None:
        super().__init__(ADAPTER_ID, CONFIG, title_search, snapshot)


def build(inputs: AdapterInputs) -> TitleSearchAdapter:
    return TitleSearchAdapter(inputs.snapshot)


# The value of this package's entry point in the group ``agentic.adapters`` (pyproject.toml).
ADAPTER = AdapterEntry(ADAPTER_ID, build)
