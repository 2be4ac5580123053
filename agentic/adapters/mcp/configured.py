"""A user's MCP server as an adapter: a backend config (``backend_config.py``) made a profile.

Preparation lays the verified snapshot out as ``{corpus}/<collection>/<relPath>`` (files
read-only), runs the config's ``prepare`` command once (bounded, its own process group, an
isolated environment, cwd ``{prepared}``), and fingerprints what it wrote under ``{prepared}``
together with the corpus fingerprint. Every attach re-derives that fingerprint, so an index
changed after preparation is refused.

Argument mapping: each mapped contract argument is sent under the server's own name. The
``collection`` argument scopes a search: when the server declares its scope argument as an array,
it gets ``[collection]`` or, without one, every collection of the task; when it declares a string,
it gets the named collection (or the task's only one). A URI or a named collection outside the
task's collections is refused before any traffic (``task_scope_violation``), whether or not the
server takes a scope.

Results are read per tool by the config's ``results`` settings: replies already in the contract's
coordinates by ``contract_shapes.py``, any other shape by ``replies.py`` and ``mapped.py`` (ids
mapped, text aligned to the snapshot). Either way evidence comes from the verified snapshot,
never from the server's text. Servers report no backend work or tokens, so those capabilities
are declared unavailable.

A search-only server (``reads = "snapshot"``) has its ``get`` and ``multi_get`` answered by the
kit from the snapshot (``snapshot_reads.py``), never by the server.

A search with ``query_split = "words"`` is one ranking per word, each asked per collection as
above; with ``paging``, each of those calls pages (``paging.py``); ``query_syntax`` escapes
each query sent (``query_forms.py``).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import os
import re
import shutil
import stat
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentic.adapters.base import Adapter, CallOutcome, declared_capabilities
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.mcp import contract_shapes, profile, query_forms, replies
from agentic.adapters.mcp import paging as paging_rule
from agentic.adapters.mcp.backend_config import (
    BackendConfig,
    IdMapping,
    Paging,
    ResultReading,
    ToolMapping,
    load_backend_config,
)
from agentic.adapters.mcp.mapped import DEFAULT_LIMIT, MappedReplies
from agentic.adapters.mcp.process import isolated_environment, run_bounded
from agentic.adapters.mcp.server_ids import ServerIds, document_ids
from agentic.adapters.mcp.snapshot_reads import snapshot_reads
from agentic.adapters.reads import TaskScope
from agentic.adapters.sandbox import View
from agentic.contract.canonical import canonical_text, fingerprint
from agentic.contract.credentials import SECRET
from agentic.contract.json_access import as_array, as_int, as_object
from agentic.contract.receipt import Capabilities
from agentic.contract.strict_json import JsonArray, JsonObject, JsonValue
from agentic.fixture.snapshot import CorpusSnapshot

CORPUS_DIR = "corpus"
PREPARED_DIR = "prepared"
HOME_DIR = "home"
# What a prepare step may leave under {prepared}: every attach digests all of it again.
MAX_PREPARED_BYTES = 1 << 30
MAX_PREPARED_ENTRIES = 100_000
_HASH_CHUNK = 1 << 20
_PROBE_WORD = re.compile(r"[^\W_]+")
# What a regex-escaped query escapes: the metacharacters of POSIX extended and Rust/PCRE
# regexes alike (an escaped space or letter means something else, or nothing, to some of them).
_REGEX_SPECIAL = re.compile(r"[.^$*+?()\[\]{}|\\]")
_PROBE_WORDS = 8


class SnapshotInputs(Protocol):
    """What building a configured adapter reads of the catalog's inputs (never the oracles)."""

    @property
    def snapshot(self) -> CorpusSnapshot: ...


@dataclass(frozen=True)
class BackendParts:
    """What the catalog needs to register one config file as an adapter."""

    adapter_id: str
    build: Callable[[SnapshotInputs], Adapter]
    spawns_processes: bool


def backend_entry_parts(path: Path) -> BackendParts:
    config = load_backend_config(path)
    config_dir = path.resolve().parent

    def build(inputs: SnapshotInputs) -> Adapter:
        from agentic.adapters.mcp.adapter import McpAdapter

        return McpAdapter(configured_profile(config, config_dir, inputs.snapshot), inputs.snapshot)

    spawns = config.command is not None
    return BackendParts(adapter_id=config.id, build=build, spawns_processes=spawns)


