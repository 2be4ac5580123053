"""A user's MCP server as an adapter: a backend config (``backend_config.py``) made a profile.

Preparation lays the verified snapshot out as ``{corpus}/<collection>/<relPath>`` (files
read-only), runs the config's ``prepare`` command once (bounded, its own process group, an
isolated environment, cwd ``{prepared}``), and fingerprints what it wrote under ``{prepared}``
together with the corpus fingerprint. Every attach re-derives that fingerprint, so an index
changed after preparation is refused.

Argument mapping: each mapped contract argument is sent under the server's own name. The
``collection`` argument scopes a search: when the server declares its scope argument as an array,
it gets ``[collection]`` or, without one, every collection of the task; when it declares a string,
it gets the named collection (or the task's only one). A URI outside the task's collections is
refused before any traffic (``task_scope_violation``).

Results (``[results] shape``):

``hits``
    The structured content, or else the JSON text, is ``{"results": [{"uri", "startLine",
    "endLine", "text"?}]}``. With ``text``, each line equal to the snapshot's line at its number
    is evidence (other lines are counted, never evidence); without it, the claimed range's
    non-blank snapshot lines are.
``resources``
    Embedded text resources (``uri`` + ``text``); each is aligned to its snapshot document by
    exact line text (reads prefer the requested ``fromLine``), and its aligned lines are evidence.

Either way evidence comes from the verified snapshot, never from the server's text. A URI that is
not a ``gno://`` coordinate of the corpus, a range past a document's end, or a result of the wrong
shape is ``invalid_tool_result``; a document outside the call's scope is ``task_scope_violation``.
The agent sees the server's answer, normalized to canonical ``{"results": [...]}`` JSON for
searches and to the served lines for reads. Servers report no backend work or tokens, so those
capabilities are declared unavailable.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from agentic.adapters.base import Adapter, CallOutcome, declared_capabilities, ok_outcome
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.mcp import profile, results
from agentic.adapters.mcp.backend_config import BackendConfig, ToolMapping, load_backend_config
from agentic.adapters.mcp.process import isolated_environment, run_bounded
from agentic.adapters.reads import TaskScope, nonblank_evidence, read_content
from agentic.adapters.sandbox import View
from agentic.contract.canonical import canonical_text, fingerprint
from agentic.contract.credentials import SECRET
from agentic.contract.jsrules import is_blank
from agentic.contract.receipt import Capabilities, ToolEvidence
from agentic.fixture.snapshot import CorpusFile, CorpusSnapshot

CORPUS_DIR = "corpus"
PREPARED_DIR = "prepared"
# How much of a reply a diagnostic quotes when it cannot be read as the configured shape.
_EXCERPT_CHARS = 300
REASON = "backend config servers return no source/span hashes"
# What a prepare step may leave under {prepared}: every attach digests all of it again.
MAX_PREPARED_BYTES = 1 << 30
MAX_PREPARED_ENTRIES = 100_000
_HASH_CHUNK = 1 << 20
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


# -- placeholders and preparation ----------------------------------------------------------------


def _fill(template: str, root: Path, config_dir: Path) -> str:
    """Every placeholder but ``{port}``, which is filled per start (see ``HttpEndpoint``).

    Built from the parsed template rather than ``str.format``: a placeholder stands for its path
    text and nothing else, whatever conversion or format spec slipped past validation."""
    values = {
        "corpus": str(root / CORPUS_DIR),
        "prepared": str(root / PREPARED_DIR),
        "config_dir": str(config_dir),
        "port": "{port}",
    }
    return "".join(
        literal + ("" if name is None else values[name])
        for literal, name, _, _ in string.Formatter().parse(template)
    )


def lay_out_corpus(snapshot: CorpusSnapshot, target: Path) -> None:
    """The snapshot's bytes as ``target/<collection>/<relPath>``, each file read-only."""
    for file in snapshot.files:
        path = target / file.collection / file.rel_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(file.data)
        path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)


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


def tree_digest(root: Path) -> str:
    return prepared_tree(root).digest


