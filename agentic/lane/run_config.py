"""What one run of a lane's pairs is given (``RunConfig``), whom it tells of each record as soon
as it exists (``Recorder``), and the identity of the harness runtime its receipts carry."""

from __future__ import annotations

import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentic import __version__
from agentic.adapters.base import Adapter
from agentic.adapters.deadlines import PREPARE_TIMEOUT_S
from agentic.agents.base import Agent
from agentic.contract.canonical import fingerprint
from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import Preparation
from agentic.fixture.loader import Fixture
from agentic.runner.pairs import PairKey
from agentic.runner.progress import QUIET, Progress
from agentic.runner.schedule import Schedule

RUNNER_ID = "agentic-runner-v1"


def runtime_fingerprint() -> str:
    """Identity of the harness runtime. Machine details live in the report environment, so the
    same kit on two machines (or host and container) yields the same receipts."""
    major, minor, _ = platform.python_version_tuple()
    return fingerprint({"runner": RUNNER_ID, "package": __version__, "python": f"{major}.{minor}"})


class Recorder(Protocol):
    """Told of every receipt of a prepared adapter and every scored-pass preparation as soon as
    it exists (the resume journal is one)."""

    def preparation(self, record: Preparation) -> None: ...

    def receipt(self, key: PairKey, receipt: TrajectoryReceipt) -> None: ...


class _Forget:
    def preparation(self, record: Preparation) -> None:
        pass

    def receipt(self, key: PairKey, receipt: TrajectoryReceipt) -> None:
        pass


FORGET: Recorder = _Forget()


@dataclass(frozen=True)
class RunConfig:
    fixture: Fixture
    schedule: Schedule
    adapter_factory: Callable[[str], Adapter]
    agent_factory: Callable[[], Agent]
    agent_id: str
    timeout_s: float
    # Each adapter's preparation deadline; the calls keep ``timeout_s``. Never in a report: it
    # changes no result, only whether a slow preparation gets to finish.
    prepare_timeout_s: float = PREPARE_TIMEOUT_S
    # Adapters whose one-call bundles are replayed from a fresh preparation (catalog-declared).
    replay_adapters: frozenset[str] = frozenset()
    index_cache: Path | None = None
    # Shown on stderr as the run goes (a pair counter, cohort lines); never part of a report.
    progress: Progress = QUIET
    # Cold pairs at once (see lifecycles.CohortContext.jobs); receipts never depend on it.
    jobs: int = 1
    # The pairs to run (a shard's, or those a resumed run still misses); None: every pair.
    # An adapter with none of them is not even prepared.
    selected: frozenset[PairKey] | None = None
    recorder: Recorder = FORGET
    # Re-attempts of a pair whose setup failed (a harness failure: it never ran); the receipt
    # records each one in its observations (lifecycles.RETRIED_SETUP).
    retries: int = 0

    def wants(self, key: PairKey) -> bool:
        return self.selected is None or key in self.selected
