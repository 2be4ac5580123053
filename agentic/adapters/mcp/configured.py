"""A user's MCP server as an adapter: a backend config (``backend_config.py``) made a profile.

The profile is assembled here from the config's preparation (``preparation.py``) and argument
mapping (``argument_mapping.py``), with its capabilities, tool bindings, result parsers,
readiness checks and document id tables; ``backend_entry_parts`` is what the catalog registers.

Results are read per tool by the config's ``results`` settings: replies already in the contract's
coordinates by ``contract_shapes.py``, any other shape by ``replies.py`` and ``mapped.py`` (ids
mapped, text aligned to the snapshot). Either way evidence comes from the verified snapshot,
never from the server's text. Servers report no backend work or tokens, so those capabilities
are declared unavailable.

A search-only server (``reads = "snapshot"``) has its ``get`` and ``multi_get`` answered by the
kit from the snapshot (``snapshot_reads.py``), never by the server.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentic.adapters.base import Adapter, CallOutcome, declared_capabilities
from agentic.adapters.errors import AdapterError
from agentic.adapters.mcp import contract_shapes, profile, replies
from agentic.adapters.mcp.argument_mapping import (
    argument_mapper,
    fan_out,
    fixed_arguments,
    reply_merge,
)
from agentic.adapters.mcp.backend_config import (
    BackendConfig,
    IdMapping,
    ResultReading,
    ToolMapping,
    load_backend_config,
)
from agentic.adapters.mcp.mapped import MappedReplies
from agentic.adapters.mcp.preparation import (
    CORPUS_DIR,
    HOME_DIR,
    PREPARED_DIR,
    fill_placeholders,
    index_fingerprint,
    prepare_step,
    prepared_tree,
    server_environment,
)
from agentic.adapters.mcp.server_ids import ServerIds, document_ids
from agentic.adapters.mcp.snapshot_reads import snapshot_reads
from agentic.contract.canonical import canonical_text
from agentic.contract.credentials import SECRET
from agentic.contract.json_access import as_array, as_object
from agentic.contract.receipt import Capabilities
from agentic.contract.strict_json import JsonObject
from agentic.fixture.snapshot import CorpusSnapshot

_PROBE_WORD = re.compile(r"[^\W_]+")
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


# -- readiness and the profile -------------------------------------------------------------------


def _probe(
    config: BackendConfig, config_dir: Path, ids: ServerIds | None
) -> profile.ReadinessProbe:
    mapper = argument_mapper(config.tools.search, config_dir, ids)

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

    fixed = fixed_arguments(search, config_dir)

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
            argument_mapper(mapping, config_dir, ids.send[tool]),
            fan_out(mapping, config.reading(tool), config_dir, ids.send[tool], mapped)
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
    mapper = argument_mapper(mapping, config_dir, ids)

    def split(arguments: JsonObject, scope: profile.CallScope) -> profile.Plan | None:
        return (tuple(mapper({"uri": uri}, scope) for uri in as_array(arguments["uris"], "uris")),)

    return profile.ToolBinding(
        "multi_get",
        mapping.name,
        _server_fields(mapping),
        mapper,
        profile.FanOut(split=split, merge=reply_merge(reading)),
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
        return tuple(fill_placeholders(part, root, config_dir) for part in command)

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
        prepare_native=prepare_step(config, config_dir, mapping_statements(config)),
        verify_native=lambda root: index_fingerprint(
            corpus_fingerprint, prepared_tree(root / PREPARED_DIR)
        ),
        command=server_command,
        environment=server_environment(config, config_dir),
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