def executable_of(path: Path) -> Path | None:
    """What a config's command needs installed beside it: its first part that names a path
    under its folder (``{config_dir}/...``); None for a command looked up on PATH alone or a
    server the user runs."""
    config = load_backend_config(path)
    named = [part for part in config.command or () if part.startswith("{config_dir}")]
    if not named:
        return None
    return Path(named[0].replace("{config_dir}", str(path.resolve().parent)))


# -- placeholders and preparation ----------------------------------------------------------------


def _fill(template: str, root: Path, config_dir: Path, run_root: Path | None = None) -> str:
    """Every placeholder but ``{port}``, which is filled per start (see ``HttpEndpoint``);
    ``{run}`` only where a start's own folder is known (env values).

    Built from the parsed template rather than ``str.format``: a placeholder stands for its path
    text and nothing else, whatever conversion or format spec slipped past validation."""
    values = {
        "corpus": str(root / CORPUS_DIR),
        "prepared": str(root / PREPARED_DIR),
        "home": str(root / HOME_DIR),
        "run": str(run_root) if run_root is not None else "{run}",
        "config_dir": str(config_dir),
        "port": "{port}",
    }
    return "".join(
        literal + ("" if name is None else values[name])
        for literal, name, _, _ in string.Formatter().parse(template)
    )


def lay_out_corpus(snapshot: CorpusSnapshot, target: Path, *, writable: bool = False) -> None:
    """The snapshot's bytes as ``target/<collection>/<relPath>``, each file read-only unless the
    server is to have a copy of its own to change."""
    mode = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH | (stat.S_IWUSR if writable else 0)
    for file in snapshot.files:
        path = target / file.collection / file.rel_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(file.data)
        path.chmod(mode)


@dataclass(frozen=True)
class _TreeEntry:
    """A regular file or a symlink under the prepared root (folders are walked, not digested)."""

    parts: tuple[str, ...]
    path: Path
    symlink: bool
    size: int = 0


@dataclass(frozen=True)
class PreparedTree:
    digest: str
    files: int


def _too_large(what: str) -> AdapterError:
    return AdapterError("prepared_tree_too_large", "harness_error", f"prepared tree has {what}")


def _scan(root: Path) -> list[_TreeEntry]:
    """Every file and symlink under ``root``, never following a link; the caps are checked from
    ``lstat`` while walking, so an oversized (or sparse) tree is refused before a byte is read."""
    found: list[_TreeEntry] = []
    entries = total = 0
    pending: list[tuple[Path, tuple[str, ...]]] = [(root, ())]
    while pending:
        folder, prefix = pending.pop()
        with os.scandir(folder) as listing:
            for item in listing:
                entries += 1
                if entries > MAX_PREPARED_ENTRIES:
                    raise _too_large(f"more than {MAX_PREPARED_ENTRIES} entries")
                parts = (*prefix, item.name)
                if item.is_symlink():
                    found.append(_TreeEntry(parts, Path(item.path), symlink=True))
                elif item.is_dir(follow_symlinks=False):
                    pending.append((Path(item.path), parts))
                elif item.is_file(follow_symlinks=False):
                    size = item.stat(follow_symlinks=False).st_size
                    total += size
                    if total > MAX_PREPARED_BYTES:
                        raise _too_large(f"more than {MAX_PREPARED_BYTES} bytes of files")
                    found.append(_TreeEntry(parts, Path(item.path), symlink=False, size=size))
    return found


