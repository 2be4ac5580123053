"""TREC run and qrels export of a ranking report, for trec_eval and friends.

- qrels: ``<goldenId> 0 <uri> <grade>`` for every relevant document of every answerable golden
  (refusal goldens have no relevant document, and trec_eval skips a query without one).
- run: ``<goldenId> Q0 <uri> <rank> <score> <runId>`` for each query's top-k documents, with
  ``score = n - rank + 1`` (n = documents listed for that query). Scores strictly decrease with
  rank, so trec_eval's own tie-break (by document id) never applies and it sees our order.

Lines are sorted by golden id then rank (run) or URI (qrels). Identifiers are whitespace-free by
construction (golden id pattern); a URI with whitespace cannot be written and fails closed.
"""

from __future__ import annotations

from agentic.contract.errors import ContractError
from agentic.ranking.schema import RankingReport, RankingVariant


def _token(value: str, what: str) -> str:
    if not value or any(ch.isspace() for ch in value):
        raise ContractError("trec_export_invalid", f"{what} {value!r} contains whitespace")
    return value


def run_id(run: RankingVariant) -> str:
    return f"{run.adapterId}.{run.variant}"


def run_text(run: RankingVariant) -> str:
    lines = []
    name = _token(run_id(run), "run id")
    for query in sorted(run.queries, key=lambda q: q.goldenId):
        documents = query.documents
        for rank, uri in enumerate(documents, start=1):
            score = len(documents) - rank + 1
            lines.append(
                f"{_token(query.goldenId, 'golden id')} Q0 {_token(uri, 'uri')} "
                f"{rank} {score} {name}"
            )
    return "".join(f"{line}\n" for line in lines)


def qrels_text(report: RankingReport) -> str:
    """Qrels from the first run's queries (every run of a report has the same goldens)."""
    if not report.runs:
        return ""
    lines = []
    for query in sorted(report.runs[0].queries, key=lambda q: q.goldenId):
        for item in sorted(query.relevant, key=lambda r: r.uri):
            lines.append(
                f"{_token(query.goldenId, 'golden id')} 0 {_token(item.uri, 'uri')} {item.grade}"
            )
    return "".join(f"{line}\n" for line in lines)


def export_files(report: RankingReport) -> dict[str, str]:
    """File name -> text: ``qrels.trec`` and one ``run.<adapter>.<variant>.trec`` per run."""
    files = {"qrels.trec": qrels_text(report)}
    for run in report.runs:
        files[f"run.{run_id(run)}.trec"] = run_text(run)
    return files
