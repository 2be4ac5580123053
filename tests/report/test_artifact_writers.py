"""Two writers of one output, and a write that fails half-way: real processes.

A writer holds an exclusive lock on its output while it stages and swaps, so a second writer is
refused (one line, exit 2) instead of recovering the first writer's live stage out from under it.
A write that fails while staging (here: a file-size limit, as a full disk would) leaves the
previous set byte for byte and no stage behind.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentic.fixture.loader import Fixture
from agentic.output.staging import read_artifact_set, write_artifacts
from tests.report.test_artifacts import files

ROOT = Path(__file__).resolve().parents[2]
HELD_WRITER = ROOT / "tests" / "support" / "programs" / "held_writer.py"
TIMEOUT_S = 60


def _env(tmp_path: Path) -> dict[str, str]:
    # No bytecode writes: under a file-size limit only the artifacts should hit it.
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "TMPDIR": str(temp),
    }


@pytest.fixture
def held_writer(tmp_path: Path) -> Iterator[Callable[[Path, str], subprocess.Popen[str]]]:
    """Start writers held in the middle of staging; every one is released and reaped after."""
    started: list[subprocess.Popen[str]] = []

    def start(target: Path, tag: str) -> subprocess.Popen[str]:
        child = subprocess.Popen(
            [sys.executable, str(HELD_WRITER), str(target), tag],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(tmp_path),
        )
        started.append(child)
        assert child.stdout is not None
        assert child.stdout.readline() == "staging\n"
        return child

    yield start
    for child in started:
        if child.poll() is None:
            child.kill()
        child.communicate(timeout=TIMEOUT_S)


def _release(child: subprocess.Popen[str]) -> tuple[int, str]:
    _, stderr = child.communicate("go\n", timeout=TIMEOUT_S)
    return child.returncode, stderr


def _stages(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".agentic-stage-"))


def _agentic(
    args: list[str], tmp_path: Path, preexec: Callable[[], None] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentic", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=_env(tmp_path),
        preexec_fn=preexec,
        check=False,
    )


def _ranking(fixture: Fixture, report: Path) -> list[str]:
    return [
        "ranking",
        "--fixture",
        str(fixture.root),
        "--adapter",
        "lexical",
        "--out",
        str(report),
        "--quiet",
    ]


def _assert_refused(done: subprocess.CompletedProcess[str], code: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"agentic: {code}: "), done.stderr
    assert "Traceback" not in done.stderr


def _file_size_limit(limit: int) -> Callable[[], None]:
    """In the child: writes past ``limit`` bytes fail with EFBIG (SIGXFSZ ignored)."""

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


# --- two writers ---------------------------------------------------------------------------------


def test_a_second_writer_of_one_output_is_refused_while_the_first_stages(
    tmp_path: Path,
    tiny_fixture_with_goldens: Fixture,
    held_writer: Callable[[Path, str], subprocess.Popen[str]],
) -> None:
    target = tmp_path / "out"
    held_writer(target, "first")

    second = _agentic(_ranking(tiny_fixture_with_goldens, target), tmp_path)

    _assert_refused(second, "artifact_target_busy")
    assert str(target) in second.stderr


def test_the_refused_writer_leaves_the_first_writers_stage_alone(
    tmp_path: Path,
    tiny_fixture_with_goldens: Fixture,
    held_writer: Callable[[Path, str], subprocess.Popen[str]],
) -> None:
    target = tmp_path / "out"
    first = held_writer(target, "first")
    staged = _stages(tmp_path)

    _agentic(_ranking(tiny_fixture_with_goldens, target), tmp_path)

    assert staged and _stages(tmp_path) == staged
    assert _release(first) == (0, "")
    assert read_artifact_set(target) == files("first")


def test_after_the_first_writer_finishes_the_next_one_writes_and_leaves_only_the_output(
    tmp_path: Path, held_writer: Callable[[Path, str], subprocess.Popen[str]]
) -> None:
    target = tmp_path / "out"
    assert _release(held_writer(target, "first")) == (0, "")

    write_artifacts(target, files("second"))

    assert read_artifact_set(target) == files("second")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "tmp"]


def test_writing_one_output_leaves_the_live_stage_of_a_similarly_named_output_alone(
    tmp_path: Path, held_writer: Callable[[Path, str], subprocess.Popen[str]]
) -> None:
    other = held_writer(tmp_path / "out-x", "other")
    staged = _stages(tmp_path)

    write_artifacts(tmp_path / "out", files("mine"))

    assert staged and _stages(tmp_path) == staged
    assert _release(other) == (0, "")
    assert read_artifact_set(tmp_path / "out-x") == files("other")


# --- a write that fails while staging -------------------------------------------------------------


def _run_lane(fixture: Fixture, out: Path) -> list[str]:
    return [
        "run",
        "--fixture",
        str(fixture.root),
        "--adapter",
        "lexical",
        "--promote",
        "none",
        "--no-replay",
        "--out",
        str(out),
        "--quiet",
    ]


def _staging_limit(tmp_path: Path, fixture: Fixture, report_size: int) -> int:
    """A file-size limit the run's own files stay under (its lexical index, prepared here to
    measure it) and report.json exceeds, so the run gets as far as staging and fails there."""
    prepared = tmp_path / "prepared"
    args = ["prepare", "--adapter", "lexical", "--fixture", str(fixture.root), "--out"]
    assert _agentic([*args, str(prepared)], tmp_path).returncode == 0
    index_size = max(p.stat().st_size for p in prepared.rglob("*") if p.is_file())
    shutil.rmtree(prepared)
    limit = (index_size + report_size) // 2
    assert index_size < limit < report_size
    return limit


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_full_disk_while_staging_keeps_the_previous_output_byte_for_byte(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    out = tmp_path / "lane"
    assert _agentic(_run_lane(tiny_fixture, out), tmp_path).returncode == 0
    before = _snapshot(out)
    limit = _staging_limit(tmp_path, tiny_fixture, len(before["report.json"]))

    done = _agentic(_run_lane(tiny_fixture, out), tmp_path, _file_size_limit(limit))

    _assert_refused(done, "artifact_write_failed")
    assert "File too large" in done.stderr
    assert _snapshot(out) == before


def test_a_full_disk_while_staging_leaves_no_stage_or_lock_behind(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    out = tmp_path / "lane"
    assert _agentic(_run_lane(tiny_fixture, out), tmp_path).returncode == 0
    limit = _staging_limit(tmp_path, tiny_fixture, len((out / "report.json").read_bytes()))

    _agentic(_run_lane(tiny_fixture, out), tmp_path, _file_size_limit(limit))

    # The finished pairs stay journaled, so that --resume writes the report without rerunning.
    assert sorted(p.name for p in tmp_path.iterdir()) == [".agentic-journal-lane", "lane", "tmp"]
    resumed = _agentic([*_run_lane(tiny_fixture, out), "--resume"], tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lane", "tmp"]


def test_a_full_disk_while_accepting_keeps_the_previous_baseline_byte_for_byte(
    tmp_path: Path, tiny_fixture_with_goldens: Fixture
) -> None:
    for name in ("base", "new"):
        done = _agentic(_ranking(tiny_fixture_with_goldens, tmp_path / name), tmp_path)
        assert done.returncode == 0, done.stderr
    baselines = tmp_path / "baselines"
    accepted = _agentic(
        [
            "compare",
            str(tmp_path / "base" / "ranking.json"),
            "--accept",
            "--baselines",
            str(baselines),
        ],
        tmp_path,
    )
    assert accepted.returncode == 0, accepted.stderr
    (baseline,) = baselines.rglob("ranking.json")
    before = baseline.read_bytes()

    done = _agentic(
        [
            "compare",
            str(baseline),
            str(tmp_path / "new" / "ranking.json"),
            "--accept",
            "--baselines",
            str(baselines),
        ],
        tmp_path,
        _file_size_limit(len(before) // 2),
    )

    _assert_refused(done, "baseline_write_failed")
    assert baseline.read_bytes() == before
    assert sorted(p.name for p in baseline.parent.iterdir()) == ["ranking.json"]
