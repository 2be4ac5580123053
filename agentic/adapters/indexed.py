"""``IndexedAdapter``: the machinery the in-process adapters on the lexical index share.
Those are lexical, capsule and oracle. It holds preparation, attach-time verification, the
task-scoped session and tool dispatch.

Each adapter supplies only its identity, configuration and a ``search`` function (an
``IndexedAdapter`` subclass of a few lines); ``get`` and ``multi_get`` are the shared reads of
``reads.py``. Adding such an adapter takes its module and a catalog entry
(``catalog/builtins.py``); the conformance suite picks it up from the catalog.

Deadline: a call's ``timeout_s`` becomes a monotonic deadline that SQLite statements, reads and
the capsule's selection check as they go, and that the session checks once more when the call
returns: an answer later than the deadline is ``tool_timeout``, never a result.

Timing: ``attach`` opens the SQLite file read-only; that open is the adapter's startup, reported
by the first ``reset`` after the attach (later resets report none, as a warm session has no
startup to measure).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters import reads
from agentic.adapters.base import (
    AdapterSession,
    CallOutcome,
    PreparedIndex,
    ResetInfo,
    check_tool_call,
    declared_capabilities,
)
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.lexical_index import INDEX_FILE, LexicalIndex, build_index
from agentic.contract.canonical import fingerprint
from agentic.contract.receipt import Capabilities
from agentic.contract.strict_json import JsonObject, JsonValue
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.tools import tool_definitions

# An in-process index counts its own work and has no hash of its own to offer.
INDEXED_CAPABILITIES = declared_capabilities(
    invocation_accounting=True, backend_hashes="unsupported"
)


@dataclass(frozen=True)
class SearchContext:
    """What a search function may use: the open index, the snapshot, the current task."""

    index: LexicalIndex
    snapshot: CorpusSnapshot
    task: AgentTask
    scope: reads.TaskScope
    index_fingerprint: str
    config_fingerprint: str


SearchFn = Callable[[SearchContext, JsonObject, float], CallOutcome]


def deadline_after(timeout_s: float) -> float:
    return time.monotonic() + timeout_s


def check_deadline(deadline: float) -> None:
    """Raise ``tool_timeout`` once a monotonic deadline has passed (for pure-Python stages)."""
    if time.monotonic() >= deadline:
        raise AdapterCallError("tool_timeout", "product_error", "tool call exceeded its deadline")


def prepare_index(
    adapter_id: str, config: JsonObject, snapshot: CorpusSnapshot, root: Path
) -> PreparedIndex:
    """Build the index under ``root`` (a fresh folder owned by this adapter)."""
    started = time.perf_counter()
    root.mkdir(parents=True, exist_ok=True)
    built = build_index(snapshot, root / INDEX_FILE)
    return PreparedIndex(
        adapter_id=adapter_id,
        root=root,
        corpus_fingerprint=snapshot.fingerprint,
        index_fingerprint=built.index_fingerprint,
        config_fingerprint=fingerprint(config),
        preparation_ms=(time.perf_counter() - started) * 1000.0,
        details={"documents": built.document_count, "tokenizer": "porter unicode61"},
    )


def check_prepared(
    adapter_id: str, config: JsonObject, snapshot: CorpusSnapshot, prepared: PreparedIndex
) -> None:
    if prepared.adapter_id != adapter_id:
        raise AdapterError(
            "adapter_identity_mismatch", "harness_error", f"index prepared by {prepared.adapter_id}"
        )
    if prepared.corpus_fingerprint != snapshot.fingerprint:
        raise AdapterError(
            "corpus_fingerprint_mismatch", "harness_error", "index of another corpus"
        )
    if prepared.config_fingerprint != fingerprint(config):
        raise AdapterError(
            "invalid_adapter_preparation", "harness_error", "config fingerprint differs"
        )


def check_snapshot(expected: CorpusSnapshot, given: CorpusSnapshot) -> None:
    if given.fingerprint != expected.fingerprint:
        raise AdapterError(
            "corpus_fingerprint_mismatch", "harness_error", "prepare got another snapshot"
        )


def attach_index(
    adapter_id: str,
    config: JsonObject,
    snapshot: CorpusSnapshot,
    prepared: PreparedIndex,
    search: SearchFn,
) -> IndexedSession:
    check_prepared(adapter_id, config, snapshot, prepared)
    started = time.perf_counter()
    try:
        index = LexicalIndex.open(prepared.root / INDEX_FILE, read_only=True)
    except (OSError, ValueError) as exc:
        raise AdapterError("adapter_attach_failed", "harness_error", str(exc)) from exc
    startup_ms = (time.perf_counter() - started) * 1000.0
    if index.index_fingerprint != prepared.index_fingerprint:
        index.close()
        raise AdapterError("index_fingerprint_changed", "harness_error", "index file was rebuilt")
    return IndexedSession(
        index=index,
        snapshot=snapshot,
        search=search,
        config_fingerprint=prepared.config_fingerprint,
        startup_ms=startup_ms,
    )


class IndexedSession:
    """One attached session: a read-only index handle plus the current task's scope."""

    def __init__(
        self,
        *,
        index: LexicalIndex,
        snapshot: CorpusSnapshot,
        search: SearchFn,
        config_fingerprint: str,
        startup_ms: float,
    ) -> None:
        self._index = index
        self._reader = reads.DocumentReader(index=index, snapshot=snapshot)
        self._snapshot = snapshot
        self._search = search
        self._config_fingerprint = config_fingerprint
        self._pending_startup_ms: float | None = startup_ms
        self._task: AgentTask | None = None
        self._closed = False

    def list_tools(self) -> list[JsonObject]:
        return tool_definitions()

    def reset(self, task: AgentTask, *, readiness_probe: bool, timeout_s: float) -> ResetInfo:
        self._require_open()
        self._task = task
        if readiness_probe:
            # A real round trip through SQLite, discarded: proves the handle answers queries.
            self._index.uris(task.corpus.collections[0])
        startup, self._pending_startup_ms = self._pending_startup_ms, None
        return ResetInfo(startup_ms=startup, model_load_ms=None)

    def call(self, tool_name: str, arguments: JsonObject, *, timeout_s: float) -> CallOutcome:
        self._require_open()
        deadline = deadline_after(timeout_s)
        outcome = self._dispatch(tool_name, arguments, deadline)
        # A late answer is a timeout, as an MCP product's is (its client stops waiting at the
        # deadline): a stage with no deadline check of its own cannot deliver past the timeout.
        check_deadline(deadline)
        return outcome

    def _dispatch(self, tool_name: str, arguments: JsonObject, deadline: float) -> CallOutcome:
        check_tool_call(tool_name, arguments)
        task = self._task
        if task is None:
            raise AdapterCallError("adapter_not_reset", "product_error", "call before reset")
        scope = reads.TaskScope(task_id=task.taskId, collections=task.corpus.collections)
        if tool_name == "get":
            return reads.get(self._reader, scope, arguments, deadline)
        if tool_name == "multi_get":
            return reads.multi_get(self._reader, scope, arguments, deadline)
        context = SearchContext(
            index=self._index,
            snapshot=self._snapshot,
            task=task,
            scope=scope,
            index_fingerprint=self._index.index_fingerprint,
            config_fingerprint=self._config_fingerprint,
        )
        return self._search(context, arguments, deadline)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._index.close()

    def _require_open(self) -> None:
        if self._closed:
            raise AdapterCallError("tool_call_failed", "product_error", "session is closed")


class IndexedAdapter:
    """An in-process adapter over the lexical index, given its id, its configuration (whose
    fingerprint binds the prepared index and every receipt) and its ``search`` function."""

    def __init__(
        self,
        adapter_id: str,
        config: Mapping[str, JsonValue],
        search: SearchFn,
        snapshot: CorpusSnapshot,
    ) -> None:
        self.adapter_id = adapter_id
        self._config = dict(config)
        self._search = search
        self._snapshot = snapshot

    @property
    def capabilities(self) -> Capabilities:
        return INDEXED_CAPABILITIES

    @property
    def config(self) -> JsonObject:
        return dict(self._config)

    def prepare(self, snapshot: CorpusSnapshot, root: Path, *, timeout_s: float) -> PreparedIndex:
        check_snapshot(self._snapshot, snapshot)
        return prepare_index(self.adapter_id, self._config, snapshot, root)

    def attach(self, prepared: PreparedIndex, *, timeout_s: float) -> AdapterSession:
        return attach_index(self.adapter_id, self._config, self._snapshot, prepared, self._search)
