"""The ``gno-mcp`` profile: the shipped GNO MCP server (``gno mcp``) over stdio.

Preparation fails closed when the ``gno`` executable is absent (``gno_executable_not_found``, a
harness error, so the lane is excluded loudly, never skipped). Otherwise it materializes the
corpus snapshot under ``ROOT/corpus-snapshot/<task>/<collection>/``, writes an isolated config
(``ROOT/config/index.yml``, one GNO collection per fixture collection, ``snowball english``),
and runs GNO's own offline ingestion and embedding with the data and cache directories under
ROOT. Each attach then runs ``gno --index agentic --config ROOT/config/index.yml --offline mcp``.

Mapping (the product's public options; ``lineNumbers: false`` so returned bytes can be bound to
fixture lines):

- ``search`` -> ``gno_query``: a named collection must be the task's; a single-collection task
  is scoped automatically; a multi-collection task must name one
  (``gno_collection_scope_required``). ``filters`` keys move to GNO's top-level filter
  arguments (``gno_filter_unsupported`` otherwise).
- ``get`` -> ``gno_get {ref: uri, fromLine?, lineCount?, lineNumbers: false}``.
- ``multi_get`` -> ``gno_multi_get {refs: uris, maxBytes?, lineNumbers: false}``.

Normalization: candidate and source payloads keep only stable fields (no paths, mtimes or
messages); the ``?index=agentic`` URI decoration is removed. A returned span yields evidence only
when it equals the snapshot's exact inclusive lines (optionally with one trailing LF), one
single-line item per line; for a search, the lines containing the query phrase when there are
any. GNO returns no span hashes, so backend hashes are unavailable. A product error result is
delivered as ``gno_<code>`` with content ``{"errorCode": ...}``. Search backend invocations count
the retrieval stages GNO declares in ``meta`` (lexical, vectors, expansion, rerank, graph).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from agentic.adapters import ids
from agentic.adapters.base import CallOutcome, declared_capabilities, ok_outcome
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.lexical_index import index_fingerprint
from agentic.adapters.mcp import profile, results
from agentic.adapters.mcp.process import isolated_environment, run_bounded

# By name: tests/test_error_codes.py registers this relayed code by its source text.
from agentic.adapters.mcp.results import product_error_code
from agentic.adapters.reads import TaskScope, line_evidence
from agentic.adapters.sandbox import View
from agentic.contract.canonical import canonical_text
from agentic.contract.code_names import ErrorCodeName, RelayedCode
from agentic.contract.json_access import as_array, as_object
from agentic.contract.receipt import ToolEvidence, ToolResult
from agentic.contract.strict_json import JsonObject
from agentic.fixture.snapshot import CorpusFile, CorpusSnapshot
from agentic.fixture.spans import extract_span

ADAPTER_ID = ids.GNO_MCP
SERVER_NAME = "gno"
INDEX_NAME = "agentic"
TOKENIZER = "snowball english"
EXECUTABLE_ENV = "AGENTIC_GNO_EXECUTABLE"
EXECUTABLE_FILE = "gno-executable.json"
HASH_REASON = "GNO MCP does not return a complete source/span hash pair"
PRODUCT_TOOLS = ("gno_get", "gno_multi_get", "gno_query")
# The preparation steps (`gno --json <step>`), in order, each with the code of its failure.
_PREPARE_STEPS: dict[str, ErrorCodeName] = {
    "update": "gno_update_failed",
    "embed": "gno_embed_failed",
}
FILTER_KEYS = frozenset({"since", "until", "author", "categories", "tagsAll", "tagsAny"})
SEARCH_MODES = frozenset({"bm25", "vector", "hybrid", "bm25_only"})
CONFIG: JsonObject = {
    "adapterId": ADAPTER_ID,
    "version": 1,
    "canonicalMapping": "gno-mcp-v1",
    "indexName": INDEX_NAME,
    "offline": True,
    "productTools": list(PRODUCT_TOOLS),
}
CAPABILITIES = declared_capabilities(invocation_accounting=True, backend_hashes="unavailable")
_URI_DECORATION = f"?index={INDEX_NAME}"


# -- preparation -----------------------------------------------------------------------------------


def locate_executable() -> Path:
    """The ``gno`` executable: ``$AGENTIC_GNO_EXECUTABLE`` or the first ``gno`` on PATH."""
    candidate = os.environ.get(EXECUTABLE_ENV) or shutil.which("gno")
    path = Path(candidate) if candidate else None
    if path is None or not path.is_file() or not os.access(path, os.X_OK):
        raise AdapterError(
            "gno_executable_not_found",
            "harness_error",
            f"no executable gno (set {EXECUTABLE_ENV} or put gno on PATH)",
        )
    return path.resolve()


def _config_path(root: Path) -> Path:
    return root / "config" / "index.yml"


def _materialize(snapshot: CorpusSnapshot, root: Path) -> list[JsonObject]:
    """Write the snapshot bytes under ROOT/corpus-snapshot; one GNO collection per collection."""
    collections: dict[str, Path] = {}
    for file in snapshot.files:
        base = root / "corpus-snapshot" / file.task_id / file.collection
        target = base / file.rel_path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(file.data)
        collections[file.collection] = base
    return [
        {"name": name, "path": str(path), "pattern": "**/*.md", "include": [], "exclude": []}
        for name, path in sorted(collections.items())
    ]


def _write_config(root: Path, collections: list[JsonObject]) -> None:
    config = {
        "version": "1.0",
        "ftsTokenizer": TOKENIZER,
        "collections": collections,
        "contexts": [],
        "contentTypes": [],
    }
    path = _config_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    # JSON is YAML: the file is written without a YAML library.
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def _product_env(root: Path, run_root: Path) -> dict[str, str]:
    extra = {
        "GNO_CONFIG_DIR": str(root / "config"),
        "GNO_DATA_DIR": str(root / "data"),
        "GNO_CACHE_DIR": str(root / "cache"),
    }
    for directory in extra.values():
        Path(directory).mkdir(parents=True, exist_ok=True)
    return isolated_environment(run_root, extra)


def _gno_argv(root: Path, *command: str) -> tuple[str, ...]:
    recorded = json.loads((root / EXECUTABLE_FILE).read_text(encoding="utf-8"))
    executable = str(recorded["executable"])
    return (
        executable,
        "--index",
        INDEX_NAME,
        "--config",
        str(_config_path(root)),
        "--offline",
        *command,
    )


def _run_bounded(argv: tuple[str, ...], env: dict[str, str], root: Path, timeout_s: float) -> None:
    """Run one preparation step (in ``root/prepare``, which it may write, with the rest of the
    prepared root) in its own process group; kill the group on timeout."""
    view = View(writable=(root,))
    finished = run_bounded(argv, env, root / "prepare", timeout_s, label=argv[-1], view=view)
    if finished.returncode != 0:
        raise AdapterError(
            _PREPARE_STEPS[argv[-1]],
            "harness_error",
            f"gno {argv[-1]} exited {finished.returncode}: {finished.stderr_tail}",
        )


def prepare_native(snapshot: CorpusSnapshot, root: Path, timeout_s: float) -> profile.NativeBuild:
    executable = locate_executable()
    root.mkdir(parents=True, exist_ok=True)
    (root / EXECUTABLE_FILE).write_text(
        json.dumps({"executable": str(executable)}) + "\n", encoding="utf-8"
    )
    _write_config(root, _materialize(snapshot, root))
    work = root / "prepare"
    work.mkdir(exist_ok=True)
    env = _product_env(root, work)
    for step in _PREPARE_STEPS:
        _run_bounded(_gno_argv(root, "--json", step), env, root, timeout_s)
    return profile.NativeBuild(
        index_fingerprint=index_fingerprint(snapshot, TOKENIZER),
        details={"documents": len(snapshot.files), "tokenizer": TOKENIZER},
    )


def server_command(root: Path) -> tuple[str, ...]:
    return _gno_argv(root, "mcp")


# -- argument mapping ------------------------------------------------------------------------------


def _task_scope(scope: profile.CallScope) -> TaskScope:
    return TaskScope(task_id=scope.task.taskId, collections=scope.collections)


def map_search(arguments: JsonObject, scope: profile.CallScope) -> JsonObject:
    mapped = {key: value for key, value in arguments.items() if key != "filters"}
    for key, value in as_object(arguments.get("filters") or {}, "filters").items():
        if key not in FILTER_KEYS or key in mapped:
            raise AdapterCallError(
                "gno_filter_unsupported", "product_error", f"GNO cannot map filter {key!r}"
            )
        mapped[key] = value
    collection = mapped.get("collection")
    if collection is not None:
        _task_scope(scope).check_collection(str(collection))
    elif len(scope.collections) == 1:
        mapped["collection"] = scope.collections[0]
    else:
        raise AdapterCallError(
            "gno_collection_scope_required",
            "product_error",
            "a search of a multi-collection task must name one collection",
        )
    return mapped


def map_get(arguments: JsonObject, scope: profile.CallScope) -> JsonObject:
    _task_scope(scope).check_uri(str(arguments["uri"]))
    rest = {key: value for key, value in arguments.items() if key != "uri"}
    return {"ref": arguments["uri"], **rest, "lineNumbers": False}


def map_multi_get(arguments: JsonObject, scope: profile.CallScope) -> JsonObject:
    for uri in as_array(arguments["uris"], "uris"):
        _task_scope(scope).check_uri(str(uri))
    rest = {key: value for key, value in arguments.items() if key != "uris"}
    return {"refs": arguments["uris"], **rest, "lineNumbers": False}


# -- result parsing --------------------------------------------------------------------------------


def stable_uri(uri: str) -> str:
    return uri.removesuffix(_URI_DECORATION)


def _normalized_text(file: CorpusFile) -> str:
    return file.text.replace("\r\n", "\n").replace("\r", "\n")


def exact_span_evidence(file: CorpusFile, start: int, end: int, text: str) -> list[ToolEvidence]:
    """Line-atomic evidence when ``text`` is exactly lines start..end (one trailing LF allowed)."""
    span = extract_span(file.lines, start, end)
    if span is None or text not in (span, span + "\n"):
        return []
    return [line_evidence(file, line, HASH_REASON) for line in range(start, end + 1)]


def _check_source(source: object, file: CorpusFile, what: str, *, with_hash: bool) -> str | None:
    """Check the product's source identity against the snapshot; return its source hash."""
    identity = results.as_object(source, f"{what}.source")
    for key in ("relPath", "mime", "ext"):
        results.as_str(identity.get(key), f"{what}.source.{key}")
    if identity["relPath"] != file.rel_path:
        raise results.invalid(f"{what} names another source path")
    if not with_hash:
        return None
    source_hash = results.as_str(identity.get("sourceHash"), f"{what}.source.sourceHash")
    if source_hash != file.source_hash:
        raise results.invalid(f"{what} source hash differs from the snapshot")
    return source_hash


