"""The ``qmd-lex`` and ``qmd`` MCP profiles: real qmd over stdio, driven by ``McpAdapter``.

Preparation (unmeasured, fails closed with a precise ContractError code in the message of the
lane's ``adapter_preparation_failed`` matrix):

1. the lock (``locks/qmd.lock.json``) parses and still matches the committed npm inputs;
2. the install is the locked one: Node (>= 22, the pinned version) and qmd 2.8.3;
3. full lane only: the three pinned GGUF models are in ``QMD_MODEL_CACHE`` with their exact size
   and sha256 (``qmd_model_*``); there is no fallback to ``qmd-lex``;
4. the snapshot is materialized, ``qmd update`` (and ``qmd embed``) builds the index, and qmd is
   shown to hold exactly the snapshot (``native.py``);
5. one ``qmd mcp`` process reports the locked server identity and lists exactly the locked tools,
   descriptions and input schemas (``qmd_tool_drift`` otherwise).

Lifecycles: every attach starts ``node <qmd> mcp`` in a fresh run root on a byte-identical clone
of the prepared index, so a cold trial is a fresh process on pristine state; the warm cohort
keeps one process and sends one discarded readiness query (a lexical one for ``qmd-lex``; a full
query for ``qmd``, which loads its models before the scored trials).

Mapping:

- ``search`` -> ``query {searches | query, collections, rerank, limit?, minScore?,
  candidateLimit?, intent?}``. ``collections`` is the named collection (which must be the
  task's) or every task collection, in task order, as qmd collection names. ``qmd-lex`` sends the
  lexical sub-queries of ``plan.py`` with ``rerank: false``; ``qmd`` sends the plain query (qmd
  expands, fuses and reranks it; ``rerank`` follows the agent, default true). Other search
  options have no qmd counterpart and are ignored, as ``lexical`` ignores them.
- ``get`` -> ``get {file: <qmd collection>/<relPath>, fromLine?, maxLines?: lineCount,
  lineNumbers: false}``; ``multi_get`` -> ``multi_get {pattern: comma list, maxBytes: 1 GiB,
  lineNumbers: false}`` (the contract's ``maxBytes`` is applied while parsing).

Results: ``results.py``. A qmd error result is ``document_not_found`` when qmd says the document
is absent, else ``qmd_tool_error`` (product errors).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import mcp_types as types

from agentic.adapters import ids
from agentic.adapters.base import CallOutcome, declared_capabilities
from agentic.adapters.deadlines import PREPARE_TIMEOUT_OPTION
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.mcp.client import ConnectionLimits, McpClientError, McpConnection
from agentic.adapters.mcp.process import ChildSpec
from agentic.adapters.mcp.profile import (
    CallScope,
    McpProfile,
    NativeBuild,
    ParseInput,
    RawResult,
    ReadinessProbe,
    ToolBinding,
)
from agentic.adapters.qmd import native, results
from agentic.adapters.qmd.install import qmd_home, verify_install
from agentic.adapters.qmd.lockfile import QmdLock, check_npm_inputs, check_tools, load_qmd_lock
from agentic.adapters.qmd.lockfile import lock_path as qmd_lock_path
from agentic.adapters.qmd.models import verify_models
from agentic.adapters.qmd.plan import plan_lex
from agentic.adapters.reads import TaskScope
from agentic.contract.canonical import ZERO_HASH, canonical_text, sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.json_access import as_array, as_int, as_strs
from agentic.contract.strict_json import JsonArray, JsonObject
from agentic.fixture.snapshot import CorpusSnapshot

LEX_ID = ids.QMD_LEX
FULL_ID = ids.QMD
SERVER_NAME = "qmd"
PRODUCT_TOOLS = ("get", "multi_get", "query")
EMBED_TIMEOUT_S = 1800.0  # embedding a corpus on CPU; preparation is unmeasured
QMD_READ_MAX_BYTES = 1 << 30  # above any document, so qmd never skips a requested file
# Product fields every search may carry besides the query itself.
SEARCH_FIELDS = ("collections", "rerank", "limit", "minScore", "candidateLimit", "intent")
_PROBE_WORD = re.compile(r"[^\W_]+")
_RUNS_DIR = "runs"

CAPABILITIES = declared_capabilities(invocation_accounting=False, backend_hashes="unavailable")


def lock_fingerprint() -> str:
    """sha256 of the lock's bytes, bound into the configuration; zeros when it is unreadable
    (preparation then fails closed with ``qmd_lock_missing``)."""
    try:
        return sha256_hex(qmd_lock_path().read_bytes())
    except OSError:
        return ZERO_HASH


@dataclass(frozen=True)
class QmdMode:
    """One of the two qmd lanes; its bound methods are the profile's functions."""

    adapter_id: str
    full: bool

    @property
    def mode(self) -> str:
        return "qmd-hybrid" if self.full else "qmd-lex"

    def config(self, lock_sha256: str) -> JsonObject:
        return {
            "adapter": self.adapter_id,
            "version": 1,
            "transport": "stdio",
            "server": SERVER_NAME,
            "mapping": f"{self.mode}-v1",
            "productTools": list(PRODUCT_TOOLS),
            "lock": lock_sha256,
            "retrieval": self.mode,
            "expansion": self.full,
            "vectors": self.full,
            "reranking": self.full,
            "graph": False,
        }

    # -- preparation -------------------------------------------------------------------------

    def prepare_native(self, snapshot: CorpusSnapshot, root: Path, timeout_s: float) -> NativeBuild:
        lock = load_qmd_lock()
        check_npm_inputs(lock)
        install = verify_install(lock, qmd_home())
        settings = native.RunSettings.of(install)
        if self.full:
            models = verify_models(lock)
            settings = native.RunSettings.of(install, models.config(), lock.model("embed").sha256)
        fingerprint, details = native.build_index(
            snapshot,
            root,
            settings,
            timeout_s=timeout_s,
            embed_timeout_s=EMBED_TIMEOUT_S,
            setting=PREPARE_TIMEOUT_OPTION,
        )
        preflight_tools(lock, root, timeout_s)
        details.update(
            {
                "nodeVersion": install.node_version,
                "packageLockSha256": lock.npm.packageLock.sha256,
                "qmdToolsFingerprint": lock.toolsFingerprint,
            }
        )
        return NativeBuild(index_fingerprint=fingerprint, details=details)

    # -- argument mapping ----------------------------------------------------------------------

    def map_search(self, arguments: JsonObject, scope: CallScope) -> JsonObject:
        collections = searched_collections(arguments, scope)
        names = [native.collection_name(c) for c in collections]
        query = str(arguments["query"])
        product: JsonObject = {"collections": list(names)}
        if self.full:
            product["query"] = query
            product["rerank"] = bool(arguments.get("rerank", True))
        else:
            plan = plan_lex(query, reserved=tuple(names))
            product["searches"] = [{"type": "lex", "query": q} for q in plan.searches]
            product["rerank"] = False
        for key in ("limit", "minScore", "candidateLimit", "intent"):
            if key in arguments:
                product[key] = arguments[key]
        return product

    # -- results -------------------------------------------------------------------------------

    def parse(self, call: ParseInput) -> CallOutcome:
        if call.raw.is_error:
            raise error_result(call.tool, call.raw)
        if call.tool == "search":
            return results.search_outcome(
                call.raw.structured,
                scope=call.scope,
                collections=searched_collections(call.arguments, call.scope),
                mode=self.mode,
                query=str(call.arguments["query"]),
            )
        if call.tool == "get":
            count = call.arguments.get("lineCount")
            return results.get_outcome(
                call.raw.resources,
                scope=call.scope,
                uri=str(call.arguments["uri"]),
                start=as_int(call.arguments.get("fromLine", 1), "fromLine"),
                count=None if count is None else as_int(count, "lineCount"),
            )
        if call.raw.text:  # qmd reports a missing or skipped document as a text item
            raise error_result(call.tool, call.raw)
        max_bytes = call.arguments.get("maxBytes")
        return results.multi_get_outcome(
            call.raw.resources,
            scope=call.scope,
            uris=as_strs(call.arguments["uris"], "uris"),
            max_bytes=None if max_bytes is None else as_int(max_bytes, "maxBytes"),
        )

    # -- readiness -----------------------------------------------------------------------------

    def probe_arguments(self, scope: CallScope) -> JsonObject:
        """A real query on the task's first collection, made of the goal's first plain word."""
        words = _PROBE_WORD.findall(scope.task.brief.goal)
        names: JsonArray = [native.collection_name(scope.collections[0])]
        if self.full:
            return {"query": " ".join(words[:8]) or "document", "collections": names, "limit": 1}
        search: JsonObject = {"type": "lex", "query": (words or ["document"])[0]}
        return {"searches": [search], "collections": names, "rerank": False, "limit": 1}

    def profile(self) -> McpProfile:
        query_fields = ("query",) if self.full else ("searches",)
        return McpProfile(
            adapter_id=self.adapter_id,
            config_json=canonical_text(self.config(lock_fingerprint())),
            capabilities=CAPABILITIES,
            server_name=SERVER_NAME,
            prepare_native=self.prepare_native,
            verify_native=native.verify_index,
            command=command,
            environment=native.run_environment,
            sandbox_paths=native.sandbox_paths,
            bindings=(
                ToolBinding(
                    "search",
                    "query",
                    (*query_fields, *SEARCH_FIELDS),
                    self.map_search,
                ),
                ToolBinding("get", "get", ("file", "fromLine", "maxLines", "lineNumbers"), map_get),
                ToolBinding(
                    "multi_get", "multi_get", ("pattern", "maxBytes", "lineNumbers"), map_multi_get
                ),
            ),
            parse=self.parse,
            readiness=ReadinessProbe("query", self.probe_arguments, probe_check),
        )


