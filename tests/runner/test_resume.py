"""``--resume``: a lane killed at any instant finishes from its journal to the report an
uninterrupted run writes; a journal of another run, a tampered entry or a busy output is
refused and kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.contract.files import TEMP_PREFIX
from agentic.fixture.loader import Fixture
from agentic.runner.journal import HEADER, PAIRS, Journal, journal_folder

HANG_GUARD_S = 120
# 3 tasks x 3 adapters x 2 lifecycles, plus the capsule's 6 replayed pairs.
PAIRS_IN_LANE = 24


def _argv(fixture: Fixture, out: Path, *extra: str) -> list[str]:
    return ["run", "--fixture", str(fixture.root), "--adapter", "lexical,capsule,mcp-reference",
            "--promote", "capsule:lexical", "--quiet", "--out", str(out), *extra]  # fmt: skip


def _journaled(out: Path) -> int:
    try:
        return sum(1 for p in (journal_folder(out) / PAIRS).iterdir() if p.suffix == ".json")
    except FileNotFoundError:
        return 0


def _killed_after(argv: list[str], out: Path, pairs: int) -> None:
    """Start the run in a child and kill -9 it once ``pairs`` pairs are journaled."""
    child = subprocess.Popen(
        [sys.executable, "-m", "agentic", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + HANG_GUARD_S
    try:
        while _journaled(out) < pairs:
            assert child.poll() is None, "the run ended before the kill"
            assert time.monotonic() < deadline
            time.sleep(0.005)
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()


@pytest.fixture(scope="module")
def uninterrupted(tiny_fixture: Fixture, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("whole") / "out"
    assert main(_argv(tiny_fixture, out)) == 1  # the gate fails: capsule vs lexical
    return (out / "canonical.json").read_bytes()


@pytest.mark.real_process
@pytest.mark.parametrize("instant", [1, 9, 20])
def test_a_run_killed_at_any_instant_resumes_to_the_uninterrupted_report(
    instant: int,
    tiny_fixture: Fixture,
    tmp_path: Path,
    uninterrupted: bytes,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, instant)
    assert not out.exists()
    finished = _journaled(out)
    assert instant <= finished < PAIRS_IN_LANE
    assert main(_argv(tiny_fixture, out, "--resume")) == 1
    assert (out / "canonical.json").read_bytes() == uninterrupted
    assert not journal_folder(out).exists()


def test_a_finished_run_leaves_no_journal(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["run", "--fixture", str(tiny_fixture.root), "--adapter", "lexical",
                 "--promote", "none", "--quiet", "--out", str(out)]) == 0  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_without_resume_a_journal_is_refused_and_kept(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    journal, _ = Journal.open(out, {"any": 1}, frozenset(), resume=False)
    journal.close()
    assert main(_argv(tiny_fixture, out)) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentic: journal_exists: ")
    assert "pass --resume to finish it" in err
    assert journal.folder.is_dir() and not out.exists()


def test_a_journal_killed_before_its_header_is_taken_over_by_the_next_run(
    tiny_fixture: Fixture, tmp_path: Path, uninterrupted: bytes
) -> None:
    out = tmp_path / "out"
    unborn = journal_folder(out)
    (unborn / PAIRS).mkdir(parents=True)
    (unborn / "lock").touch()
    (unborn / PAIRS / f"{TEMP_PREFIX}entry-0123").write_bytes(b"{")  # a write cut short
    assert main(_argv(tiny_fixture, out)) == 1  # the gate fails: capsule vs lexical
    assert (out / "canonical.json").read_bytes() == uninterrupted
    assert not unborn.exists()


def test_a_headerless_journal_holding_an_entry_is_refused_and_kept(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 1)
    (journal_folder(out) / HEADER).unlink()
    assert main(_argv(tiny_fixture, out, "--resume")) == 2
    assert capsys.readouterr().err.startswith("agentic: invalid_journal: ")
    assert _journaled(out) >= 1


def test_a_journal_of_another_run_is_refused_and_kept(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 1)
    before = sorted(p.name for p in (journal_folder(out) / PAIRS).iterdir())
    assert main(_argv(tiny_fixture, out, "--resume", "--timeout-ms", "20000")) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentic: journal_mismatch: ")
    assert "(timeoutMs differs: journal 30000, this run 20000)" in err
    assert sorted(p.name for p in (journal_folder(out) / PAIRS).iterdir()) == before


def test_a_tampered_journal_entry_is_refused_and_kept(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 3)
    # An entry, not the temp file a kill may leave mid-write (resume drops those).
    entry = min(p for p in (journal_folder(out) / PAIRS).iterdir() if p.suffix == ".json")
    document = json.loads(entry.read_bytes())
    document["receipt"]["canonical"]["agentId"] = "another-agent"  # only the hash can tell
    tampered = json.dumps(document).encode("utf-8")
    entry.write_bytes(tampered)
    assert main(_argv(tiny_fixture, out, "--resume")) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentic: invalid_journal: ")
    assert "canonical hash differs" in err
    assert entry.read_bytes() == tampered


def test_a_second_run_on_a_busy_output_is_refused(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    journal, _ = Journal.open(out, {"any": 1}, frozenset(), resume=False)
    try:
        assert main(_argv(tiny_fixture, out, "--resume")) == 2
    finally:
        journal.close()
    assert capsys.readouterr().err.startswith("agentic: journal_busy: ")


def test_resume_needs_an_output(tiny_fixture: Fixture, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--fixture", str(tiny_fixture.root), "--resume"]) == 2
    assert capsys.readouterr().err == (
        "agentic: invalid_cli_option: --resume needs the run's --out or --write\n"
    )
