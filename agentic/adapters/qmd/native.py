"""qmd's native index under a prepared root, and the isolated run root of every qmd process.

Prepared root layout (everything qmd reads or writes lives under it)::

    ROOT/corpus/<collection>/<relPath>    the snapshot bytes, one qmd collection per folder
    ROOT/config/index.yml                 qmd's config (written as JSON, which is YAML)
    ROOT/index.sqlite                     the index ``qmd update`` built (WAL checkpointed)
    ROOT/index.sha256                     sha256 of that file's bytes
    ROOT/qmd-run.json                     the verified node, qmd entry and model paths
    ROOT/home/...                         HOME and XDG folders of the preparation processes

A run root (``ROOT/runs/run-*``, one per process) gets a byte-identical clone of the prepared
index (checked by sha256 against ``index.sha256``), its own config pointing at the prepared
corpus, and its own HOME/XDG tree; ``INDEX_PATH`` and ``QMD_CONFIG_DIR`` point into it. So a cold
trial never sees state an earlier process left behind, and no process writes the prepared index.

Collection names are ``zq`` plus ten hex digits of sha256 of the fixture collection id: they are
valid qmd names, never ordinary words, and qmd indexes them in every document's path field, so
the query plan drops terms that would prefix-match them.

The index fingerprint binds qmd's version to the documents qmd holds, read back from its
database: ``{engine, qmdVersion, vectors, documents:[{uri, sourceHash, qmdFile}]}`` sorted by
URI. Preparation fails closed (``qmd_index_mismatch``) unless qmd holds exactly the snapshot:
every file, under its own path, with a content hash equal to the snapshot's source hash.

Models: the full lane writes the verified model paths into the config. ``qmd-lex`` writes paths
that do not exist, so a request that would need a model fails at once instead of trying a
download (which, offline, hangs).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters.mcp.process import isolated_environment
from agentic.adapters.qmd.install import QmdInstall
from agentic.adapters.qmd.proc import run_bounded
from agentic.adapters.sandbox import View
from agentic.contract.canonical import fingerprint
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject
from agentic.fixture.snapshot import CorpusSnapshot

CORPUS_DIR = "corpus"
CONFIG_DIR = "config"
CONFIG_FILE = "index.yml"
INDEX_FILE = "index.sqlite"
INDEX_HASH_FILE = "index.sha256"
RUN_FILE = "qmd-run.json"
PATTERN = "**/*.md"
DISABLED_MODELS_DIR = "models-disabled"
MODEL_ROLES = ("embed", "generate", "rerank")
# qmd's comma-list and glob syntax in multi_get and its ``path:LINE`` suffix in get: a relPath
# using any of these would be read as something else, so it fails preparation.
_UNSAFE_PATH = re.compile(r"[,*?\[\]{}]|^#|:[0-9]+$")
# Native logging off (stdout belongs to JSON-RPC); the launcher sets the same for ``qmd mcp``.
QUIET_ENV: Mapping[str, str] = {
    "LLAMA_LOG_LEVEL": "error",
    "GGML_LOG_LEVEL": "error",
    "GGML_BACKEND_SILENT": "1",
    "NO_COLOR": "1",
}


@dataclass(frozen=True)
class RunSettings:
    """What every qmd process of one preparation runs, as recorded in ``qmd-run.json``.

    ``models`` are the verified absolute model paths by role and ``vectors`` the embedding
    model's sha256 (full lane); both are None for ``qmd-lex``.
    """

    node: str
    entry: str
    qmd_version: str
    models: Mapping[str, str] | None = None
    vectors: str | None = None

    def to_json(self) -> str:
        models = dict(self.models) if self.models is not None else None
        return json.dumps(
            {
                "node": self.node,
                "entry": self.entry,
                "qmdVersion": self.qmd_version,
                "models": models,
                "vectors": self.vectors,
            },
            sort_keys=True,
        )

    @staticmethod
    def load(root: Path) -> RunSettings:
        try:
            value = json.loads((root / RUN_FILE).read_bytes())
            models = value["models"]
            vectors = value["vectors"]
            return RunSettings(
                node=str(value["node"]),
                entry=str(value["entry"]),
                qmd_version=str(value["qmdVersion"]),
                models=None if models is None else {str(k): str(v) for k, v in models.items()},
                vectors=None if vectors is None else str(vectors),
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ContractError("qmd_not_prepared", f"{root / RUN_FILE}: {exc}") from None

    @staticmethod
    def of(
        install: QmdInstall, models: Mapping[str, str] | None = None, vectors: str | None = None
    ) -> RunSettings:
        return RunSettings(
            node=str(install.node),
            entry=str(install.entry),
            qmd_version=install.qmd_version,
            models=models,
            vectors=vectors,
        )

    def argv(self, *args: str) -> tuple[str, ...]:
        return (self.node, self.entry, *args)

    def sandbox_paths(self) -> tuple[Path, ...]:
        """What a qmd process reads besides node's prefix: its whole install (the entry's
        ``node_modules`` and the folder holding it) and the model files' folders."""
        entry = Path(self.entry)
        install = next((p.parent for p in entry.parents if p.name == "node_modules"), entry.parent)
        models = tuple(Path(path).parent for path in (self.models or {}).values())
        return (install, *models)