def command(root: Path) -> tuple[str, ...]:
    return native.RunSettings.load(root).argv("mcp")


def searched_collections(arguments: JsonObject, scope: CallScope) -> tuple[str, ...]:
    collection = arguments.get("collection")
    if collection is None:
        return scope.collections
    TaskScope(scope.task.taskId, scope.collections).check_collection(str(collection))
    return (str(collection),)


def qmd_file(uri: str, scope: CallScope) -> str:
    """``<qmd collection>/<relPath>`` of a task URI (checked against the task's scope)."""
    TaskScope(scope.task.taskId, scope.collections).check_uri(uri)
    collection, _, rel_path = uri.removeprefix("gno://").partition("/")
    return f"{native.collection_name(collection)}/{rel_path}"


def map_get(arguments: JsonObject, scope: CallScope) -> JsonObject:
    product: JsonObject = {"file": qmd_file(str(arguments["uri"]), scope), "lineNumbers": False}
    if "fromLine" in arguments:
        product["fromLine"] = arguments["fromLine"]
    if "lineCount" in arguments:
        product["maxLines"] = arguments["lineCount"]
    return product


def map_multi_get(arguments: JsonObject, scope: CallScope) -> JsonObject:
    files = [qmd_file(str(uri), scope) for uri in as_array(arguments["uris"], "uris")]
    return {"pattern": ",".join(files), "maxBytes": QMD_READ_MAX_BYTES, "lineNumbers": False}


