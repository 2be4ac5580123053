"""Progress of a long run, on stderr only: stdout carries report.md, and no report byte ever
depends on what is shown here.

Three kinds, chosen by ``progress_for``: ``QUIET`` (``--quiet``) prints nothing; on a terminal a
live tqdm pair counter (pairs done/total, rate, ETA) with the ``agentic: ...`` notes written
above it; elsewhere (CI logs) the notes plus exactly one line per finished cohort, such as
``agentic: lexical cold cohort: 32 pairs in 41.2 s; 96/576 pairs, ETA 12m03s``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn, Protocol, TextIO

if TYPE_CHECKING:
    from tqdm import tqdm

PREFIX = "agentic: "


class Progress(Protocol):
    """What a run reports as it goes. ``begin`` may follow ``close`` (verify reruns lanes)."""

    def note(self, message: str) -> None:
        """One ``agentic: <message>`` line (prepare, replay, wrote, ...)."""

    def begin(self, total_pairs: int) -> None:
        """A run of ``total_pairs`` pairs starts; the counter restarts at zero."""

    def cohort(self, label: str) -> None:
        """A cohort starts (``lexical cold cohort``)."""

    def advance(self, pairs: int = 1) -> None:
        """``pairs`` more pairs have finished."""

    def cohort_done(self) -> None:
        """The cohort started last has finished."""

    def close(self) -> None:
        """The run has ended (also on an exception); notes may still follow."""


class Quiet:
    """``--quiet``: nothing at all. Stateless, so one instance serves as every default."""

    def note(self, message: str) -> None:
        pass

    def begin(self, total_pairs: int) -> None:
        pass

    def cohort(self, label: str) -> None:
        pass

    def advance(self, pairs: int = 1) -> None:
        pass

    def cohort_done(self) -> None:
        pass

    def close(self) -> None:
        pass


QUIET: Progress = Quiet()


def eta_seconds(elapsed: float, done: int, total: int) -> float | None:
    """Seconds left at the mean pace so far; None before the first finished pair."""
    if done <= 0 or total <= 0 or elapsed < 0:
        return None
    if done >= total:
        return 0.0
    return elapsed / done * (total - done)


def format_duration(seconds: float) -> str:
    """``41.2 s`` under a minute, ``12m03s`` under an hour, else ``1h02m``."""
    seconds = max(seconds, 0.0)
    if round(seconds, 1) < 60:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def cohort_line(
    label: str, pairs: int, cohort_seconds: float, *, done: int, total: int, run_seconds: float
) -> str:
    """``lexical cold cohort: 32 pairs in 41.2 s; 96/576 pairs, ETA 12m03s``: the cohort's
    pairs and time, then the run's count and (while pairs remain) its ETA. No total (0): no
    count."""
    noun = "pair" if pairs == 1 else "pairs"
    line = f"{label}: {pairs} {noun} in {format_duration(cohort_seconds)}"
    if total > 0:
        line += f"; {done}/{total} pairs"
        eta = eta_seconds(run_seconds, done, total)
        if eta is not None and done < total:
            line += f", ETA {format_duration(eta)}"
    return line


@dataclass(eq=False)
class _Counting:
    """Pair and cohort bookkeeping of the two kinds that show something."""

    stream: TextIO | None = None  # None: sys.stderr when written (so capture sees it)
    clock: Callable[[], float] = time.monotonic
    total: int = field(default=0, init=False)
    done: int = field(default=0, init=False)
    _started: float = field(default=0.0, init=False)
    _label: str | None = field(default=None, init=False)
    _cohort_started: float = field(default=0.0, init=False)
    _cohort_pairs: int = field(default=0, init=False)

    def _out(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr

    def _write(self, line: str) -> None:
        raise NotImplementedError

    def note(self, message: str) -> None:
        self._write(PREFIX + message)

    def begin(self, total_pairs: int) -> None:
        self.total, self.done, self._label = total_pairs, 0, None
        self._started = self.clock()

    def cohort(self, label: str) -> None:
        self._label, self._cohort_pairs = label, 0
        self._cohort_started = self.clock()

    def advance(self, pairs: int = 1) -> None:
        self.done += pairs
        self._cohort_pairs += pairs

    def cohort_done(self) -> None:
        if self._label is None:
            return
        now = self.clock()
        pairs, elapsed = self._cohort_pairs, now - self._cohort_started
        line = cohort_line(
            self._label,
            pairs,
            elapsed,
            done=self.done,
            total=self.total,
            run_seconds=now - self._started,
        )
        self._label = None
        self._write(PREFIX + line)

    def close(self) -> None:
        self._label = None


@dataclass(eq=False)
class PlainProgress(_Counting):
    """stderr is not a terminal: the notes, and one line per finished cohort."""

    def _write(self, line: str) -> None:
        print(line, file=self._out(), flush=True)

    def cohort(self, label: str) -> None:
        super().cohort(label)
        self.note(label)


@dataclass(eq=False)
class TerminalProgress(_Counting):
    """stderr is a terminal: a live tqdm counter; notes and cohort lines scroll above it."""

    _bar: tqdm[NoReturn] | None = field(default=None, init=False)

    def _write(self, line: str) -> None:
        from tqdm import tqdm

        tqdm.write(line, file=self._out())

    def begin(self, total_pairs: int) -> None:
        from tqdm import tqdm

        self.close()
        super().begin(total_pairs)
        self._bar = tqdm(
            total=total_pairs,
            desc="agentic",
            unit="pair",
            file=self._out(),
            dynamic_ncols=True,
            smoothing=0,  # the mean pace of the whole run, like eta_seconds
        )

    def cohort(self, label: str) -> None:
        super().cohort(label)
        if self._bar is not None:
            self._bar.set_description_str(f"agentic: {label}")

    def advance(self, pairs: int = 1) -> None:
        super().advance(pairs)
        if self._bar is not None:
            self._bar.update(pairs)

    def cohort_done(self) -> None:
        super().cohort_done()
        if self._bar is not None:
            self._bar.set_description_str("agentic")

    def close(self) -> None:
        super().close()
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def progress_for(quiet: bool, stream: TextIO | None = None) -> Progress:
    """Quiet, a terminal counter or plain lines, by ``quiet`` and whether ``stream`` (default:
    sys.stderr) is a terminal."""
    if quiet:
        return QUIET
    out = stream if stream is not None else sys.stderr
    isatty = getattr(out, "isatty", None)
    if callable(isatty) and isatty():
        return TerminalProgress(stream=stream)
    return PlainProgress(stream=stream)