def sandbox_paths(root: Path) -> tuple[Path, ...]:
    return RunSettings.load(root).sandbox_paths()


def run_view(root: Path, run_root: Path) -> View:
    """What one ``qmd mcp`` process may see: the prepared root read-only, its run root."""
    return View(read_only=(root, *sandbox_paths(root)), writable=(run_root,))


def collection_name(collection: str) -> str:
    return "zq" + hashlib.sha256(collection.encode("utf-8")).hexdigest()[:10]


def collection_names(collections: tuple[str, ...]) -> dict[str, str]:
    return {collection: collection_name(collection) for collection in collections}


def snapshot_collections(snapshot: CorpusSnapshot) -> tuple[str, ...]:
    return tuple(sorted({f.collection for f in snapshot.files}))


def materialize(snapshot: CorpusSnapshot, root: Path) -> None:
    """Write the snapshot bytes as ``ROOT/corpus/<collection>/<relPath>``."""
    for file in snapshot.files:
        if not file.rel_path.endswith(".md") or _UNSAFE_PATH.search(file.rel_path):
            raise ContractError(
                "qmd_unsupported_path", f"qmd cannot address {file.uri} unambiguously"
            )
        target = root / CORPUS_DIR / file.collection / file.rel_path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(file.data)


def config_text(root: Path, collections: tuple[str, ...], models: Mapping[str, str] | None) -> str:
    """qmd's config; key order follows qmd's own (it hashes ``JSON.stringify`` of it)."""
    disabled = root / DISABLED_MODELS_DIR
    chosen = models or {role: str(disabled / f"{role}.gguf") for role in MODEL_ROLES}
    document: JsonObject = {
        "collections": {
            collection_name(c): {"path": str(root / CORPUS_DIR / c), "pattern": PATTERN}
            for c in collections
        },
        "models": {role: chosen[role] for role in MODEL_ROLES},
    }
    return json.dumps(document, indent=2) + "\n"


def write_config(
    config_dir: Path, root: Path, collections: tuple[str, ...], models: Mapping[str, str] | None
) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / CONFIG_FILE).write_text(config_text(root, collections, models), encoding="utf-8")


def qmd_environment(
    settings: RunSettings, home_root: Path, index_path: Path, config_dir: Path
) -> dict[str, str]:
    """An isolated environment: HOME/XDG under ``home_root``, qmd's index and config pinned."""
    env = isolated_environment(
        home_root,
        {**QUIET_ENV, "INDEX_PATH": str(index_path), "QMD_CONFIG_DIR": str(config_dir)},
    )
    node_bin = str(Path(settings.node).parent)
    env["PATH"] = os.pathsep.join(p for p in (node_bin, env.get("PATH", "")) if p)
    return env


def run_qmd(
    settings: RunSettings,
    root: Path,
    args: tuple[str, ...],
    timeout_s: float,
    *,
    setting: str | None = None,
) -> None:
    """One qmd CLI command against the prepared index, bounded; a failure is preparation's.
    ``setting`` names the option that set ``timeout_s`` (see ``proc.run_bounded``)."""
    env = qmd_environment(settings, root, root / INDEX_FILE, root / CONFIG_DIR)
    view = View(read_only=settings.sandbox_paths(), writable=(root,))
    done = run_bounded(
        settings.argv(*args),
        env=env,
        cwd=root,
        timeout_s=timeout_s,
        code="qmd_update_failed",
        view=view,
        setting=setting,
    )
    if done.returncode != 0:
        raise ContractError("qmd_update_failed", f"qmd {' '.join(args)} failed: {done.tail()}")


def checkpoint(index: Path) -> None:
    """Fold the WAL into the main file, so the index is one self-contained file to clone."""
    connection = sqlite3.connect(index)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    for suffix in ("-wal", "-shm"):
        index.with_name(index.name + suffix).unlink(missing_ok=True)