def _index_fingerprint(corpus_fingerprint: str, tree: PreparedTree) -> str:
    return fingerprint({"corpus": corpus_fingerprint, "prepared": tree.digest})


def _environment(config: BackendConfig, config_dir: Path) -> Callable[[Path, Path], dict[str, str]]:
    def environment(root: Path, run_root: Path) -> dict[str, str]:
        extra = {key: _fill(value, root, config_dir) for key, value in config.env.items()}
        return isolated_environment(run_root, extra)

    return environment


def _prepare(
    config: BackendConfig, config_dir: Path
) -> Callable[[CorpusSnapshot, Path, float], profile.NativeBuild]:
    def prepare_native(
        snapshot: CorpusSnapshot, root: Path, timeout_s: float
    ) -> profile.NativeBuild:
        lay_out_corpus(snapshot, root / CORPUS_DIR)
        prepared = root / PREPARED_DIR
        prepared.mkdir(parents=True, exist_ok=True)
        if config.prepare is not None:
            argv = tuple(_fill(part, root, config_dir) for part in config.prepare)
            home = root / "prepare-run"
            env = _environment(config, config_dir)(root, home)
            view = View(read_only=(root / CORPUS_DIR, config_dir), writable=(prepared, home))
            label = f"{config.id} prepare"
            try:
                finished = run_bounded(argv, env, prepared, timeout_s, label=label, view=view)
            finally:
                shutil.rmtree(home, ignore_errors=True)
            if finished.returncode != 0:
                raise AdapterError(
                    "adapter_preparation_failed",
                    "harness_error",
                    f"{config.id} prepare exited {finished.returncode}: {finished.stderr_tail}",
                )
        tree = prepared_tree(prepared)
        return profile.NativeBuild(
            index_fingerprint=_index_fingerprint(snapshot.fingerprint, tree),
            details={"documents": len(snapshot.files), "preparedFiles": tree.files},
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
    arguments: dict[str, Any], scope: profile.CallScope, property_schema: Any
) -> str | list[str] | None:
    named = arguments.get("collection")
    task_scope = TaskScope(task_id=scope.task.taskId, collections=scope.collections)
    if named is not None:
        task_scope.check_collection(str(named))
    if _declares_array(property_schema):
        return [str(named)] if named is not None else list(scope.collections)
    if named is not None:
        return str(named)
    return scope.collections[0] if len(scope.collections) == 1 else None


ArgumentMapper = Callable[[dict[str, Any], profile.CallScope], dict[str, Any]]


def _string_scope(mapping: ToolMapping, scope: profile.CallScope) -> str | None:
    """The server argument of a string-typed collection scope, else None."""
    server_name = mapping.arguments.get("collection")
    if server_name is None:
        return None
    schema = scope.product_schemas.get(mapping.name, {})
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return None if _declares_array(properties.get(server_name)) else server_name


def _fan_out(mapping: ToolMapping, shape: Literal["hits", "resources"]) -> profile.FanOut:
    """A server whose scope argument takes one collection is asked once per task collection
    when the agent names none (as the in-process adapters search each collection)."""
    mapper = _mapper(mapping)

    def split(
        arguments: dict[str, Any], scope: profile.CallScope
    ) -> tuple[dict[str, Any], ...] | None:
        server_name = _string_scope(mapping, scope)
        if server_name is None or "collection" in arguments or len(scope.collections) < 2:
            return None
        base = mapper(arguments, scope)
        return tuple({**base, server_name: collection} for collection in scope.collections)

    return profile.FanOut(split=split, merge=_merge_hits if shape == "hits" else _merge_resources)


def _merge_hits(raws: Sequence[profile.RawResult]) -> profile.RawResult:
    failed = next((raw for raw in raws if raw.is_error), None)
    if failed is not None:
        return failed
    hits: list[Any] = []
    for raw in raws:
        hits.extend(
            results.as_list(
                results.as_object(_hits_document(raw), "search result").get("results"), "results"
            )
        )
    return profile.RawResult(is_error=False, structured={"results": hits}, text="")


