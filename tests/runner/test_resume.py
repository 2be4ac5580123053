"""``--resume``: a lane killed at any instant finishes from its journal to the report an
uninterrupted run writes; a journal of another run, a tampered or forged entry, a missing or
other key, another index or a busy output is refused and kept.

Every test keeps its run keys in its own state dir (``XDG_STATE_HOME``), which the killed child
runs inherit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentic.cli import main
from agentic.contract.canonical import fingerprint
from agentic.contract.files import TEMP_PREFIX
from agentic.contract.oracle import HiddenOracle
from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import Preparation, TaskScore
from agentic.contract.task import AgentTask
from agentic.fixture.loader import Fixture
from agentic.lane import harness_records
from agentic.lane.journal import (
    HEADER,
    KEY_FILE_ENV,
    PAIRS,
    PREPARATIONS,
    Journal,
    KeyRef,
    journal_folder,
)
from agentic.scoring.score import score_receipt

HANG_GUARD_S = 120
# 3 tasks x 3 adapters x 2 lifecycles, plus the capsule's 6 replayed pairs.
PAIRS_IN_LANE = 24
SCORED_PAIRS = 18


@pytest.fixture(autouse=True)
def state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own state dir: the run keys it makes stay out of the user's."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    return state


def _any_key() -> KeyRef:
    return KeyRef.of({"any": 1}, None, os.environ)


def _entry(out: Path) -> Path:
    """A pair entry, not the temp file a kill may leave mid-write (resume drops those)."""
    return min(p for p in (journal_folder(out) / PAIRS).iterdir() if p.suffix == ".json")


def _refused_resume(fixture: Fixture, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """``--resume`` of the run at ``out``, which must be refused (exit 2): its stderr."""
    assert main(_argv(fixture, out, "--resume")) == 2
    return capsys.readouterr().err


def _key_file(path: Path, secret: bytes) -> Path:
    path.write_bytes(secret)
    path.chmod(0o600)
    return path


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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_finished_run_leaves_no_key_behind(
    tiny_fixture: Fixture, tmp_path: Path, state_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 1)
    assert len(list((state_dir / "agentic" / "keys").iterdir())) == 1  # the journal's own
    assert main(_argv(tiny_fixture, out, "--resume")) == 1  # the gate fails: capsule vs lexical
    assert list((state_dir / "agentic" / "keys").iterdir()) == []


def test_without_resume_a_journal_is_refused_and_kept(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    journal, _ = Journal.open(out, {"any": 1}, frozenset(), resume=False, key=_any_key())
    journal.close()
    assert main(_argv(tiny_fixture, out)) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentic: journal_exists: ")
    assert "pass --resume to finish it" in err
    assert journal.folder.is_dir() and not out.exists()


@pytest.mark.slow
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
    assert _refused_resume(tiny_fixture, out, capsys).startswith("agentic: invalid_journal: ")
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


@pytest.mark.slow
@pytest.mark.parametrize("left", [b"", b'{"canonicalSha256": "ab'], ids=["empty", "cut"])
def test_an_entry_a_power_loss_cut_short_is_run_again(
    left: bytes,
    tiny_fixture: Fixture,
    tmp_path: Path,
    uninterrupted: bytes,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Entries are not fsynced: a crash of the machine may leave one empty or cut short.
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 3)
    _entry(out).write_bytes(left)
    told = [arg for arg in _argv(tiny_fixture, out, "--resume") if arg != "--quiet"]
    assert main(told) == 1  # the gate fails: capsule vs lexical
    assert (out / "canonical.json").read_bytes() == uninterrupted
    assert "1 journal entries cut short by a crash: run again" in capsys.readouterr().err


def test_a_tampered_journal_entry_is_refused_and_kept(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 3)
    entry = _entry(out)
    document = json.loads(entry.read_bytes())
    document["receipt"]["canonical"]["agentId"] = "another-agent"  # only the hash can tell
    tampered = json.dumps(document).encode("utf-8")
    entry.write_bytes(tampered)
    err = _refused_resume(tiny_fixture, out, capsys)
    assert err.startswith("agentic: invalid_journal: ")
    assert "canonical hash differs" in err
    assert entry.read_bytes() == tampered


def test_a_second_run_on_a_busy_output_is_refused(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    journal, _ = Journal.open(out, {"any": 1}, frozenset(), resume=False, key=_any_key())
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


def test_an_entry_rewritten_with_its_hash_recomputed_is_refused_and_kept(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 3)
    entry = _entry(out)
    document = json.loads(entry.read_bytes())
    canonical = document["receipt"]["canonical"]
    canonical["agentId"] = "another-agent"  # another trajectory, as a careful forger writes it
    document["canonicalSha256"] = fingerprint(canonical)
    forged = json.dumps(document).encode("utf-8")
    entry.write_bytes(forged)
    err = _refused_resume(tiny_fixture, out, capsys)
    assert err.startswith("agentic: invalid_journal: ")
    assert "its HMAC does not verify under this run's key" in err
    assert entry.read_bytes() == forged


def test_a_journaled_preparation_edited_is_refused(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 1)
    path = min((journal_folder(out) / PREPARATIONS).glob("*.json"))
    document = json.loads(path.read_bytes())
    document["preparation"]["indexFingerprint"] = "0" * 64
    path.write_text(json.dumps(document), encoding="utf-8")
    err = _refused_resume(tiny_fixture, out, capsys)
    assert err.startswith(f"agentic: invalid_journal: {path}: its HMAC does not verify")


def test_an_entry_carrying_a_score_is_refused(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 1)
    entry = _entry(out)
    document = json.loads(entry.read_bytes())
    document["score"] = {"success": True}
    entry.write_text(json.dumps(document), encoding="utf-8")
    err = _refused_resume(tiny_fixture, out, capsys)
    assert err.startswith(f"agentic: invalid_journal: {entry}: a pair entry holds exactly ")


def test_resume_without_the_runs_key_is_refused_and_kept(
    tiny_fixture: Fixture, tmp_path: Path, state_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 1)
    (key,) = (state_dir / "agentic" / "keys").iterdir()
    key.unlink()  # another machine, another user, or a state dir wiped
    before = sorted(p.name for p in (journal_folder(out) / PAIRS).iterdir())
    err = _refused_resume(tiny_fixture, out, capsys)
    assert err.startswith(f"agentic: run_key_missing: no key of this run at {key}: ")
    assert sorted(p.name for p in (journal_folder(out) / PAIRS).iterdir()) == before


def test_resume_with_another_key_is_refused(
    tiny_fixture: Fixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    monkeypatch.setenv(KEY_FILE_ENV, str(_key_file(tmp_path / "a.key", b"a" * 32)))
    _killed_after(_argv(tiny_fixture, out), out, 1)
    other = _key_file(tmp_path / "b.key", b"b" * 32)
    monkeypatch.setenv(KEY_FILE_ENV, str(other))
    assert _refused_resume(tiny_fixture, out, capsys) == (
        f"agentic: run_key_mismatch: {journal_folder(out)} was sealed with another key than "
        f"{other}; the journal is kept\n"
    )


@pytest.mark.slow
def test_a_key_file_resumes_where_the_state_dir_is_another(
    tiny_fixture: Fixture,
    tmp_path: Path,
    uninterrupted: bytes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "out"
    monkeypatch.setenv(KEY_FILE_ENV, str(_key_file(tmp_path / "run.key", b"k" * 32)))
    _killed_after(_argv(tiny_fixture, out), out, 2)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "a-new-container"))
    assert main(_argv(tiny_fixture, out, "--resume")) == 1  # the gate fails: capsule vs lexical
    assert (out / "canonical.json").read_bytes() == uninterrupted


@pytest.mark.slow
def test_the_key_changes_no_byte_of_the_report(
    tiny_fixture: Fixture,
    tmp_path: Path,
    uninterrupted: bytes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = b"a key that must never reach a report, 32+ bytes long"
    monkeypatch.setenv(KEY_FILE_ENV, str(_key_file(tmp_path / "run.key", secret)))
    out = tmp_path / "out"
    assert main(_argv(tiny_fixture, out)) == 1
    assert (out / "canonical.json").read_bytes() == uninterrupted
    assert not any(secret in path.read_bytes() for path in out.iterdir())


@pytest.mark.slow
def test_a_state_dir_that_cannot_be_written_leaves_the_run_whole(
    tiny_fixture: Fixture,
    tmp_path: Path,
    uninterrupted: bytes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))  # a container's user without a home
    out = tmp_path / "out"
    argv = [a for a in _argv(tiny_fixture, out) if a != "--quiet"]
    assert main(argv) == 1
    assert (out / "canonical.json").read_bytes() == uninterrupted
    assert "this run cannot be resumed: cannot keep this run's key in " in capsys.readouterr().err


def test_a_journal_begun_without_a_key_is_never_resumed(
    tiny_fixture: Fixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 1)
    assert _refused_resume(tiny_fixture, out, capsys) == (
        f"agentic: run_key_missing: {journal_folder(out)} was begun where no key could be "
        "kept, so its entries cannot be trusted; remove it to start over\n"
    )


def test_a_resume_that_prepares_another_index_is_refused_and_kept(
    tiny_fixture: Fixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 1)  # lexical prepared and journaled
    journaled = sorted(p.name for p in (journal_folder(out) / PAIRS).iterdir())
    prepared = {p: p.read_bytes() for p in (journal_folder(out) / PREPARATIONS).iterdir()}
    original = harness_records.preparation_record

    def another_index(*args: Any) -> Preparation:
        record = original(*args)
        return record.model_copy(update={"indexFingerprint": "0" * 64})

    monkeypatch.setattr("agentic.lane.executors.local.preparation_record", another_index)
    err = _refused_resume(tiny_fixture, out, capsys)
    assert err.startswith("agentic: journal_mismatch: ")
    assert "prepared an index other than the journaled one (000000000000 vs " in err
    # Refused before the new index replaced the journaled one or served any pair.
    assert sorted(p.name for p in (journal_folder(out) / PAIRS).iterdir()) == journaled
    assert {p: p.read_bytes() for p in (journal_folder(out) / PREPARATIONS).iterdir()} == prepared


@pytest.mark.slow
def test_a_resume_scores_every_pair_again_from_its_receipt_and_the_fixture(
    tiny_fixture: Fixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    _killed_after(_argv(tiny_fixture, out), out, 9)
    scored: list[tuple[str, str, str, str]] = []

    def spy(receipt: CanonicalReceipt, task: AgentTask, oracle: HiddenOracle) -> TaskScore:
        assert (task, oracle) == (
            tiny_fixture.task(receipt.taskId),
            tiny_fixture.oracle(receipt.taskId),
        )
        scored.append((receipt.adapterId, receipt.lifecycle, receipt.trialId, receipt.taskId))
        return score_receipt(receipt, task, oracle)

    monkeypatch.setattr("agentic.lane.results.score_receipt", spy)
    assert main(_argv(tiny_fixture, out, "--resume")) == 1
    assert len(set(scored)) == len(scored) == SCORED_PAIRS  # the journaled pairs too
