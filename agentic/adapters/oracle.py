"""The ``oracle`` ceiling adapter (evaluation only): search returns the oracle's required evidence.
That is exactly the required evidence of the current task's hidden oracle. It proves every task
solvable with the frozen tools and bounds what a perfect retriever could score. It is never a
promotion gate's candidate nor a product's baseline. It is the one adapter allowed to read
hidden oracles (docs/architecture.md, "Import rules").

search: one ``source`` result whose evidence is the required evidence of every oracle claim, in
claim order and de-duplicated, each with its exact span text taken from the snapshot and checked
against the oracle's source and span hashes; content = those texts joined by LF. A task without
oracle claims (an abstention task) gets an ok result with empty content and no evidence. The
``collection`` argument is scope-checked like everywhere else. One backend invocation.

get / multi_get: the lexical reads (``reads.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from agentic.adapters import ids, indexed, reads
from agentic.adapters.base import CallOutcome
from agentic.adapters.errors import AdapterError
from agentic.contract.envelope import Evidence
from agentic.contract.oracle import HiddenOracle
from agentic.contract.receipt import ToolEvidence
from agentic.contract.strict_json import JsonObject
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.fixture.spans import extract_span, span_hash

ADAPTER_ID = ids.ORACLE
ORACLE_HASH_REASON = "oracle evidence is harness-observed from the snapshot"
CONFIG: JsonObject = {
    "adapter": ADAPTER_ID,
    "version": 1,
    "evalOnly": True,
    "reads": "hidden-oracle",
}


def _oracle_error(message: str) -> AdapterError:
    return AdapterError("invalid_oracle_evidence", "harness_error", message)


def required_evidence(oracle: HiddenOracle) -> list[Evidence]:
    """Required evidence of every claim, in claim order, first occurrence kept."""
    seen: set[Evidence] = set()
    ordered: list[Evidence] = []
    for claim in oracle.claims:
        for evidence in claim.requiredEvidence:
            if evidence not in seen:
                seen.add(evidence)
                ordered.append(evidence)
    return ordered


def observed(snapshot: CorpusSnapshot, evidence: Evidence) -> ToolEvidence:
    """The oracle coordinate with its text, after re-checking it against the snapshot bytes."""
    file = snapshot.by_uri(evidence.uri)
    if file is None or file.source_hash != evidence.sourceHash:
        raise _oracle_error(f"oracle source {evidence.uri} does not match the snapshot")
    span = extract_span(file.lines, evidence.startLine, evidence.endLine)
    if span is None or span_hash(span) != evidence.spanHash:
        raise _oracle_error(f"oracle span {evidence.uri}:{evidence.startLine} does not match")
    return ToolEvidence(
        **evidence.model_dump(),
        text=span,
        backendSourceHash=None,
        backendSpanHash=None,
        backendHashUnavailableReason=ORACLE_HASH_REASON,
    )


class OracleAdapter(indexed.IndexedAdapter):
    """Evaluation-only ceiling. ``oracles`` maps taskId -> HiddenOracle."""

    def __init__(self, snapshot: CorpusSnapshot, oracles: Mapping[str, HiddenOracle]) -> None:
        self._oracles = MappingProxyType(dict(oracles))
        super().__init__(ADAPTER_ID, CONFIG, self._oracle_search, snapshot)

    def _oracle_search(
        self, context: indexed.SearchContext, arguments: JsonObject, deadline: float
    ) -> CallOutcome:
        # No index work to bound, but a call is answered only within its deadline, like any other.
        indexed.check_deadline(deadline)
        collection = arguments.get("collection")
        if collection is not None:
            context.scope.check_collection(str(collection))
        oracle = self._oracles.get(context.task.taskId)
        if oracle is None:
            raise AdapterError(
                "oracle_not_found", "harness_error", f"no oracle for {context.task.taskId}"
            )
        evidence = [observed(context.snapshot, e) for e in required_evidence(oracle)]
        for item in evidence:
            context.scope.check_uri(item.uri)
        return reads.source_outcome(evidence, 1)