def _search(call: profile.ParseInput, structured: JsonObject) -> CallOutcome:
    meta = results.as_object(structured.get("meta"), "meta")
    query = results.as_str(meta.get("query"), "meta.query")
    mode = results.as_str(meta.get("mode"), "meta.mode")
    if mode not in SEARCH_MODES:
        raise results.invalid(f"unknown search mode {mode!r}")
    stages = [
        results.as_bool(meta.get(k), f"meta.{k}") for k in ("vectorsUsed", "expanded", "reranked")
    ]
    total = results.as_int(meta.get("totalResults"), "meta.totalResults")
    graph = meta.get("graphExpansion")
    graph_enabled = isinstance(graph, dict) and graph.get("enabled") is True
    phrase = query.strip().lower()
    collection = str(call.product_arguments["collection"])
    evidence: list[ToolEvidence] = []
    notes: list[str] = []
    hits: list[JsonObject] = []
    for position, item in enumerate(results.as_list(structured.get("results"), "results")):
        what = f"results[{position}]"
        hit = results.as_object(item, what)
        uri = stable_uri(results.as_str(hit.get("uri"), f"{what}.uri"))
        file = results.scoped_file(call.scope, uri, [collection])
        source_hash = _check_source(hit.get("source"), file, what, with_hash=True)
        span = results.as_object(hit.get("snippetRange"), f"{what}.snippetRange")
        start = results.as_int(span.get("startLine"), f"{what}.snippetRange.startLine", 1)
        end = results.as_int(span.get("endLine"), f"{what}.snippetRange.endLine", start)
        results.check_claimed_lines(
            file, start, end, f"{what} snippet range", counts_final_newline=True
        )
        snippet = results.as_str(hit.get("snippet"), f"{what}.snippet")
        lines = exact_span_evidence(file, start, end, snippet)
        matching = [e for e in lines if phrase and phrase in e.text.lower()]
        evidence.extend(matching or lines)
        if not lines:
            notes.append(f"ignored a non-exact candidate span of {uri}")
        hits.append(
            {
                "uri": uri,
                "docid": results.as_str(hit.get("docid"), f"{what}.docid"),
                "title": results.optional_str(hit.get("title"), f"{what}.title"),
                "score": results.as_unit_score(hit.get("score"), f"{what}.score"),
                "snippet": snippet,
                "snippetRange": {"startLine": start, "endLine": end},
                "context": results.optional_str(hit.get("context"), f"{what}.context"),
                "sourceHash": source_hash,
            }
        )
    stable_meta = {
        "query": query,
        "mode": mode,
        "vectorsUsed": stages[0],
        "expanded": stages[1],
        "reranked": stages[2],
        "totalResults": total,
    }
    content = canonical_text({"results": hits, "meta": stable_meta})
    invocations = 1 + sum(stages) + int(graph_enabled)
    return ok_outcome("candidates", content, evidence, invocations, notes)