def _merge_resources(raws: Sequence[profile.RawResult]) -> profile.RawResult:
    failed = next((raw for raw in raws if raw.is_error), None)
    if failed is not None:
        return failed
    resources = tuple(resource for raw in raws for resource in raw.resources)
    return profile.RawResult(is_error=False, structured=None, text="", resources=resources)


def _mapper(mapping: ToolMapping) -> ArgumentMapper:
    def map_arguments(arguments: dict[str, Any], scope: profile.CallScope) -> dict[str, Any]:
        task_scope = TaskScope(task_id=scope.task.taskId, collections=scope.collections)
        for uri in [arguments.get("uri"), *arguments.get("uris", [])]:
            if uri is not None:
                task_scope.check_uri(str(uri))
        schema = scope.product_schemas.get(mapping.name, {})
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        product: dict[str, Any] = {}
        for contract_name, server_name in mapping.arguments.items():
            if contract_name == "collection":
                value = _scope_value(arguments, scope, properties.get(server_name))
                if value is not None:
                    product[server_name] = value
            elif contract_name in arguments:
                product[server_name] = arguments[contract_name]
        return product

    return map_arguments


# -- results ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One document range the server returned: its file, start, lines and what it said."""

    file: CorpusFile
    start: int
    lines: tuple[str, ...]
    claimed: dict[str, Any]
    evidence: tuple[ToolEvidence, ...]
    mismatched: int


def _allowed(call: profile.ParseInput) -> tuple[str, ...]:
    named = call.arguments.get("collection")
    return (str(named),) if call.tool == "search" and named is not None else call.scope.collections


def _hits_document(raw: profile.RawResult) -> Any:
    """The structured content, or else the JSON text of the result."""
    if raw.structured is not None:
        return raw.structured
    try:
        return json.loads(raw.text)
    except ValueError:
        raise results.invalid("the result is neither structured content nor JSON text") from None


def _range_lines(text: str, count: int) -> tuple[str, ...]:
    """The lines of a hit's text for a claimed range of ``count`` lines: split on LF (CRLF as LF),
    with one trailing newline tolerated; a one-line range may be a single blank line."""
    if count == 0:
        return () if not text else (text,)
    lines = text.replace("\r\n", "\n").split("\n")
    if len(lines) == count + 1 and lines[-1] == "":
        lines.pop()
    return tuple(lines)


def _hit_items(call: profile.ParseInput) -> list[Item]:
    document = _hits_document(call.raw)
    hits = results.as_list(
        results.as_object(document, f"{call.tool} result").get("results"), "results"
    )
    items = []
    for position, value in enumerate(hits):
        what = f"results[{position}]"
        hit = results.as_object(value, what)
        uri = results.as_str(hit.get("uri"), f"{what}.uri")
        file = results.scoped_file(call.scope, uri, _allowed(call))
        start = results.as_int(hit.get("startLine"), f"{what}.startLine", 1)
        end = results.as_int(hit.get("endLine"), f"{what}.endLine", start - 1)
        results.check_claimed_lines(file, start, end, what)
        claimed: dict[str, Any] = {"uri": uri, "startLine": start, "endLine": end}
        if "text" in hit:
            text = results.as_str(hit["text"], f"{what}.text")
            claimed["text"] = text
            lines = _range_lines(text, end - start + 1)
            if len(lines) != end - start + 1:
                raise results.invalid(f"{what} holds {len(lines)} lines for range {start}-{end}")
            found, mismatched = results.matching_evidence(file, start, lines, REASON)
            items.append(Item(file, start, lines, claimed, tuple(found), mismatched))
        else:
            lines = file.lines[start - 1 : end]
            found = nonblank_evidence(file, start, end, REASON)
            items.append(Item(file, start, lines, claimed, tuple(found), 0))
    return items


