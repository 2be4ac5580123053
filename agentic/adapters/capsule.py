"""The ``capsule`` adapter (evaluation only): one search returns a complete evidence bundle
(contract v1, 5.2). ``get`` and ``multi_get`` are the lexical reads.

search = plan (``capsule_plan``) -> one lexical search per variant x scope -> read every hit URI
whole -> one candidate per non-blank line (``retrievalRank = uriIndex * 1000``, facets = the
facets found in its NFKC-lowercased text) -> ``marginal-facet-coverage-v1`` selection
(``capsule_select``) -> the ``gno-context-agent-v1`` payload as canonical JSON.

Budget: the byte check uses the complete model-visible result (``agentic.tools.visible_bytes``)
against ``task.budgets.maxModelVisibleBytes``. While selecting, the omission section is sized
as an upper bound (every possible reason counted as if every candidate were omitted for it, and
``t`` as ``false``, its longer spelling), so the final payload can never be larger than the one
a selection was checked with. If even the final result exceeds the budget the call fails with
``capsule_budget_exceeded``.

Backend invocations = 1 (planning) + variants x scopes + 2 per read URI + 2 (selection and
finalization); those stage counts and the variants form the retrieval fingerprint.

The bundle's evidence is exactly the selected lines; because the payload's ``e`` tuples carry
every one of them, the agent-visible projection hides the evidence list and the bytes are
charged once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentic.adapters import ids, indexed, reads
from agentic.adapters.base import CallOutcome
from agentic.adapters.capsule_plan import CapsulePlan, normalize_text, plan_query
from agentic.adapters.capsule_select import (
    GLOBAL_BUDGET,
    OMISSION_REASONS,
    POSSIBLE_REASONS,
    Candidate,
    Selection,
    select,
)
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.lexical import DEFAULT_LIMIT, search_scopes
from agentic.contract.canonical import canonical_text, fingerprint
from agentic.contract.jsrules import is_blank
from agentic.contract.receipt import ToolResult
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusFile, CorpusSnapshot
from agentic.tools import visible_bytes

ADAPTER_ID = ids.CAPSULE
PAYLOAD_VERSION = "gno-context-agent-v1"
RANK_STRIDE = 1000
CONFIG: dict[str, Any] = {
    "adapter": ADAPTER_ID,
    "version": 1,
    "evalOnly": True,
    "retrieval": "fts5-bm25-query-variants",
    "selection": "marginal-facet-coverage-v1",
    "budget": "complete-model-visible-utf8-v1",
    "synthesis": False,
}


def retrieve_uris(
    context: indexed.SearchContext,
    plan: CapsulePlan,
    scopes: tuple[str, ...],
    limit: int,
    deadline: float,
) -> list[str]:
    """Hit URIs of every variant x scope search, unique, in first-seen order."""
    uris: list[str] = []
    for variant in plan.variants:
        for collection in scopes:
            for hit in context.index.search(variant, collection, limit, deadline=deadline):
                if hit.uri not in uris:
                    uris.append(hit.uri)
    return uris


def line_candidates(files: Sequence[CorpusFile], facets: tuple[str, ...]) -> list[Candidate]:
    candidates: list[Candidate] = []
    for uri_index, file in enumerate(files):
        for number, line in enumerate(file.lines, start=1):
            if is_blank(line):
                continue
            text = normalize_text(line)
            candidates.append(
                Candidate(
                    evidence=reads.line_evidence(file, number, reads.READ_HASH_REASON),
                    retrieval_rank=uri_index * RANK_STRIDE,
                    facets=tuple(f for f in facets if f in text),
                )
            )
    return candidates


def _evidence_tuple(candidate: Candidate) -> list[Any]:
    e = candidate.evidence
    return [
        e.uri,
        e.startLine,
        e.endLine,
        e.sourceHash,
        e.sourceHash,
        e.spanHash,
        e.text,
        None,
        None,
        [],
        "unavailable",
    ]


def _omission_section(counts: dict[str, int]) -> list[Any]:
    sparse = [[reason, counts[reason]] for reason in OMISSION_REASONS if counts.get(reason, 0) > 0]
    return [sum(counts.values()), sparse]


def build_payload(
    *,
    task: AgentTask,
    plan: CapsulePlan,
    selected: Sequence[Candidate],
    omission_counts: dict[str, int],
    budget_hit: bool,
    index_fingerprint: str,
    config_fingerprint: str,
    retrieval_fingerprint: str,
) -> dict[str, Any]:
    max_bytes = task.budgets.maxModelVisibleBytes
    covered = {f for c in selected for f in c.facets}
    return {
        "v": PAYLOAD_VERSION,
        "id": fingerprint(
            {
                "taskId": task.taskId,
                "query": plan.query,
                "evidence": [c.evidence.spanHash for c in selected],
            }
        ),
        "b": [max(1, max_bytes // 4), max_bytes, None, None, "model_visible_utf8", None],
        "r": [
            "fast",
            index_fingerprint,
            config_fingerprint,
            retrieval_fingerprint,
            None,
            None,
            ["lexicalSearch"],
            [],
        ],
        "e": [_evidence_tuple(c) for c in selected],
        "g": ["untrusted_data", "hard_delimited", []],
        "c": [
            [f for f in plan.facets if f in covered],
            [[f, "facet_not_found"] for f in plan.facets if f not in covered],
        ],
        "o": _omission_section(omission_counts),
        "t": budget_hit,
        "trust": "untrusted_data",
    }


def bundle_result(payload: dict[str, Any], selected: Sequence[Candidate]) -> ToolResult:
    return ToolResult(
        status="ok",
        resultRole="evidence_bundle",
        content=canonical_text(payload),
        evidence=tuple(c.evidence for c in selected),
        errorCode=None,
    )


def capsule_search(
    context: indexed.SearchContext, arguments: dict[str, Any], deadline: float
) -> CallOutcome:
    task = context.task
    plan = plan_query(str(arguments["query"]), tuple(c.claimKey for c in task.claims))
    scopes = search_scopes(context, arguments)
    limit = int(arguments.get("limit", DEFAULT_LIMIT))
    uris = retrieve_uris(context, plan, scopes, limit, deadline)
    reader = reads.DocumentReader(index=context.index, snapshot=context.snapshot)
    files = [reader.read(uri, deadline) for uri in uris]
    candidates = line_candidates(files, plan.facets)
    stages = {
        "queryPlanning": 1,
        "lexicalSearch": len(plan.variants) * len(scopes),
        "sourceRead": reads.INVOCATIONS_PER_READ * len(uris),
        "selection": 1,
        "finalization": 1,
    }
    retrieval_fp = fingerprint({"variants": list(plan.variants), "stages": stages})

    def payload(selected: Sequence[Candidate], counts: dict[str, int], hit: bool) -> dict[str, Any]:
        return build_payload(
            task=task,
            plan=plan,
            selected=selected,
            omission_counts=counts,
            budget_hit=hit,
            index_fingerprint=context.index_fingerprint,
            config_fingerprint=context.config_fingerprint,
            retrieval_fingerprint=retrieval_fp,
        )

    worst_counts = {reason: len(candidates) for reason in POSSIBLE_REASONS}
    budget = task.budgets.maxModelVisibleBytes

    def fits(selected: Sequence[Candidate]) -> bool:
        bound = bundle_result(payload(selected, worst_counts, False), selected)
        return visible_bytes(bound) <= budget

    selection: Selection = select(
        candidates,
        one_call=task.budgets.maxAgentCalls == 1,
        fits=fits,
        tick=lambda: indexed.check_deadline(deadline),
    )
    counts = {reason: selection.count(reason) for reason in OMISSION_REASONS}
    final = payload(selection.selected, counts, counts[GLOBAL_BUDGET] > 0)
    result = bundle_result(final, selection.selected)
    if visible_bytes(result) > budget:
        raise AdapterCallError(
            "capsule_budget_exceeded", "product_error", "evidence bundle exceeds the byte budget"
        )
    return CallOutcome(result=result, backend_invocations=sum(stages.values()))


class CapsuleAdapter(indexed.IndexedAdapter):
    """One-call evidence bundles over the shared lexical index (evaluation only)."""

    def __init__(self, snapshot: CorpusSnapshot) -> None:
        super().__init__(ADAPTER_ID, CONFIG, capsule_search, snapshot)
