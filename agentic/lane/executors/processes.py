"""The local process pool: ``--jobs N`` for an agent that runs one pair at a time in a process.
The local model is such an agent: it holds its loaded model and llama.cpp's state. N worker
processes each run units of pairs with their own agent, as ``units.py`` describes, reading the
fixture in place. They are spawned, so none inherits the driver's threads or loaded model. The
report is the one a single process writes. A worker process that dies breaks the pool. Its units
are then a harness failure, handed to a new pool up to ``--retries`` times.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent import futures
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject
from agentic.lane.executors.units import (
    Unit,
    WorkerLostError,
    WorkerSpec,
    plan_units,
    run_unit,
    run_units,
    worker_spec,
)
from agentic.lane.run_config import Recorder
from agentic.lane.run_result import RunResult, combine_parts
from agentic.locks import THREADS_ENV
from agentic.runner.pairs import PairKey

if TYPE_CHECKING:
    from agentic.lane.plan import LanePlan

_Handle = futures.Future[JsonObject]


def share_cores(jobs: int) -> None:
    """In a new worker: its share of the cores for llama.cpp, unless the user set a count. N
    workers with the lock's thread count each would oversubscribe the cores (on 2 cores, two
    workers of 2 threads ran the local-model lane 1.9x slower than one); threads change speed,
    not results (``locks.model_threads``)."""
    if THREADS_ENV not in os.environ:
        os.environ[THREADS_ENV] = str(max(1, (os.cpu_count() or 1) // jobs))


class _PoolRunner:
    def __init__(self, jobs: int, spec: WorkerSpec) -> None:
        self._jobs = jobs
        self._spec = spec
        self._pool = self._new_pool()

    def _new_pool(self) -> futures.ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        return futures.ProcessPoolExecutor(
            max_workers=self._jobs,
            mp_context=context,
            initializer=share_cores,
            initargs=(self._jobs,),
        )

    def submit(self, unit: Unit) -> _Handle:
        try:
            return self._pool.submit(run_unit, self._spec, None, list(unit))
        except BrokenProcessPool:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()
            return self._pool.submit(run_unit, self._spec, None, list(unit))

    def wait(self, handles: Sequence[_Handle]) -> _Handle:
        done, _ = futures.wait(handles, return_when=futures.FIRST_COMPLETED)
        return next(iter(done))

    def collect(self, handle: futures.Future[JsonObject]) -> JsonObject:
        try:
            return handle.result()
        except BrokenProcessPool as exc:
            raise WorkerLostError(f"BrokenProcessPool: {exc}") from None
        except ContractError:
            raise
        except Exception as exc:
            raise ContractError(
                "unexpected_harness_error", f"a worker process failed: {exc!r}"
            ) from None

    def cancel(self, handles: Sequence[_Handle]) -> None:
        for handle in handles:
            handle.cancel()
        self._pool.shutdown(wait=True, cancel_futures=True)


def run_in_processes(
    plan: LanePlan, selected: frozenset[PairKey], recorder: Recorder, *, jobs: int, retries: int
) -> RunResult:
    """The selected pairs in ``jobs`` worker processes."""
    if not selected:
        return combine_parts([], [], [])
    runner = _PoolRunner(jobs, worker_spec(plan, shared_filesystem=True))
    result, _ = run_units(plan, plan_units(selected, jobs), runner, recorder, retries)
    return result
