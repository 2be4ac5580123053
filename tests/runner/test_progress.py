"""Progress on stderr: the ETA and duration arithmetic, the three kinds (quiet, plain lines for
a log, a live tqdm counter on a terminal), and a real lane with and without ``--quiet``."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.runner.progress import (
    QUIET,
    PlainProgress,
    TerminalProgress,
    cohort_line,
    eta_seconds,
    format_duration,
    progress_for,
)
from tests.support.tiny_fixture import TASK_A


def ticking(*instants: float) -> Callable[[], float]:
    """A clock that returns ``instants`` in turn."""
    remaining = list(instants)
    return lambda: remaining.pop(0)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# --- arithmetic ---------------------------------------------------------------------------------


def test_the_eta_is_the_mean_pace_so_far_times_the_pairs_left() -> None:
    assert eta_seconds(elapsed=30.0, done=10, total=40) == pytest.approx(90.0)
    assert eta_seconds(elapsed=41.2, done=96, total=576) == pytest.approx(206.0)


def test_there_is_no_eta_before_the_first_pair_and_none_left_after_the_last() -> None:
    assert eta_seconds(elapsed=12.0, done=0, total=8) is None
    assert eta_seconds(elapsed=12.0, done=3, total=0) is None
    assert eta_seconds(elapsed=-1.0, done=3, total=8) is None
    assert eta_seconds(elapsed=12.0, done=8, total=8) == 0.0
    assert eta_seconds(elapsed=12.0, done=9, total=8) == 0.0


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0, "0.0 s"),
        (-3.0, "0.0 s"),
        (41.23, "41.2 s"),
        (59.9, "59.9 s"),
        (59.97, "1m00s"),
        (723.0, "12m03s"),
        (3599.4, "59m59s"),
        (3600.0, "1h00m"),
        (3720.0, "1h02m"),
        (90061.0, "25h01m"),
    ],
)
def test_durations_read_in_seconds_minutes_or_hours(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_a_cohort_line_counts_its_pairs_and_the_run() -> None:
    line = cohort_line("lexical cold cohort", 32, 41.2, done=96, total=576, run_seconds=145.0)
    assert line == "lexical cold cohort: 32 pairs in 41.2 s; 96/576 pairs, ETA 12m05s"
    last = cohort_line("capsule warm cohort", 1, 0.5, done=8, total=8, run_seconds=20.0)
    assert last == "capsule warm cohort: 1 pair in 0.5 s; 8/8 pairs"
    assert cohort_line("x cohort", 2, 1.0, done=2, total=0, run_seconds=1.0) == (
        "x cohort: 2 pairs in 1.0 s"
    )


# --- the three kinds --------------------------------------------------------------------------


def test_plain_progress_prints_the_notes_and_one_line_per_finished_cohort() -> None:
    out = io.StringIO()
    # begin at 100; lexical cold starts at 101, ends at 111; lexical warm 111 -> 115.
    progress = PlainProgress(stream=out, clock=ticking(100.0, 101.0, 111.0, 111.0, 115.0))
    progress.begin(8)
    progress.note("prepare lexical")
    progress.cohort("lexical cold cohort")
    progress.advance()
    progress.advance(3)
    progress.cohort_done()
    progress.cohort("lexical warm cohort")
    progress.advance(4)
    progress.cohort_done()
    progress.close()
    progress.note("wrote out")
    assert out.getvalue().splitlines() == [
        "agentic: prepare lexical",
        "agentic: lexical cold cohort",
        "agentic: lexical cold cohort: 4 pairs in 10.0 s; 4/8 pairs, ETA 11.0 s",
        "agentic: lexical warm cohort",
        "agentic: lexical warm cohort: 4 pairs in 4.0 s; 8/8 pairs",
        "agentic: wrote out",
    ]


def test_a_second_begin_restarts_the_count() -> None:
    out = io.StringIO()
    progress = PlainProgress(stream=out, clock=ticking(0.0, 0.0, 1.0, 10.0, 10.0, 12.0))
    progress.begin(2)
    progress.cohort("a cold cohort")
    progress.advance(2)
    progress.cohort_done()
    progress.close()
    progress.begin(2)
    progress.cohort("a cold cohort")
    progress.advance()
    progress.cohort_done()
    assert out.getvalue().splitlines()[-1] == (
        "agentic: a cold cohort: 1 pair in 2.0 s; 1/2 pairs, ETA 2.0 s"
    )


def test_quiet_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert progress_for(True, io.StringIO()) is QUIET
    QUIET.begin(3)
    QUIET.note("prepare lexical")
    QUIET.cohort("lexical cold cohort")
    QUIET.advance()
    QUIET.cohort_done()
    QUIET.close()
    assert capsys.readouterr() == ("", "")


def test_the_kind_follows_whether_the_stream_is_a_terminal() -> None:
    assert isinstance(progress_for(False, io.StringIO()), PlainProgress)
    assert isinstance(progress_for(False, FakeTerminal()), TerminalProgress)


def test_a_terminal_gets_a_live_counter_with_the_notes_above_it() -> None:
    out = FakeTerminal()
    progress = progress_for(False, out)
    progress.begin(8)
    progress.note("prepare lexical")
    progress.cohort("lexical cold cohort")
    for _ in range(3):
        progress.advance()
    progress.cohort_done()
    progress.close()
    text = out.getvalue()
    assert "3/8" in text
    assert "pair/s" in text or "s/pair" in text
    lines = [line.strip("\r") for line in text.replace("\r", "\n").splitlines()]
    assert "agentic: prepare lexical" in lines
    assert any(line.startswith("agentic: lexical cold cohort: 3 pairs in ") for line in lines)


# --- a real lane --------------------------------------------------------------------------------


def _run_lane(fixture: Path, out: Path, *extra: str) -> list[str]:
    argv = ["run", "--fixture", str(fixture), "--adapter", "lexical", "--task", TASK_A]
    return [*argv, "--promote", "none", "--out", str(out), *extra]


def test_a_lane_prints_cohort_lines_and_nothing_at_all_with_quiet(
    tiny_fixture_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_run_lane(tiny_fixture_dir, tmp_path / "quiet", "--quiet")) == 0
    quiet = capsys.readouterr()
    assert (quiet.out, quiet.err) == ("", "")

    assert main(_run_lane(tiny_fixture_dir, tmp_path / "loud")) == 0
    loud = capsys.readouterr()
    lines = loud.err.splitlines()
    assert lines[0] == "agentic: prepare lexical"
    summaries = [line for line in lines if " pair in " in line]
    assert len(summaries) == 2, lines
    assert summaries[0].startswith("agentic: lexical cold cohort: 1 pair in ")
    assert re.search(r" s; 1/2 pairs, ETA \d+\.\d s$", summaries[0]), summaries[0]
    assert summaries[1].startswith("agentic: lexical warm cohort: 1 pair in ")
    assert summaries[1].endswith("; 2/2 pairs")
    assert lines[-1] == f"agentic: wrote {tmp_path / 'loud'}"
    # Progress never reaches stdout (report.md, whose timings differ run to run) or a report.
    assert loud.out.startswith("# ") and "agentic:" not in loud.out
    assert (tmp_path / "loud" / "canonical.json").read_bytes() == (
        tmp_path / "quiet" / "canonical.json"
    ).read_bytes()
