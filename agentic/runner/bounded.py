"""Running in-process work under a deadline.

Adapters enforce their own deadlines (SQLite progress handlers, MCP call timeouts, killed child
processes). Agent steps run in-process, so the runner bounds them here: the step runs on a worker
thread and the runner stops waiting at the deadline. A thread cannot be killed, so a timed-out
worker is abandoned and never reused; the caller treats the agent's state as unknown.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass
from typing import Any, TypeVar

from agentic.contract.errors import AgenticError

T = TypeVar("T")


class OperationTimeoutError(AgenticError):
    """The operation did not finish before its deadline."""


def run_on_caller(fn: Callable[[], T], timeout_s: float) -> T:
    """``fn`` on the calling thread, for work that cannot hang (``StepsInline``). A result later
    than the deadline is a timeout still, as it is on a worker thread."""
    started = time.monotonic()
    result = fn()
    if time.monotonic() - started > timeout_s:
        raise OperationTimeoutError(f"exceeded {timeout_s:g} s")
    return result


class DaemonPool:
    """A thread pool whose workers are daemon threads. ``ThreadPoolExecutor``'s are joined when
    the interpreter exits, so an interrupted run (Ctrl-C, SIGTERM) would wait for a model request
    in flight, minutes on a CPU; these are not: the run ends at once, its journal holding every
    pair that finished, and ``--resume`` runs the rest."""

    def __init__(self, workers: int, name: str) -> None:
        self._queue: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self._workers = workers
        for index in range(workers):
            threading.Thread(target=self._serve, name=f"{name}-{index}", daemon=True).start()

    def submit(self, fn: Callable[[], T]) -> futures.Future[T]:
        future: futures.Future[T] = futures.Future()
        self._queue.put(_Work(future, fn))
        return future

    def shutdown(self) -> None:
        """Workers end after the work already queued; nothing waits for them."""
        for _ in range(self._workers):
            self._queue.put(None)

    def _serve(self) -> None:
        while (work := self._queue.get()) is not None:
            work.run()


@dataclass(frozen=True)
class _Work:
    future: futures.Future[Any]
    fn: Callable[[], Any]

    def run(self) -> None:
        if not self.future.set_running_or_notify_cancel():
            return
        try:
            self.future.set_result(self.fn())
        except BaseException as exc:  # handed to whoever waits on the future
            self.future.set_exception(exc)


class BoundedExecutor:
    """One worker thread, replaced after a timeout so later work never queues behind a hang."""

    def __init__(self) -> None:
        self._pool = DaemonPool(1, "agentic-bounded")

    def run(self, fn: Callable[[], T], timeout_s: float) -> T:
        future = self._pool.submit(fn)
        try:
            return future.result(timeout=timeout_s)
        except futures.TimeoutError:
            future.cancel()
            self._pool.shutdown()
            self._pool = DaemonPool(1, "agentic-bounded")
            raise OperationTimeoutError(f"exceeded {timeout_s:g} s") from None

    def close(self) -> None:
        self._pool.shutdown()
