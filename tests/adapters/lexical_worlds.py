"""Sessions of the in-process adapters on a handful of documents, for adapter-specific tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agentic.adapters.base import AdapterSession
from agentic.adapters.capsule import CapsuleAdapter
from agentic.adapters.lexical import LexicalAdapter
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot
from tests.adapters.adapter_sessions import open_session
from tests.adapters.adapter_snapshots import corpus_file, make_task, snapshot_of


def snapshot_from(documents: dict[str, str]) -> CorpusSnapshot:
    """Documents keyed by ``collection/relPath``."""
    files = []
    for key, text in documents.items():
        collection, rel_path = key.split("/", 1)
        files.append(corpus_file(collection, rel_path, text))
    return snapshot_of(files)


def collections_of(snapshot: CorpusSnapshot) -> list[str]:
    return sorted({f.collection for f in snapshot.files})


@contextmanager
def lexical_session(
    snapshot: CorpusSnapshot, root: Path, task: AgentTask | None = None
) -> Iterator[AdapterSession]:
    task = task or make_task(collections_of(snapshot))
    with open_session(LexicalAdapter(snapshot), snapshot, root, task) as session:
        yield session


@contextmanager
def capsule_session(
    snapshot: CorpusSnapshot, root: Path, task: AgentTask | None = None
) -> Iterator[AdapterSession]:
    task = task or make_task(collections_of(snapshot))
    with open_session(CapsuleAdapter(snapshot), snapshot, root, task) as session:
        yield session


def filler(count: int) -> dict[str, str]:
    """Unrelated documents, so that BM25's inverse document frequency stays positive."""
    return {
        f"c001/filler{index:02d}.md": f"# Filler {index}\n\nNothing of interest in note {index}.\n"
        for index in range(count)
    }
