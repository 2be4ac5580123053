"""One golden's search through an adapter, read back as ranked chunks.

The ranking and generation tiers drive adapters through the same protocol the agentic lane uses:
prepare once under a fresh temporary root, attach one session, ``reset`` it to the golden's task
(so the search sees exactly that task's collections), then call the frozen ``search`` tool.

A chunk is a maximal run of consecutive evidence items from one document in the normalized
result: the unit a backend returned (a lexical hit is one run of its snippet lines). Reading the
normalized evidence rather than each product's ``content`` keeps the tier backend-agnostic.

A search that fails with a product or agent error (an invalid query for this backend, a scope
violation) is recorded with its code and counts as retrieving nothing; a harness error stops the
run (exit 2), as in the lane.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters import sandbox
from agentic.adapters.deadlines import PREPARE_TIMEOUT_S
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.catalog.table import Catalog
from agentic.contract.errors import ContractError
from agentic.contract.receipt import ToolResult
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask
from agentic.fixture.loader import Fixture


@dataclass(frozen=True)
class Chunk:
    uri: str
    start_line: int
    end_line: int
    text: str


@dataclass(frozen=True)
class SearchOutcome:
    chunks: tuple[Chunk, ...]
    error_code: str | None


def chunks_of(result: ToolResult) -> tuple[Chunk, ...]:
    """Group consecutive evidence items of one URI into chunks, keeping the result's order."""
    chunks: list[Chunk] = []
    for item in result.evidence:
        last = chunks[-1] if chunks else None
        if last is not None and last.uri == item.uri:
            chunks[-1] = Chunk(
                uri=last.uri,
                start_line=min(last.start_line, item.startLine),
                end_line=max(last.end_line, item.endLine),
                text=f"{last.text}\n{item.text}",
            )
        else:
            chunks.append(Chunk(item.uri, item.startLine, item.endLine, item.text))
    return tuple(chunks)


Searcher = Callable[[AgentTask, JsonObject], SearchOutcome]


def _harness(adapter_id: str, stage: str, exc: AdapterError) -> ContractError:
    return ContractError(exc.code, f"{adapter_id}: {stage} failed: {exc}")


@contextmanager
def open_searcher(
    fixture: Fixture,
    adapter_id: str,
    catalog: Catalog,
    *,
    timeout_s: float,
    prepare_timeout_s: float = PREPARE_TIMEOUT_S,
) -> Iterator[Searcher]:
    """Prepare ``adapter_id`` once (within ``prepare_timeout_s``) and attach it; yield a function
    running one search per task (each step within ``timeout_s``)."""
    catalog.rankable(adapter_id)
    adapter = catalog.build_adapter(adapter_id, fixture.snapshot, fixture.oracles)
    if catalog.adapter(adapter_id).spawns_processes:
        sandbox.warn_unsandboxed([adapter_id])
    with tempfile.TemporaryDirectory(prefix=f"agentic-ranking-{adapter_id}-") as temp:
        try:
            index = Path(temp) / "index"
            prepared = adapter.prepare(fixture.snapshot, index, timeout_s=prepare_timeout_s)
            session = adapter.attach(prepared, timeout_s=timeout_s)
        except AdapterError as exc:
            raise _harness(adapter_id, "preparation", exc) from None
        try:

            def search(task: AgentTask, arguments: JsonObject) -> SearchOutcome:
                try:
                    session.reset(task, readiness_probe=False, timeout_s=timeout_s)
                    outcome = session.call("search", arguments, timeout_s=timeout_s)
                except AdapterCallError as exc:
                    if exc.failure_class == "harness_error":
                        raise _harness(adapter_id, "search", exc) from None
                    return SearchOutcome(chunks=(), error_code=exc.code)
                except AdapterError as exc:
                    raise _harness(adapter_id, "reset", exc) from None
                result = outcome.result
                if result.status == "error":
                    return SearchOutcome(chunks=(), error_code=result.errorCode)
                return SearchOutcome(chunks=chunks_of(result), error_code=None)

            yield search
        finally:
            session.close()