def _get(call: profile.ParseInput, structured: JsonObject) -> CallOutcome:
    uri = stable_uri(results.as_str(structured.get("uri"), "uri"))
    file = results.scoped_file(call.scope, uri)
    if uri != call.arguments["uri"]:
        raise results.invalid("gno_get answered another document")
    results.as_str(structured.get("docid"), "docid")
    content = results.as_str(structured.get("content"), "content")
    total = results.as_int(structured.get("totalLines"), "totalLines")
    _check_source(structured.get("source"), file, "get", with_hash=True)
    if total != results.product_line_count(file):
        raise results.invalid("gno_get totalLines differs from the source")
    returned: dict[str, int] | None = None
    if structured.get("returnedLines") is not None:
        lines = results.as_object(structured["returnedLines"], "returnedLines")
        start = results.as_int(lines.get("start"), "returnedLines.start", 1)
        end = results.as_int(lines.get("end"), "returnedLines.end", start)
        results.check_claimed_lines(
            file, start, end, "gno_get returned range", counts_final_newline=True
        )
        returned = {"start": start, "end": end}
        evidence = exact_span_evidence(file, start, end, content)
    elif content == _normalized_text(file):
        evidence = exact_span_evidence(file, 1, len(file.lines), content)
    else:
        evidence = []
    payload = {"uri": uri, "totalLines": total, "returnedLines": returned, "content": content}
    notes = [] if evidence else [f"gno_get exposed no exact fixture span of {uri}"]
    return ok_outcome("source", canonical_text(payload), evidence, 1, notes)


