"""The ``lexical`` adapter: in-process BM25 over SQLite FTS5 (contract v1, 5.1).

search
    Scope: a ``collection`` argument must be one of the task's collections
    (``task_scope_violation`` otherwise); without it each task collection is searched on its own.
    Each scope returns ``{mode:"bm25", query, results:[{uri, score, startLine, endLine}]}``; with
    several scopes the content is ``{"scopes":[...]}`` in task collection order and the evidence
    lists are concatenated. Content is canonical JSON text.

    Ranking: ``bm25(documents_fts, 1.5, 4.0, 1.0)``, ties broken by URI, at most ``limit``
    (default 20) hits per scope. Scores are min-max normalized per scope: best 1, worst 0, and 1
    for all when every raw score is equal. ``minScore`` filters after normalization.

    Snippet range, the document's first chunk: the longest prefix of lines whose UTF-8 size,
    counting one LF per line, is at most 1500 bytes, and at least line 1. So a short document is
    its whole text and a long one is cut before the line that would cross 1500 bytes.
    Evidence: every non-blank line of each result's snippet range, as single-line harness-observed
    coordinates recomputed from the snapshot bytes; role ``candidates``; one backend invocation per
    scope. Other search arguments (filters, rerank, ...) are accepted and ignored.

get / multi_get: see ``reads.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentic.adapters import ids, indexed, reads
from agentic.adapters.base import CallOutcome, ok_outcome
from agentic.adapters.lexical_index import Hit, first_chunk_end
from agentic.contract.canonical import canonical_text
from agentic.contract.json_access import as_int, as_number
from agentic.contract.receipt import ToolEvidence
from agentic.contract.strict_json import JsonObject
from agentic.fixture.snapshot import CorpusSnapshot

ADAPTER_ID = ids.LEXICAL
DEFAULT_LIMIT = 20
CONFIG: JsonObject = {
    "adapter": ADAPTER_ID,
    "version": 1,
    "retrieval": "fts5-bm25-porter",
    "expansion": False,
    "vectors": False,
    "reranking": False,
    "graph": False,
}


@dataclass(frozen=True)
class ScoredHit:
    uri: str
    score: float
    start_line: int
    end_line: int


@dataclass(frozen=True)
class ScopeResult:
    """One collection's ranked, normalized hits and their snippet evidence."""

    collection: str
    hits: tuple[ScoredHit, ...]
    evidence: tuple[ToolEvidence, ...]

    def payload(self, query: str) -> JsonObject:
        return {
            "mode": "bm25",
            "query": query,
            "results": [
                {"uri": h.uri, "score": h.score, "startLine": h.start_line, "endLine": h.end_line}
                for h in self.hits
            ],
        }


def normalize(raw_scores: list[float]) -> list[float]:
    """Min-max over bm25 scores (lower raw is better): best 1, worst 0, all equal 1."""
    if not raw_scores:
        return []
    best, worst = min(raw_scores), max(raw_scores)
    if best == worst:
        return [1.0 for _ in raw_scores]
    return [(worst - raw) / (worst - best) for raw in raw_scores]


def search_scopes(context: indexed.SearchContext, arguments: JsonObject) -> tuple[str, ...]:
    """The collections one search covers: the named one (checked) or every task collection."""
    collection = arguments.get("collection")
    if collection is None:
        return context.scope.collections
    context.scope.check_collection(str(collection))
    return (str(collection),)


def search_scope(
    context: indexed.SearchContext,
    query: str,
    collection: str,
    *,
    limit: int,
    min_score: float | None,
    deadline: float,
) -> ScopeResult:
    hits: list[Hit] = context.index.search(query, collection, limit, deadline=deadline)
    scored: list[ScoredHit] = []
    evidence: list[ToolEvidence] = []
    for hit, score in zip(hits, normalize([h.score for h in hits]), strict=True):
        if min_score is not None and score < min_score:
            continue
        file = reads.snapshot_file(context.snapshot, hit.uri)
        end = first_chunk_end(file.lines)
        scored.append(ScoredHit(uri=hit.uri, score=score, start_line=1, end_line=end))
        evidence.extend(reads.nonblank_evidence(file, 1, end, reads.LEXICAL_HASH_REASON))
    return ScopeResult(collection=collection, hits=tuple(scored), evidence=tuple(evidence))


def lexical_search(
    context: indexed.SearchContext, arguments: JsonObject, deadline: float
) -> CallOutcome:
    query = str(arguments["query"])
    scopes = search_scopes(context, arguments)
    limit = as_int(arguments.get("limit", DEFAULT_LIMIT), "limit")
    min_score = arguments.get("minScore")
    results = [
        search_scope(
            context,
            query,
            collection,
            limit=limit,
            min_score=None if min_score is None else float(as_number(min_score, "minScore")),
            deadline=deadline,
        )
        for collection in scopes
    ]
    payloads = [r.payload(query) for r in results]
    content = canonical_text(payloads[0] if len(payloads) == 1 else {"scopes": payloads})
    evidence = [e for r in results for e in r.evidence]
    return ok_outcome("candidates", content, evidence, len(scopes))


class LexicalAdapter(indexed.IndexedAdapter):
    """BM25 over the shared lexical index; holds the frozen snapshot its evidence is checked on."""

    def __init__(self, snapshot: CorpusSnapshot) -> None:
        super().__init__(ADAPTER_ID, CONFIG, lexical_search, snapshot)
