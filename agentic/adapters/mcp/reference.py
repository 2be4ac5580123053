"""The ``mcp-reference`` profile: our own reference server (``agentic serve``) as a real stdio
MCP product, so the authoritative lane exercises real processes, cold and warm.

Preparation builds the lexical index (the same builder, file and fingerprint as ``lexical``)
directly in the prepared root; each attach runs ``<this python> -m agentic.server --index ROOT``
in a fresh isolated HOME under ``ROOT/runs``.

Mapping of the frozen tools onto the server's own:

- ``search`` -> ``kb_search {query, collections, limit?}``: ``collections`` is the named
  collection (which must be the task's) or every task collection, in task order. ``minScore`` is
  applied here, after the server's normalization, as ``lexical`` does; other search options are
  accepted and ignored, as ``lexical`` does.
- ``get`` -> ``kb_get {uri, fromLine?, lineCount?, lineNumbers: false}``.
- ``multi_get`` -> ``kb_multi_get {uris, maxBytes?, lineNumbers: false}``.

Normalization reproduces the in-process ``lexical`` adapter's results from what the server
returned: the same content (per-collection ``{mode:"bm25", query, results}`` payloads; for reads
the evidence texts, i.e. the non-blank served lines, joined by LF), the same backend-invocation
accounting (one per searched collection, two per requested URI) and evidence for every
non-blank returned line that equals the snapshot.
Server error results end the call with the server's own code, which is the code ``lexical``
raises for the same fault (``invalid_search_query``, ``document_not_found``, ...).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import agentic
from agentic.adapters import ids, indexed
from agentic.adapters.base import CallOutcome, ok_outcome
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.lexical_index import INDEX_FILE, TOKENIZER, LexicalIndex, build_index
from agentic.adapters.mcp import profile, results
from agentic.adapters.mcp.client import ConnectionLimits, first_result_seconds
from agentic.adapters.mcp.process import ChildSpec, isolated_environment

# By name: tests/test_error_codes.py registers this relayed code by its source text.
from agentic.adapters.mcp.results import product_error_code
from agentic.adapters.reads import (
    INVOCATIONS_PER_READ,
    TaskScope,
    read_content,
    scope_violation,
)
from agentic.contract.canonical import canonical_text
from agentic.contract.code_names import RelayedCode
from agentic.contract.json_access import as_array, as_number, as_strs
from agentic.contract.receipt import ToolEvidence
from agentic.contract.strict_json import JsonArray, JsonObject
from agentic.fixture.snapshot import CorpusSnapshot

ADAPTER_ID = ids.MCP_REFERENCE
# Must equal agentic.server.app.SERVER_NAME (adapters may not import the server; a test pins it).
SERVER_NAME = "agentic-reference"
SEARCH_REASON = "the reference MCP server returns no source/span hashes for search results"
READ_HASH_REASON = "the reference MCP server returns no source/span hashes for reads"
PRODUCT_TOOLS = ("kb_get", "kb_multi_get", "kb_search")
CONFIG: JsonObject = {
    "adapter": ADAPTER_ID,
    "version": 1,
    "transport": "stdio",
    "server": SERVER_NAME,
    "mapping": "mcp-reference-v1",
    "productTools": list(PRODUCT_TOOLS),
    "retrieval": "fts5-bm25-porter",
    "expansion": False,
    "vectors": False,
    "reranking": False,
    "graph": False,
}
RUNS_DIR = "runs"
_PROBE_WORD = re.compile(r"[^\W_]+")
_PROBE_WORDS = 8


# -- process -------------------------------------------------------------------------------------


def server_command(index_dir: Path) -> tuple[str, ...]:
    # The slim entry point: the full CLI would cost every cold pair its imports.
    return (sys.executable, "-m", "agentic.server", "--index", str(index_dir))


def server_environment(index_dir: Path, run_root: Path) -> dict[str, str]:
    """An isolated environment that still imports this very ``agentic`` package."""
    package_parent = Path(agentic.__file__).resolve().parent.parent
    return isolated_environment(run_root, {"PYTHONPATH": str(package_parent)})


def package_paths(index_dir: Path) -> tuple[Path, ...]:
    """Under the sandbox the server sees the ``agentic`` package itself, not the checkout (or
    site-packages folder) around it: PYTHONPATH names the parent, whose other entries (the
    fixtures and their oracles) stay out of sight."""
    return (Path(agentic.__file__).resolve().parent,)


def prepare_native(snapshot: CorpusSnapshot, root: Path, timeout_s: float) -> profile.NativeBuild:
    root.mkdir(parents=True, exist_ok=True)
    built = build_index(snapshot, root / INDEX_FILE)
    return profile.NativeBuild(
        index_fingerprint=built.index_fingerprint,
        details={"documents": built.document_count, "tokenizer": TOKENIZER},
    )


def verify_native(root: Path) -> str:
    index = LexicalIndex.open(root / INDEX_FILE, read_only=True)
    try:
        return index.index_fingerprint
    finally:
        index.close()


# -- argument mapping ------------------------------------------------------------------------------


def _task_scope(scope: profile.CallScope) -> TaskScope:
    return TaskScope(task_id=scope.task.taskId, collections=scope.collections)


def map_search(arguments: JsonObject, scope: profile.CallScope) -> JsonObject:
    collection = arguments.get("collection")
    collections: JsonArray
    if collection is None:
        collections = list(scope.collections)
    else:
        _task_scope(scope).check_collection(str(collection))
        collections = [str(collection)]
    product: JsonObject = {"query": arguments["query"], "collections": collections}
    if "limit" in arguments:
        product["limit"] = arguments["limit"]
    return product


def map_get(arguments: JsonObject, scope: profile.CallScope) -> JsonObject:
    _task_scope(scope).check_uri(str(arguments["uri"]))
    keys: tuple[str, ...] = ("uri", "fromLine", "lineCount")
    product = {key: arguments[key] for key in keys if key in arguments}
    return {**product, "lineNumbers": False}


def map_multi_get(arguments: JsonObject, scope: profile.CallScope) -> JsonObject:
    for uri in as_array(arguments["uris"], "uris"):
        _task_scope(scope).check_uri(str(uri))
    keys: tuple[str, ...] = ("uris", "maxBytes")
    product = {key: arguments[key] for key in keys if key in arguments}
    return {**product, "lineNumbers": False}


# -- result parsing --------------------------------------------------------------------------------


def _search(call: profile.ParseInput, structured: JsonObject) -> CallOutcome:
    requested = as_strs(call.product_arguments["collections"], "collections")
    searched = [
        results.as_str(c, "searched collection")
        for c in results.as_list(structured.get("searched"), "searched")
    ]
    for collection in searched:
        if collection not in call.scope.collections:
            raise scope_violation(f"the product searched {collection!r}, outside the task's scope")
    if searched != requested:
        raise results.invalid("the product searched other collections than requested")
    query = results.as_str(structured.get("query"), "query")
    if query != call.product_arguments["query"]:
        raise results.invalid("the product answered another query")
    min_score = call.arguments.get("minScore")
    hits: dict[str, list[JsonObject]] = {collection: [] for collection in searched}
    evidence: list[ToolEvidence] = []
    notes: list[str] = []
    for position, item in enumerate(results.as_list(structured.get("results"), "results")):
        what = f"results[{position}]"
        hit = results.as_object(item, what)
        uri = results.as_str(hit.get("uri"), f"{what}.uri")
        file = results.scoped_file(call.scope, uri, searched)
        score = results.as_unit_score(hit.get("score"), f"{what}.score")
        start = results.as_int(hit.get("startLine"), f"{what}.startLine", 1)
        end = results.as_int(hit.get("endLine"), f"{what}.endLine", start)
        results.check_claimed_lines(file, start, end, what)
        lines = results.served_lines(
            results.as_str(hit.get("text"), f"{what}.text"), start, end, what
        )
        if min_score is not None and score < as_number(min_score, "minScore"):
            continue
        found, mismatched = results.matching_evidence(file, start, lines, SEARCH_REASON)
        evidence.extend(found)
        notes.extend(results.mismatch_note(uri, mismatched))
        hits[file.collection].append(
            {"uri": uri, "score": score, "startLine": start, "endLine": end}
        )
    payloads = [{"mode": "bm25", "query": query, "results": hits[c]} for c in searched]
    content = canonical_text(payloads[0] if len(payloads) == 1 else {"scopes": payloads})
    return ok_outcome("candidates", content, evidence, len(searched), notes)


def _get(call: profile.ParseInput, structured: JsonObject) -> CallOutcome:
    uri = results.as_str(structured.get("uri"), "uri")
    file = results.scoped_file(call.scope, uri)
    if uri != call.product_arguments["uri"]:
        raise results.invalid("the product answered another document")
    start = results.as_int(structured.get("startLine"), "startLine", 1)
    if start != call.arguments.get("fromLine", 1):
        raise results.invalid("the product served another range than requested")
    end = results.as_int(structured.get("endLine"), "endLine", start - 1)
    results.check_claimed_lines(file, start, end, "get result")
    text = results.as_str(structured.get("text"), "text")
    lines = results.served_lines(text, start, end, "get result")
    evidence, mismatched = results.matching_evidence(file, start, lines, READ_HASH_REASON)
    notes = results.mismatch_note(uri, mismatched)
    return ok_outcome("source", read_content(evidence), evidence, INVOCATIONS_PER_READ, notes)


def _multi_get(call: profile.ParseInput, structured: JsonObject) -> CallOutcome:
    uris = as_strs(call.product_arguments["uris"], "uris")
    if results.as_int(structured.get("requested"), "requested") != len(uris):
        raise results.invalid("multi_get reports another request size")
    documents = results.as_list(structured.get("documents"), "documents")
    if results.as_int(structured.get("returned"), "returned") != len(documents):
        raise results.invalid("multi_get counts are inconsistent")
    if len(documents) > len(uris):
        raise results.invalid("multi_get returned more documents than requested")
    evidence: list[ToolEvidence] = []
    notes: list[str] = []
    for position, (item, expected) in enumerate(zip(documents, uris, strict=False)):
        what = f"documents[{position}]"
        document = results.as_object(item, what)
        uri = results.as_str(document.get("uri"), f"{what}.uri")
        file = results.scoped_file(call.scope, uri)
        if uri != expected:
            raise results.invalid("multi_get answered out of request order")
        if results.as_int(document.get("startLine"), f"{what}.startLine", 1) != 1:
            raise results.invalid("multi_get documents must start at line 1")
        end = results.as_int(document.get("endLine"), f"{what}.endLine", 1)
        results.check_claimed_lines(file, 1, end, what)
        cut = results.as_bool(document.get("truncated"), f"{what}.truncated")
        if cut and position != len(documents) - 1:
            raise results.invalid("only the last multi_get document may be cut")
        text = results.as_str(document.get("text"), f"{what}.text")
        found, mismatched = results.matching_evidence(
            file, 1, results.served_lines(text, 1, end, what), READ_HASH_REASON
        )
        evidence.extend(found)
        notes.extend(results.mismatch_note(uri, mismatched))
    invocations = INVOCATIONS_PER_READ * len(uris)
    return ok_outcome("source", read_content(evidence), evidence, invocations, notes)


def parse(call: profile.ParseInput) -> CallOutcome:
    if call.raw.is_error:
        # The server's own code (cataloged where server/app.py raises it), passed on as sent.
        code = RelayedCode(product_error_code(call.raw.structured, "error"))
        raise AdapterCallError(code, "product_error", f"{call.tool}: server error {code}")
    return results.parse_structured(call, _search, _get, _multi_get)


# -- readiness -------------------------------------------------------------------------------------


def probe_arguments(scope: profile.CallScope) -> JsonObject:
    """A real search in the task's first collection, built from the goal's plain words (so the
    query grammar always accepts it; whether it matches anything does not matter)."""
    words = _PROBE_WORD.findall(scope.task.brief.goal)[:_PROBE_WORDS]
    return {"query": " ".join(words) or "a", "collections": [scope.collections[0]], "limit": 1}


def probe_check(raw: profile.RawResult) -> None:
    structured = raw.structured
    if raw.is_error or not isinstance(structured, dict):
        raise AdapterError("readiness_probe_failed", "harness_error", "probe search failed")
    if not isinstance(structured.get("results"), list):
        raise AdapterError("readiness_probe_failed", "harness_error", "probe returned no results")


PROFILE = profile.McpProfile(
    adapter_id=ADAPTER_ID,
    config_json=canonical_text(CONFIG),
    capabilities=indexed.INDEXED_CAPABILITIES,
    server_name=SERVER_NAME,
    prepare_native=prepare_native,
    verify_native=verify_native,
    command=server_command,
    environment=server_environment,
    sandbox_paths=package_paths,
    bindings=(
        profile.ToolBinding("search", "kb_search", ("query", "collections", "limit"), map_search),
        profile.ToolBinding(
            "get", "kb_get", ("uri", "fromLine", "lineCount", "lineNumbers"), map_get
        ),
        profile.ToolBinding(
            "multi_get", "kb_multi_get", ("uris", "maxBytes", "lineNumbers"), map_multi_get
        ),
    ),
    parse=parse,
    readiness=profile.ReadinessProbe("kb_search", probe_arguments, probe_check),
)


# -- benchmark hook --------------------------------------------------------------------------------


def cold_start_seconds(
    index_dir: Path, *, query: str = "a", collection: str | None = None, timeout_s: float = 60.0
) -> float:
    """Wall seconds from spawning ``agentic serve --index DIR`` to its first search result.

    ``index_dir`` holds a prepared lexical index (``agentic prepare --adapter lexical``). The
    search covers ``collection``, or every collection in the index when it is None.
    """
    with tempfile.TemporaryDirectory(prefix="agentic-cold-start-") as run_dir:
        run_root = Path(run_dir)
        spec = ChildSpec(
            argv=server_command(index_dir),
            env=server_environment(index_dir, run_root),
            cwd=run_root,
            view=PROFILE.view(index_dir, run_root),
        )
        limits = ConnectionLimits(max_message_bytes=PROFILE.max_message_bytes)
        arguments: JsonObject = {"query": query, "limit": 1}
        if collection is not None:
            arguments["collections"] = [collection]
        elapsed, result = first_result_seconds(
            spec, limits, "kb_search", arguments, timeout_s=timeout_s
        )
    if result.is_error:
        raise AdapterError("readiness_probe_failed", "harness_error", "cold-start search failed")
    return elapsed