def align(file: CorpusFile, lines: Sequence[str], prefer: int = 1) -> int | None:
    """The first line number where ``lines`` equal the document's lines, trying ``prefer``
    first; None when they occur nowhere (or are empty)."""
    count = len(lines)
    if count == 0 or count > len(file.lines):
        return None
    target = tuple(lines)
    candidates: list[int] = [prefer, *range(1, len(file.lines) - count + 2)]
    for start in candidates:
        if start >= 1 and file.lines[start - 1 : start - 1 + count] == target:
            return start
    return None


def _resource_items(call: profile.ParseInput) -> list[Item]:
    if call.raw.is_error:
        raise results.invalid(f"{call.tool}: error result")
    prefer = int(call.arguments.get("fromLine", 1))
    items = []
    for resource in call.raw.resources:
        file = results.scoped_file(call.scope, resource.uri, _allowed(call))
        lines = results.span_rule_lines(resource.text)
        start = align(file, lines, prefer)
        claimed: dict[str, Any] = {"uri": resource.uri, "text": resource.text}
        if start is None:
            unmatched = sum(1 for line in lines if not is_blank(line))
            items.append(Item(file, 1, lines, claimed, (), unmatched))
            continue
        found, _ = results.matching_evidence(file, start, lines, REASON)
        items.append(Item(file, start, lines, claimed, tuple(found), 0))
    return items


def _outcome(
    role: Literal["candidates", "source"], content: str, items: Sequence[Item]
) -> CallOutcome:
    evidence = [item for found in items for item in found.evidence]
    notes = [note for i in items for note in results.mismatch_note(i.file.uri, i.mismatched)]
    return ok_outcome(role, content, evidence, 0, notes)


def _read_items(call: profile.ParseInput, items: list[Item]) -> list[Item]:
    """A read answers exactly the requested documents, in request order."""
    requested = (
        [str(call.arguments["uri"])]
        if call.tool == "get"
        else [str(uri) for uri in call.arguments["uris"]]
    )
    served = [item.file.uri for item in items]
    if served != requested:
        raise results.invalid(f"{call.tool} asked for {requested} and the server served {served}")
    return items


def _cut(items: list[Item], max_bytes: int | None) -> list[Item]:
    """The contract's ``multi_get`` prefix cut over non-blank line bytes, applied here."""
    if max_bytes is None:
        return items
    used = 0
    kept: list[Item] = []
    for item in items:
        lines: list[str] = []
        for line in item.lines:
            size = 0 if is_blank(line) else len(line.encode("utf-8"))
            if used + size > max_bytes:
                if lines:
                    kept.append(_prefix(item, lines))
                return kept
            used += size
            lines.append(line)
        kept.append(item)
    return kept


def _prefix(item: Item, lines: list[str]) -> Item:
    last = item.start + len(lines) - 1
    evidence = tuple(e for e in item.evidence if e.endLine <= last)
    return Item(item.file, item.start, tuple(lines), item.claimed, evidence, item.mismatched)


def _excerpt(raw: profile.RawResult) -> str:
    """The start of a reply, on one line: its structured content, else its text."""
    shown = canonical_text(raw.structured) if raw.structured is not None else raw.text
    flat = " ".join(shown.split())
    return flat if len(flat) <= _EXCERPT_CHARS else flat[: _EXCERPT_CHARS - 1] + "…"


def _parser(
    shape: Literal["hits", "resources"], *, emulated: bool
) -> Callable[[profile.ParseInput], CallOutcome]:
    def parse(call: profile.ParseInput) -> CallOutcome:
        if call.raw.is_error:
            raise AdapterCallError(
                "tool_call_failed", "product_error", f"{call.tool}: {call.raw.text[:200]}"
            )
        try:
            items = _hit_items(call) if shape == "hits" else _resource_items(call)
        except AdapterCallError as exc:
            if exc.code == "invalid_tool_result":
                # Say which setting failed to match what came back, and show what came back.
                exc.args = (f"{exc} (results.shape = {shape!r}); reply: {_excerpt(call.raw)}",)
            raise
        if call.tool == "search":
            content = canonical_text({"results": [item.claimed for item in items]})
            return _outcome("candidates", content, items)
        items = _read_items(call, items)
        if call.tool == "multi_get":
            max_bytes = call.arguments.get("maxBytes")
            items = _cut(items, None if max_bytes is None else int(max_bytes))
        # Contract v1.0: a read's content is its evidence texts (the served lines that equal the
        # snapshot, blank lines never) joined by LF, whatever else the server sent.
        content = read_content([evidence for item in items for evidence in item.evidence])
        outcome = _outcome("source", content, items)
        if call.tool == "multi_get" and emulated:
            note = f"multi_get emulated: {len(call.arguments['uris'])} get calls"
            return replace(outcome, diagnostics=(*outcome.diagnostics, note))
        return outcome

    return parse