def _file_sha256(entry: _TreeEntry) -> str:
    """Streamed, and no more than the size the walk counted: a file swapped for a FIFO or a
    link, or grown since, is refused rather than read without bound."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    digest = hashlib.sha256()
    with open(os.open(entry.path, flags), "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            raise ValueError(f"{entry.path} is no longer a regular file")
        left = entry.size
        while left > 0 and (chunk := stream.read(min(left, _HASH_CHUNK))):
            digest.update(chunk)
            left -= len(chunk)
        if left or stream.read(1):
            raise ValueError(f"{entry.path} changed size while it was digested")
    return digest.hexdigest()


def _digest_entry(entry: _TreeEntry) -> dict[str, str]:
    path = "/".join(entry.parts)
    if entry.symlink:
        # The link's own text, never what it points at: a link may lead out of the tree.
        return {"path": path, "symlink": os.readlink(entry.path)}
    return {"path": path, "sha256": _file_sha256(entry)}


def prepared_tree(root: Path) -> PreparedTree:
    """sha256 over the relative paths and contents of every regular file under ``root`` (by
    path components, as ``Path`` sorts), and the target text of every symlink; other entries
    (FIFOs, sockets) are skipped. A tree without symlinks digests as it did before links were
    included. Over ``MAX_PREPARED_ENTRIES`` entries or ``MAX_PREPARED_BYTES`` bytes of files is
    ``prepared_tree_too_large``."""
    entries = sorted(_scan(root), key=lambda entry: entry.parts)
    digest = fingerprint([_digest_entry(entry) for entry in entries])
    return PreparedTree(digest=digest, files=sum(1 for entry in entries if not entry.symlink))


def _index_fingerprint(corpus_fingerprint: str, tree: PreparedTree) -> str:
    return fingerprint({"corpus": corpus_fingerprint, "prepared": tree.digest})


def _environment(config: BackendConfig, config_dir: Path) -> Callable[[Path, Path], dict[str, str]]:
    def environment(root: Path, run_root: Path) -> dict[str, str]:
        extra = {key: _fill(value, root, config_dir, run_root) for key, value in config.env.items()}
        return isolated_environment(run_root, extra)

    return environment


def _prepare(
    config: BackendConfig, config_dir: Path
) -> Callable[[CorpusSnapshot, Path, float], profile.NativeBuild]:
    def prepare_native(
        snapshot: CorpusSnapshot, root: Path, timeout_s: float
    ) -> profile.NativeBuild:
        copy = config.corpus_mode == "copy"
        lay_out_corpus(snapshot, root / CORPUS_DIR, writable=copy)
        prepared = root / PREPARED_DIR
        prepared.mkdir(parents=True, exist_ok=True)
        (root / HOME_DIR).mkdir(exist_ok=True)
        if config.prepare is not None:
            argv = tuple(_fill(part, root, config_dir) for part in config.prepare)
            home = root / "prepare-run"
            env = _environment(config, config_dir)(root, home)
            corpus = (root / CORPUS_DIR,)
            view = View(
                read_only=(*(() if copy else corpus), config_dir),
                writable=(*(corpus if copy else ()), prepared, root / HOME_DIR, home),
            )
            label = f"{config.id} prepare"
            try:
                budget = config.prepare_timeout_s or timeout_s
                finished = run_bounded(
                    argv, env, prepared, budget, label=label, view=view, secrets=config.secrets()
                )
            finally:
                shutil.rmtree(home, ignore_errors=True)
            if finished.returncode != 0:
                raise AdapterError(
                    "adapter_preparation_failed",
                    "harness_error",
                    f"{config.id} prepare exited {finished.returncode}: {finished.stderr_tail}",
                )
        tree = prepared_tree(prepared)
        details: dict[str, str | int | float | bool | None] = {
            "documents": len(snapshot.files),
            "preparedFiles": tree.files,
        }
        return profile.NativeBuild(
            index_fingerprint=_index_fingerprint(snapshot.fingerprint, tree),
            details=details | mapping_statements(config),
        )

    return prepare_native


# -- argument mapping ----------------------------------------------------------------------------


def _declares_array(schema: object) -> bool:
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "array" or (
        isinstance(schema.get("type"), list) and "array" in schema["type"]
    ):
        return True
    return any(_declares_array(option) for option in schema.get("anyOf", []))


def _scope_value(
    arguments: JsonObject, scope: profile.CallScope, property_schema: JsonValue
) -> str | JsonArray | None:
    named = arguments.get("collection")  # inside the task's scope: checked by map_arguments
    if _declares_array(property_schema):
        return [str(named)] if named is not None else list(scope.collections)
    if named is not None:
        return str(named)
    return scope.collections[0] if len(scope.collections) == 1 else None


ArgumentMapper = Callable[[JsonObject, profile.CallScope], JsonObject]


def _string_scope(mapping: ToolMapping, scope: profile.CallScope) -> str | None:
    """The server argument of a string-typed collection scope, else None."""
    server_name = mapping.arguments.get("collection")
    if server_name is None:
        return None
    schema = scope.product_schemas.get(mapping.name, {})
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return None if _declares_array(properties.get(server_name)) else server_name


def _merge(
    reading: ResultReading,
) -> Callable[[Sequence[profile.RawResult]], profile.RawResult] | None:
    """How several replies join into one for the parser; None: the parser reads each."""
    if reading.shape == "hits":
        return contract_shapes.merge_hits
    if reading.shape == "resources":
        return contract_shapes.merge_resources
    return None


def _fan_out(
    mapping: ToolMapping,
    reading: ResultReading,
    config_dir: Path,
    ids: ServerIds | None,
    mapped: MappedReplies,
) -> profile.FanOut:
    """A server whose scope argument takes one collection is asked once per task collection
    when the agent names none (as the in-process adapters search each collection). With
    ``query_split = "words"`` each word of the query is a ranking of its own, asked once per
    collection so; with ``paging``, each of those calls pages (``_next_page``)."""
    mapper = _mapper(mapping, config_dir, ids)
    paging = mapping.paging

    def split(arguments: JsonObject, scope: profile.CallScope) -> profile.Plan | None:
        server_name = _string_scope(mapping, scope)
        per_collection = not (
            server_name is None or "collection" in arguments or len(scope.collections) < 2
        )
        queries = query_forms.split_query(mapping.query_split, str(arguments["query"]))
        if not per_collection and queries == (arguments["query"],) and paging is None:
            return None  # one call, as ``map_arguments`` maps it
        rankings: list[tuple[JsonObject, ...]] = []
        for query in queries:
            base = mapper({**arguments, "query": query}, scope)
            if paging is not None:
                _put(base, paging.argument, paging.start)
            if server_name is not None and per_collection:
                rankings.append(tuple({**base, server_name: c} for c in scope.collections))
            else:
                rankings.append((base,))
        return tuple(rankings)

    next_page = None if paging is None else _next_page(paging, mapped)
    return profile.FanOut(split=split, merge=_merge(reading), next_page=next_page)


def _next_page(paging: Paging, mapped: MappedReplies) -> profile.NextPage:
    """The next page's arguments of a paged search call, while ``paging.py`` asks for one."""

    def next_page(
        arguments: JsonObject,
        scope: profile.CallScope,
        first: JsonObject,
        pages: Sequence[profile.RawResult],
    ) -> JsonObject | None:
        try:
            read = [mapped.page_read(arguments, scope, raw) for raw in pages]
        except AdapterCallError:
            return None  # an error reply, or one the config cannot read: the parse reports it
        limit = as_int(arguments.get("limit", DEFAULT_LIMIT), "limit")
        if not paging_rule.more_pages(read, limit, paging.max_pages):
            return None
        following = copy.deepcopy(first)
        _put(following, paging.argument, paging_rule.next_position(paging, read))
        return following

    return next_page