def _multi_get(call: profile.ParseInput, structured: JsonObject) -> CallOutcome:
    meta = results.as_object(structured.get("meta"), "meta")
    documents = results.as_list(structured.get("documents"), "documents")
    skipped = results.as_list(structured.get("skipped"), "skipped")
    requested = results.as_int(meta.get("requested"), "meta.requested")
    if (
        results.as_int(meta.get("returned"), "meta.returned") != len(documents)
        or results.as_int(meta.get("skipped"), "meta.skipped") != len(skipped)
        or requested != len(documents) + len(skipped)
    ):
        raise results.invalid("gno_multi_get counts are inconsistent")
    for position, item in enumerate(skipped):
        entry = results.as_object(item, f"skipped[{position}]")
        results.as_str(entry.get("ref"), f"skipped[{position}].ref")
        results.as_str(entry.get("reason"), f"skipped[{position}].reason")
    evidence: list[ToolEvidence] = []
    notes: list[str] = []
    served: list[JsonObject] = []
    for position, item in enumerate(documents):
        what = f"documents[{position}]"
        document = results.as_object(item, what)
        uri = stable_uri(results.as_str(document.get("uri"), f"{what}.uri"))
        file = results.scoped_file(call.scope, uri)
        results.as_str(document.get("docid"), f"{what}.docid")
        content = results.as_str(document.get("content"), f"{what}.content")
        total = results.as_int(document.get("totalLines"), f"{what}.totalLines")
        truncated = results.as_bool(document.get("truncated"), f"{what}.truncated")
        _check_source(document.get("source"), file, what, with_hash=False)
        if total != results.product_line_count(file):
            raise results.invalid(f"{what} totalLines differs from the source")
        exact = content == _normalized_text(file)
        found = exact_span_evidence(file, 1, len(file.lines), content) if exact else []
        evidence.extend(found)
        if not found:
            notes.append(f"gno_multi_get returned truncated or non-exact content of {uri}")
        served.append({"uri": uri, "totalLines": total, "truncated": truncated, "content": content})
    return ok_outcome("source", canonical_text({"documents": served}), evidence, 1, notes)