# -- readiness and the profile -------------------------------------------------------------------


def _probe(config: BackendConfig) -> profile.ReadinessProbe:
    mapper = _mapper(config.tools.search)

    def arguments(scope: profile.CallScope) -> dict[str, Any]:
        words = _PROBE_WORD.findall(scope.task.brief.goal)[:_PROBE_WORDS]
        return mapper({"query": " ".join(words) or "a", "limit": 1}, scope)

    def check(raw: profile.RawResult) -> None:
        if raw.is_error:
            raise AdapterError(
                "readiness_probe_failed", "harness_error", f"probe search failed: {raw.text[:200]}"
            )

    return profile.ReadinessProbe(config.tools.search.name, arguments, check)


def _capabilities(config: BackendConfig) -> Capabilities:
    # A server we know nothing of: no invocation counts, no span hashes we could trust.
    tools = [*config.tools.bound(), *(["multi_get"] if _emulates_multi_get(config) else [])]
    return declared_capabilities(
        invocation_accounting=False, backend_hashes="unsupported", tools=tools
    )


def _emulates_multi_get(config: BackendConfig) -> bool:
    """A server with a single-document read and no multi-document one: the kit answers
    ``multi_get`` with one ``get`` per uri (``_multi_get_by_get``)."""
    return config.tools.multi_get is None and config.tools.get is not None


def _bindings(config: BackendConfig) -> tuple[profile.ToolBinding, ...]:
    shape = config.results.shape
    bindings = [
        profile.ToolBinding(
            tool,
            mapping.name,
            tuple(mapping.arguments.values()),
            _mapper(mapping),
            _fan_out(mapping, shape) if tool == "search" else None,
        )
        for tool, mapping in config.tools.bound().items()
    ]
    if config.tools.get is not None and _emulates_multi_get(config):
        bindings.append(_multi_get_by_get(config.tools.get, shape))
    return tuple(bindings)


def _multi_get_by_get(
    mapping: ToolMapping, shape: Literal["hits", "resources"]
) -> profile.ToolBinding:
    """``multi_get`` as one call of the server's ``get`` per uri, in request order, merged into
    one result; the contract's ``maxBytes`` cut then applies to the merged documents as it does
    to a real multi-document read. Each receipt's diagnostics say the read was emulated."""
    mapper = _mapper(mapping)

    def split(
        arguments: dict[str, Any], scope: profile.CallScope
    ) -> tuple[dict[str, Any], ...] | None:
        return tuple(mapper({"uri": uri}, scope) for uri in arguments["uris"])

    merge = _merge_hits if shape == "hits" else _merge_resources
    return profile.ToolBinding(
        "multi_get",
        mapping.name,
        tuple(mapping.arguments.values()),
        mapper,
        profile.FanOut(split=split, merge=merge),
    )


def _identity_dump(config: BackendConfig) -> dict[str, Any]:
    """The config as its adapter's identity: a secret env value is named, never hashed in (a
    changed token is the same backend, and a fingerprint must not let a short one be guessed)."""
    dump: dict[str, Any] = config.model_dump(mode="json")
    for name in config.secret_env:
        dump["env"][name] = SECRET
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
        bindings=_bindings(config),
        parse=_parser(config.results.shape, emulated=_emulates_multi_get(config)),
        readiness=_probe(config),
        max_message_bytes=config.max_message_bytes,
        http=http,
    )
