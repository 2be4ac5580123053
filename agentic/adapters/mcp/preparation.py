"""A configured server's preparation: its snapshot laid out, ``prepare`` run, tree fingerprinted.

Preparation lays the verified snapshot out as ``{corpus}/<collection>/<relPath>`` (files
read-only), runs the config's ``prepare`` command once (bounded, its own process group, an
isolated environment, cwd ``{prepared}``), and fingerprints what it wrote under ``{prepared}``
together with the corpus fingerprint. Every attach re-derives that fingerprint, so an index
changed after preparation is refused. The placeholders of a config's command, env and fixed
arguments (``{corpus}``, ``{prepared}``, ``{home}``, ``{run}``, ``{config_dir}``) are filled here.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters.errors import AdapterError
from agentic.adapters.mcp import profile
from agentic.adapters.mcp.backend_config import BackendConfig
from agentic.adapters.mcp.process import isolated_environment, run_bounded
from agentic.adapters.sandbox import View
from agentic.contract.canonical import fingerprint
from agentic.fixture.snapshot import CorpusSnapshot

CORPUS_DIR = "corpus"
PREPARED_DIR = "prepared"
HOME_DIR = "home"
# What a prepare step may leave under {prepared}: every attach digests all of it again.
MAX_PREPARED_BYTES = 1 << 30
MAX_PREPARED_ENTRIES = 100_000
_HASH_CHUNK = 1 << 20


def fill_placeholders(
    template: str, root: Path, config_dir: Path, run_root: Path | None = None
) -> str:
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


def index_fingerprint(corpus_fingerprint: str, tree: PreparedTree) -> str:
    return fingerprint({"corpus": corpus_fingerprint, "prepared": tree.digest})


def server_environment(
    config: BackendConfig, config_dir: Path
) -> Callable[[Path, Path], dict[str, str]]:
    def environment(root: Path, run_root: Path) -> dict[str, str]:
        extra = {
            key: fill_placeholders(value, root, config_dir, run_root)
            for key, value in config.env.items()
        }
        return isolated_environment(run_root, extra)

    return environment


def prepare_step(
    config: BackendConfig, config_dir: Path, statements: dict[str, str]
) -> Callable[[CorpusSnapshot, Path, float], profile.NativeBuild]:
    """The config's ``prepare_native``; its details carry the report's ``statements`` of how the
    kit reads this server (``configured.mapping_statements``)."""

    def prepare_native(
        snapshot: CorpusSnapshot, root: Path, timeout_s: float
    ) -> profile.NativeBuild:
        copy = config.corpus_mode == "copy"
        lay_out_corpus(snapshot, root / CORPUS_DIR, writable=copy)
        prepared = root / PREPARED_DIR
        prepared.mkdir(parents=True, exist_ok=True)
        (root / HOME_DIR).mkdir(exist_ok=True)
        if config.prepare is not None:
            argv = tuple(fill_placeholders(part, root, config_dir) for part in config.prepare)
            home = root / "prepare-run"
            env = server_environment(config, config_dir)(root, home)
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
            index_fingerprint=index_fingerprint(snapshot.fingerprint, tree),
            details=details | statements,
        )

    return prepare_native