def _put(arguments: JsonObject, name: str, value: JsonValue) -> None:
    """Set a server argument by its name; a dotted name (``searches.0.query``) sets a field
    of a nested object, a numeric part an item of a list (grown as needed)."""
    parts = name.split(".")
    holder: JsonValue = arguments
    for part, following in itertools.pairwise(parts):
        holder = _child(holder, part, list if following.isdigit() else dict)
    last = parts[-1]
    if isinstance(holder, list):
        index = int(last)
        holder.extend({} for _ in range(index + 1 - len(holder)))
        holder[index] = value
    else:
        as_object(holder, f"the server argument holding {last!r}")[last] = value


def _child(holder: JsonValue, part: str, kind: type[JsonArray] | type[JsonObject]) -> JsonValue:
    if isinstance(holder, list):
        index = int(part)
        holder.extend(kind() for _ in range(index + 1 - len(holder)))
        return holder[index]
    return as_object(holder, f"the server argument holding {part!r}").setdefault(part, kind())


def _fixed(mapping: ToolMapping, config_dir: Path) -> Callable[[Path | None], JsonObject]:
    """A tool's fixed arguments, placeholders in their text filled for a prepared root."""

    def values(root: Path | None) -> JsonObject:
        return {
            name: _fill(value, root, config_dir) if isinstance(value, str) and root else value
            for name, value in (mapping.fixed or {}).items()
        }

    return values


