"""Ranking metrics at a cutoff k, as pure functions over one ranked list.

Two levels, because they answer different questions:

- Document level (recall, hit rate, MRR, nDCG) collapses chunks to their document: did the
  answer's document reach the top k? A document's rank is the position of its *first* chunk in
  the adapter's result order; later chunks of the same document neither move nor repeat it.
- Chunk level (precision) does not collapse: of the first k chunks injected, how many come from
  a relevant document? Five chunks of one irrelevant document cost five slots.

Definitions (those of trec_eval, which the tests check to 1e-9 with pytrec_eval):

- ``recall``    = relevant documents in the top k / relevant documents;
- ``hitRate``   = 1 if any relevant document is in the top k, else 0 (trec_eval ``success``);
- ``mrr``       = 1 / rank of the first relevant document in the top k, else 0 (trec_eval
  ``recip_rank`` over the run cut at k);
- ``ndcg``      = DCG / ideal DCG at k, gain = the golden's grade (1 unless graded), discount
  log2(rank + 1); the ideal ranks *every known* relevant document, not only the retrieved ones,
  so "right documents, wrong order" lowers it while recall stays put;
- ``precision`` = relevant chunks among the first k / k (always divided by k, as ``P_k``).

Tie-breaking: the order is the adapter's own and is never re-sorted here. Ties in backend scores
were already broken by the adapter (the lexical index by URI), so equal scores cannot reorder
results between runs. The TREC export gives strictly decreasing scores for the same reason.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from agentic.ranking.schema import QueryMetrics

METRIC_NAMES: tuple[str, ...] = tuple(QueryMetrics.model_fields)


def document_ranking(chunk_uris: Iterable[str], k: int) -> tuple[str, ...]:
    """Distinct documents in first-chunk order, the first ``k`` of them."""
    seen: list[str] = []
    for uri in chunk_uris:
        if uri not in seen:
            seen.append(uri)
            if len(seen) == k:
                break
    return tuple(seen)


def recall_at_k(documents: Sequence[str], grades: Mapping[str, int]) -> float:
    relevant = [uri for uri, grade in grades.items() if grade > 0]
    if not relevant:
        return 0.0
    return sum(1 for uri in documents if grades.get(uri, 0) > 0) / len(relevant)


def hit_rate_at_k(documents: Sequence[str], grades: Mapping[str, int]) -> float:
    return 1.0 if any(grades.get(uri, 0) > 0 for uri in documents) else 0.0


def mrr_at_k(documents: Sequence[str], grades: Mapping[str, int]) -> float:
    for rank, uri in enumerate(documents, start=1):
        if grades.get(uri, 0) > 0:
            return 1.0 / rank
    return 0.0


def _dcg(gains: Iterable[int]) -> float:
    return math.fsum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def ndcg_at_k(documents: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    ideal = _dcg(sorted((g for g in grades.values() if g > 0), reverse=True)[:k])
    if ideal == 0.0:
        return 0.0
    return _dcg(grades.get(uri, 0) for uri in documents[:k]) / ideal


def precision_at_k(chunk_uris: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    return sum(1 for uri in chunk_uris[:k] if grades.get(uri, 0) > 0) / k


def query_metrics(chunk_uris: Sequence[str], grades: Mapping[str, int], k: int) -> QueryMetrics:
    """Every metric of one query from its ranked chunk URIs (adapter order) and its grades."""
    documents = document_ranking(chunk_uris, k)
    return QueryMetrics(
        recall=recall_at_k(documents, grades),
        hitRate=hit_rate_at_k(documents, grades),
        mrr=mrr_at_k(documents, grades),
        ndcg=ndcg_at_k(documents, grades, k),
        precision=precision_at_k(chunk_uris, grades, k),
    )


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean (``math.fsum``, so the order of summation cannot matter); None if empty."""
    return math.fsum(values) / len(values) if values else None


def mean_metrics(rows: Sequence[QueryMetrics]) -> dict[str, float | None]:
    return {name: mean([float(getattr(row, name)) for row in rows]) for name in METRIC_NAMES}
