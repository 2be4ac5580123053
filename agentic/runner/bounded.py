"""Running in-process work under a deadline.

Adapters enforce their own deadlines (SQLite progress handlers, MCP call timeouts, killed child
processes). Agent steps run in-process, so the runner bounds them here: the step runs on a worker
thread and the runner stops waiting at the deadline. A thread cannot be killed, so a timed-out
worker is abandoned and never reused; the caller treats the agent's state as unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent import futures
from typing import TypeVar

from agentic.contract.errors import AgenticError

T = TypeVar("T")


class OperationTimeoutError(AgenticError):
    """The operation did not finish before its deadline."""


class BoundedExecutor:
    """One worker thread, replaced after a timeout so later work never queues behind a hang."""

    def __init__(self) -> None:
        self._pool = futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentic-bounded")

    def run(self, fn: Callable[[], T], timeout_s: float) -> T:
        future = self._pool.submit(fn)
        try:
            return future.result(timeout=timeout_s)
        except futures.TimeoutError:
            future.cancel()
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="agentic-bounded"
            )
            raise OperationTimeoutError(f"exceeded {timeout_s:g} s") from None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