def _mapper(mapping: ToolMapping, config_dir: Path, ids: ServerIds | None = None) -> ArgumentMapper:
    """The server's arguments for a contract call: each mapped argument under the server's
    name (document URIs as the server names them, transforms applied), then the fixed ones."""
    transforms = mapping.transforms or {}
    fixed = _fixed(mapping, config_dir)

    def map_arguments(arguments: JsonObject, scope: profile.CallScope) -> JsonObject:
        task_scope = TaskScope(task_id=scope.task.taskId, collections=scope.collections)
        # Refused here whether or not the server takes a scope: a server given none would
        # otherwise be asked anyway, and its results in the named collection kept.
        if arguments.get("collection") is not None:
            task_scope.check_collection(str(arguments["collection"]))
        for uri in [arguments.get("uri"), *as_array(arguments.get("uris", []), "uris")]:
            if uri is not None:
                task_scope.check_uri(str(uri))
        schema = scope.product_schemas.get(mapping.name, {})
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        product: JsonObject = {}
        for contract_name, server_name in mapping.arguments.items():
            if contract_name == "collection":
                scoped = _scope_value(arguments, scope, properties.get(server_name))
                if scoped is not None:
                    _put(product, server_name, scoped)
            elif contract_name == "lineCount" and transforms.get("lineCount") == "inclusive_end":
                if "lineCount" in arguments:
                    first = as_int(arguments.get("fromLine", 1), "fromLine")
                    last = first + as_int(arguments["lineCount"], "lineCount") - 1
                    _put(product, server_name, last)
            elif contract_name in arguments:
                value = arguments[contract_name]
                if contract_name == "query" and transforms.get("query") == "regex_escape":
                    value = _REGEX_SPECIAL.sub(r"\\\g<0>", str(value))
                elif contract_name == "query" and mapping.query_syntax is not None:
                    value = query_forms.escaped(mapping.query_syntax, str(value))
                elif contract_name in ("uri", "uris") and ids is not None:
                    value = ids.for_server(value, scope.prepared_root)
                _put(product, server_name, value)
        for name, value in fixed(scope.prepared_root).items():
            _put(product, name, value)
        return product

    return map_arguments


# -- readiness and the profile -------------------------------------------------------------------


def _probe(
    config: BackendConfig, config_dir: Path, ids: ServerIds | None
) -> profile.ReadinessProbe:
    mapper = _mapper(config.tools.search, config_dir, ids)

    def arguments(scope: profile.CallScope) -> JsonObject:
        words = _PROBE_WORD.findall(scope.task.brief.goal)[:_PROBE_WORDS]
        return mapper({"query": " ".join(words) or "a", "limit": 1}, scope)

    def check(raw: profile.RawResult) -> None:
        if raw.is_error:
            raise AdapterError(
                "readiness_probe_failed", "harness_error", f"probe search failed: {raw.text[:200]}"
            )

    return profile.ReadinessProbe(config.tools.search.name, arguments, check)


def _wait_ready(config: BackendConfig, config_dir: Path) -> profile.ReadyWait | None:
    """The ``[ready]`` wait: a plain search (no scope, no task yet) with the fixed arguments."""
    if config.ready is None:
        return None
    search = config.tools.search
    pattern = re.compile(config.ready.not_ready)

    def not_ready(raw: profile.RawResult) -> bool:
        return raw.is_error or pattern.search(replies.reply_text(raw)) is not None

    fixed = _fixed(search, config_dir)

    def arguments(root: Path) -> JsonObject:
        return {search.arguments["query"]: "the"} | fixed(root)

    return profile.ReadyWait(search.name, arguments, not_ready, config.ready.interval_s)


def _capabilities(config: BackendConfig) -> Capabilities:
    # A server we know nothing of: no invocation counts, no span hashes we could trust.
    tools = [*config.tools.bound(), *(["multi_get"] if _emulates_multi_get(config) else [])]
    if config.reads_from_snapshot:
        tools += ["get", "multi_get"]
    return declared_capabilities(
        invocation_accounting=False, backend_hashes="unsupported", tools=tools
    )


def _emulates_multi_get(config: BackendConfig) -> bool:
    """A server with a single-document read and no multi-document one: the kit answers
    ``multi_get`` with one ``get`` per uri (``_multi_get_by_get``)."""
    return config.tools.multi_get is None and config.tools.get is not None


def _server_fields(mapping: ToolMapping) -> tuple[str, ...]:
    """The input fields the server's tool must declare: mapped, fixed and paging arguments (of
    a dotted name, its top-level field)."""
    return tuple(dict.fromkeys(name.split(".")[0] for name in mapping.server_arguments))


