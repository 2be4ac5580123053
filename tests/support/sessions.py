"""Prepare -> attach -> reset in one step, for adapter tests; sessions of the in-process
adapters (lexical, capsule) on a snapshot."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agentic.adapters.base import Adapter, AdapterSession, CallOutcome
from agentic.adapters.capsule import CapsuleAdapter
from agentic.adapters.lexical import LexicalAdapter
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot
from tests.support.snapshots import collections_of, make_task

TIMEOUT_S = 30.0


@contextmanager
def open_session(
    adapter: Adapter, snapshot: CorpusSnapshot, root: Path, task: AgentTask
) -> Iterator[AdapterSession]:
    prepared = adapter.prepare(snapshot, root, timeout_s=TIMEOUT_S)
    session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    try:
        session.reset(task, readiness_probe=False, timeout_s=TIMEOUT_S)
        yield session
    finally:
        session.close()


def call(session: AdapterSession, tool: str, **arguments: Any) -> CallOutcome:
    return session.call(tool, arguments, timeout_s=TIMEOUT_S)


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