def _error(raw: profile.RawResult) -> CallOutcome:
    """A product error, delivered to the agent with its stable code and no volatile message."""
    code = RelayedCode(f"gno_{product_error_code(raw.structured, 'error')}")
    result = ToolResult(
        status="error",
        resultRole="source",
        content=canonical_text({"errorCode": code}),
        evidence=(),
        errorCode=code,
    )
    notes = ("GNO MCP returned a product error; volatile message excluded",)
    return CallOutcome(result=result, backend_invocations=1, diagnostics=notes)


def parse(call: profile.ParseInput) -> CallOutcome:
    if call.raw.is_error:
        return _error(call.raw)
    return results.parse_structured(call, _search, _get, _multi_get)


# -- readiness -------------------------------------------------------------------------------------


def probe_arguments(scope: profile.CallScope) -> JsonObject:
    return {
        "query": scope.task.brief.goal,
        "collection": scope.collections[0],
        "limit": 1,
        "fast": True,
        "graph": False,
    }


def probe_check(raw: profile.RawResult) -> None:
    """The warm probe must prove hybrid retrieval is live: ``meta.vectorsUsed`` is true."""
    structured = raw.structured
    meta = structured.get("meta") if isinstance(structured, dict) else None
    if raw.is_error or not isinstance(meta, dict) or meta.get("vectorsUsed") is not True:
        raise AdapterError(
            "readiness_probe_failed", "harness_error", "probe did not report vectorsUsed"
        )


_SEARCH_FIELDS = (
    "query", "collection", "limit", "minScore", "lang", "intent", "candidateLimit", "exclude",
    "since", "until", "categories", "author", "queryModes", "fast", "thorough", "expand",
    "rerank", "graph", "tagsAll", "tagsAny",
)  # fmt: skip

PROFILE = profile.McpProfile(
    adapter_id=ADAPTER_ID,
    config_json=canonical_text(CONFIG),
    capabilities=CAPABILITIES,
    server_name=SERVER_NAME,
    prepare_native=prepare_native,
    verify_native=None,
    command=server_command,
    environment=_product_env,
    bindings=(
        profile.ToolBinding("search", "gno_query", _SEARCH_FIELDS, map_search),
        profile.ToolBinding(
            "get", "gno_get", ("ref", "fromLine", "lineCount", "lineNumbers"), map_get
        ),
        profile.ToolBinding(
            "multi_get", "gno_multi_get", ("refs", "maxBytes", "lineNumbers"), map_multi_get
        ),
    ),
    parse=parse,
    readiness=profile.ReadinessProbe("gno_query", probe_arguments, probe_check),
)