def _bindings(
    config: BackendConfig, config_dir: Path, ids: ToolIds, mapped: MappedReplies
) -> tuple[profile.ToolBinding, ...]:
    bindings = [
        profile.ToolBinding(
            tool,
            mapping.name,
            _server_fields(mapping),
            _mapper(mapping, config_dir, ids.send[tool]),
            _fan_out(mapping, config.reading(tool), config_dir, ids.send[tool], mapped)
            if tool == "search"
            else None,
        )
        for tool, mapping in config.tools.bound().items()
    ]
    if config.tools.get is not None and _emulates_multi_get(config):
        get = config.tools.get
        reading = config.reading("get")
        bindings.append(_multi_get_by_get(get, reading, config_dir, ids.send["get"]))
    return tuple(bindings)


def _multi_get_by_get(
    mapping: ToolMapping, reading: ResultReading, config_dir: Path, ids: ServerIds | None
) -> profile.ToolBinding:
    """``multi_get`` as one call of the server's ``get`` per uri, in request order; the
    contract's ``maxBytes`` cut then applies to the documents together as it does to a real
    multi-document read. Each receipt's diagnostics say the read was emulated."""
    mapper = _mapper(mapping, config_dir, ids)

    def split(arguments: JsonObject, scope: profile.CallScope) -> profile.Plan | None:
        return (tuple(mapper({"uri": uri}, scope) for uri in as_array(arguments["uris"], "uris")),)

    return profile.ToolBinding(
        "multi_get",
        mapping.name,
        _server_fields(mapping),
        mapper,
        profile.FanOut(split=split, merge=_merge(reading)),
    )


def _parse(
    config: BackendConfig, mapped: MappedReplies
) -> Callable[[profile.ParseInput], CallOutcome]:
    """Each contract tool's replies read by its own ``results`` setting."""
    emulated = _emulates_multi_get(config)
    scoped = "collection" in config.tools.search.arguments
    parsers: dict[str, Callable[[profile.ParseInput], CallOutcome]] = {}
    for tool in (*config.tools.bound(), *(["multi_get"] if emulated else [])):
        shape = mapped.reading(tool).shape
        if shape in ("hits", "resources"):
            parsers[tool] = contract_shapes.parser(shape, emulated=emulated, scoped=scoped)
        else:
            parsers[tool] = mapped.parse
    return lambda call: parsers[call.tool](call)


def mapping_statements(config: BackendConfig) -> dict[str, str]:
    """What a report must say of how the kit reads this server (preparation details)."""
    found: dict[str, str] = {}
    if "collection" not in config.tools.search.arguments:
        found["scope"] = (
            "the server takes no scope: the kit drops (and counts) search results outside "
            "the task's collections"
        )
    if config.corpus_mode == "copy":
        found["corpus"] = "the server indexed a writable copy of the snapshot (corpus = copy)"
    if _emulates_multi_get(config):
        found["multiGet"] = "emulated by one get per uri"
    if config.reads_from_snapshot:
        found["reads"] = f"get and multi_get {SNAPSHOT_READS}"
    return found | _query_statements(config.tools.search)


def _query_statements(search: ToolMapping) -> dict[str, str]:
    """What a report says of how the agent's query reached the server (none: as it was)."""
    found: dict[str, str] = {}
    said = []
    if search.query_split == "words":
        said.append(
            "asked once per word of the agent's query (query_split = words), the rankings "
            "merged round-robin by rank and de-duplicated by (document, line)"
        )
    if search.query_syntax is not None:
        said.append(f"escaped for the server's {search.query_syntax} syntax")
    if said:
        found["query"] = "; ".join(said)
    if search.paging is not None:
        found["paging"] = (
            f"the kit pages the search ({search.paging.argument!r}) until the agent's limit of "
            f"in-scope hits, an empty or repeated page, or {search.paging.max_pages} pages"
        )
    return found


# What ``reads = "snapshot"`` does, in a report's mapping notes and ``catalog --check``.
SNAPSHOT_READS = (
    "answered by the kit from the verified snapshot (reads = snapshot), never by the server; "
    "each such call's diagnostics say 'kit read'"
)