def indexed_documents(index: Path) -> list[tuple[str, str, str]]:
    """``(fixture collection, relPath, content hash)`` of every active document, read-only.

    The fixture collection is the folder name of the qmd collection's path (``.../corpus/<c>``),
    so this needs no snapshot and survives the prepared root being copied elsewhere.
    """
    connection = sqlite3.connect(f"file:{index}?mode=ro&immutable=1", uri=True)
    try:
        folders = dict(connection.execute("SELECT name, path FROM store_collections").fetchall())
        rows = connection.execute(
            "SELECT collection, path, hash FROM documents WHERE active = 1"
        ).fetchall()
    finally:
        connection.close()
    documents = []
    for name, path, digest in rows:
        folder = folders.get(name)
        if folder is None:
            raise ContractError("qmd_index_mismatch", f"qmd document in unknown collection {name}")
        documents.append((Path(str(folder)).name, str(path), str(digest)))
    return documents


def index_fingerprint(index: Path, settings: RunSettings) -> str:
    """Fingerprint of the documents qmd holds, bound to its version and vector model."""
    documents = [
        {"uri": f"gno://{c}/{p}", "sourceHash": h, "qmdFile": f"{collection_name(c)}/{p}"}
        for c, p, h in indexed_documents(index)
    ]
    documents.sort(key=lambda document: document["uri"])
    return fingerprint(
        {
            "engine": "qmd",
            "qmdVersion": settings.qmd_version,
            "vectors": settings.vectors,
            "documents": documents,
        }
    )


def check_index(snapshot: CorpusSnapshot, index: Path) -> None:
    """qmd must hold exactly the snapshot: every file, at its path, with its bytes."""
    expected = {(f.collection, f.rel_path): f.source_hash for f in snapshot.files}
    held = indexed_documents(index)
    found = {(c, p): h for c, p, h in held}
    if len(found) != len(held) or set(found) != set(expected):
        missing = sorted(set(expected) - set(found))[:3]
        extra = sorted(set(found) - set(expected))[:3]
        raise ContractError(
            "qmd_index_mismatch", f"qmd indexed other documents (missing {missing}, extra {extra})"
        )
    for key, digest in sorted(expected.items()):
        if found[key] != digest:
            raise ContractError("qmd_index_mismatch", f"qmd holds other bytes for {key[1]}")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def build_index(
    snapshot: CorpusSnapshot,
    root: Path,
    settings: RunSettings,
    *,
    timeout_s: float,
    embed_timeout_s: float,
    setting: str,
) -> tuple[str, dict[str, str | int | float | bool | None]]:
    """Materialize, configure, ``qmd update`` (and ``qmd embed`` when the settings carry a
    vector model), checkpoint, verify against the snapshot; returns the index fingerprint and
    preparation details. ``setting`` is the option that set ``timeout_s`` (``qmd update``'s);
    ``embed_timeout_s`` is the caller's own."""
    collections = snapshot_collections(snapshot)
    materialize(snapshot, root)
    write_config(root / CONFIG_DIR, root, collections, settings.models)
    (root / RUN_FILE).write_text(settings.to_json(), encoding="utf-8")
    run_qmd(settings, root, ("update",), timeout_s, setting=setting)
    if settings.vectors is not None:
        run_qmd(settings, root, ("embed",), embed_timeout_s)
    index = root / INDEX_FILE
    checkpoint(index)
    check_index(snapshot, index)
    digest = file_sha256(index)
    (root / INDEX_HASH_FILE).write_text(digest + "\n", encoding="ascii")
    details: dict[str, str | int | float | bool | None] = {
        "documents": len(snapshot.files),
        "collections": len(collections),
        "qmdVersion": settings.qmd_version,
        "indexSha256": digest,
        "indexBytes": index.stat().st_size,
    }
    return index_fingerprint(index, settings), details


def verify_index(root: Path) -> str:
    """The prepared index's fingerprint, re-derived from its database at attach time."""
    return index_fingerprint(root / INDEX_FILE, RunSettings.load(root))


def clone_index(root: Path, run_root: Path) -> Path:
    """A byte-identical copy of the prepared index in ``run_root``; returns its path."""
    expected = (root / INDEX_HASH_FILE).read_text(encoding="ascii").strip()
    target = run_root / INDEX_FILE
    shutil.copyfile(root / INDEX_FILE, target)
    if file_sha256(target) != expected:
        raise ContractError("qmd_index_clone_mismatch", f"the clone of {root / INDEX_FILE} differs")
    return target


def run_environment(root: Path, run_root: Path) -> dict[str, str]:
    """Materialize a run root (index clone, config) and return its process environment."""
    settings = RunSettings.load(root)
    index = clone_index(root, run_root)
    config_dir = run_root / CONFIG_DIR
    collections = tuple(sorted(p.name for p in (root / CORPUS_DIR).iterdir() if p.is_dir()))
    write_config(config_dir, root, collections, settings.models)
    return qmd_environment(settings, run_root, index, config_dir)
