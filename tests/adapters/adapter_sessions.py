"""Prepare -> attach -> reset in one step, for adapter tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agentic.adapters.base import Adapter, AdapterSession, CallOutcome
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot

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