def unmapped_tools(config: BackendConfig) -> tuple[str, ...]:
    """One line per contract tool the config leaves unmapped, saying what that does to a run
    (for ``catalog --check``: a search engine without a read tool should not be a surprise)."""
    if config.reads_from_snapshot:
        return tuple(f"{tool}: not mapped: {SNAPSHOT_READS}" for tool in ("get", "multi_get"))
    refused = "declared unsupported; an agent's call is refused as disallowed_tool (agent_error)"
    found: list[str] = []
    if config.tools.get is None:
        found.append(f"get: not mapped: {refused}")
    if config.tools.multi_get is None:
        if _emulates_multi_get(config):
            found.append("multi_get: not mapped: the kit answers it with one get per uri")
        else:
            found.append(f"multi_get: not mapped: {refused}")
    return tuple(found)


def _server_ids(mapping: IdMapping, snapshot: CorpusSnapshot) -> ServerIds:
    template = mapping.prefix

    def prefix(root: Path | None) -> str:
        corpus = "" if root is None else str(root / CORPUS_DIR)
        return template.replace("{corpus}", corpus)

    return ServerIds(document_ids(mapping, snapshot), prefix)


def _renames_documents(mapping: IdMapping) -> bool:
    """Whether the agent's URIs must be sent as other ids (else they go as they are)."""
    return mapping.form != "uri" or bool(mapping.prefix)


@dataclass(frozen=True)
class ToolIds:
    """Each contract tool's id table (``[ids]``, or the tool's own ``ids``): ``read`` maps the
    server's ids in replies, ``send`` (None: URIs sent as they are) the agent's URIs."""

    read: dict[str, ServerIds]
    send: dict[str, ServerIds | None]


def _tool_ids(config: BackendConfig, snapshot: CorpusSnapshot) -> ToolIds:
    """One table per distinct mapping (built once: a title table reads every document)."""
    tables: dict[IdMapping, ServerIds] = {}
    read: dict[str, ServerIds] = {}
    send: dict[str, ServerIds | None] = {}
    for tool in ("search", "get", "multi_get"):
        mapping = config.ids_of(
            "get" if tool == "multi_get" and _emulates_multi_get(config) else tool
        )
        if mapping not in tables:
            tables[mapping] = _server_ids(mapping, snapshot)
        read[tool] = tables[mapping]
        send[tool] = tables[mapping] if _renames_documents(mapping) else None
    return ToolIds(read, send)


def _identity_dump(config: BackendConfig) -> JsonObject:
    """The config as its adapter's identity: a secret env value is named, never hashed in (a
    changed token is the same backend, and a fingerprint must not let a short one be guessed)."""
    dump: JsonObject = config.model_dump(mode="json")
    for name in config.secret_env:
        as_object(dump["env"], "env")[name] = SECRET
    return dump


def configured_profile(
    config: BackendConfig, config_dir: Path, snapshot: CorpusSnapshot
) -> profile.McpProfile:
    corpus_fingerprint = snapshot.fingerprint
    command = config.command or ()
    http = None
    if config.transport == "http":
        assert config.url is not None
        http = profile.HttpEndpoint(url=config.url, starts_server=config.command is not None)

    def server_command(root: Path) -> tuple[str, ...]:
        return tuple(_fill(part, root, config_dir) for part in command)

    ids = _tool_ids(config, snapshot)
    mapped = MappedReplies(
        config=config,
        ids=ids.read["search"],
        emulated_multi_get=_emulates_multi_get(config),
        tool_ids=ids.read,
    )

    return profile.McpProfile(
        adapter_id=config.id,
        config_json=canonical_text(
            {"adapter": config.id, "version": 1, "backend": _identity_dump(config)}
        ),
        secrets=config.secrets(),
        startup_timeout_s=config.startup_timeout_s,
        capabilities=_capabilities(config),
        server_name=config.server_name,
        prepare_native=_prepare(config, config_dir),
        verify_native=lambda root: _index_fingerprint(
            corpus_fingerprint, prepared_tree(root / PREPARED_DIR)
        ),
        command=server_command,
        environment=_environment(config, config_dir),
        sandbox_paths=lambda root: (config_dir,),
        writable_paths=lambda root: (
            *((root / CORPUS_DIR,) if config.corpus_mode == "copy" else ()),
            root / HOME_DIR,
        ),
        bindings=_bindings(config, config_dir, ids, mapped),
        parse=_parse(config, mapped),
        readiness=_probe(config, config_dir, ids.send["search"]),
        wait_ready=_wait_ready(config, config_dir),
        skip_stdout_text=config.stdout_text == "skip",
        max_message_bytes=config.max_message_bytes,
        http=http,
        kit_tools=snapshot_reads() if config.reads_from_snapshot else {},
    )