def error_result(tool: str, raw: RawResult) -> AdapterCallError:
    found = results.not_found(raw.text)
    if found is not None:
        return found
    first = raw.text.strip().splitlines()[0] if raw.text.strip() else "no message"
    return AdapterCallError("qmd_tool_error", "product_error", f"{tool}: {first}")


def probe_check(raw: RawResult) -> None:
    structured = raw.structured
    if raw.is_error or not isinstance(structured, dict):
        raise AdapterError("readiness_probe_failed", "harness_error", "probe query failed")
    if not isinstance(structured.get("results"), list):
        raise AdapterError("readiness_probe_failed", "harness_error", "probe returned no results")


@dataclass(frozen=True)
class ServerIdentity:
    """What one ``qmd mcp`` process reported: its name and version, and its listed tools."""

    name: str
    version: str
    tools: tuple[JsonObject, ...]


def server_identity(root: Path, timeout_s: float) -> ServerIdentity:
    """Start ``qmd mcp`` once on a clone of the prepared index and list its tools."""
    runs = root / _RUNS_DIR
    runs.mkdir(parents=True, exist_ok=True)
    run_root = Path(tempfile.mkdtemp(prefix="preflight-", dir=runs))
    try:
        env = native.run_environment(root, run_root)
        spec = ChildSpec(command(root), env, run_root, native.run_view(root, run_root))
        limits = ConnectionLimits(max_message_bytes=4 * 1024 * 1024)
        connection = McpConnection.open(spec, limits, timeout_s=timeout_s)
        try:
            tools = connection.list_tools(timeout_s=timeout_s)
        finally:
            connection.close()
    except McpClientError as exc:
        raise ContractError("qmd_preflight_failed", f"qmd mcp: {exc.kind}: {exc}") from None
    finally:
        shutil.rmtree(run_root, ignore_errors=True)
        with suppress(OSError):
            runs.rmdir()  # only when no run is using it
    return ServerIdentity(
        name=connection.server_name,
        version=connection.server_version,
        tools=tuple(listed_tool(tool) for tool in tools),
    )


def preflight_tools(lock: QmdLock, root: Path, timeout_s: float) -> None:
    """The running qmd reports the locked identity and lists exactly the locked tools."""
    identity = server_identity(root, timeout_s)
    expected = (lock.server.name, lock.server.version)
    if (identity.name, identity.version) != expected:
        raise ContractError(
            "qmd_version_mismatch",
            f"qmd mcp reports {(identity.name, identity.version)}, the lock pins {expected}",
        )
    check_tools(lock, identity.tools)


def listed_tool(tool: types.Tool) -> JsonObject:
    """An SDK tool as ``{name, description, inputSchema}``."""
    return {
        "name": tool.name,
        "description": tool.description or "",
        "inputSchema": tool.input_schema,
    }


def qmd_lex_profile() -> McpProfile:
    return QmdMode(LEX_ID, full=False).profile()


def qmd_full_profile() -> McpProfile:
    return QmdMode(FULL_ID, full=True).profile()
