"""Artifact staging: one complete set is visible at every instant, even across a killed writer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentic.contract.errors import ContractError
from agentic.output.staging import ARTIFACT_NAMES, read_artifact_set, write_artifacts

ROOT = Path(__file__).resolve().parents[2]


def files(tag: str) -> dict[str, bytes]:
    return {name: f"{tag} {name}\n".encode() for name in ARTIFACT_NAMES}


def generation_of(folder: Path) -> set[bytes]:
    """The generation stamps of a complete set (one stamp when consistent)."""
    return {data.split(b"\n", 1)[0] for data in read_artifact_set(folder).values()}


def test_writing_creates_the_complete_set(tmp_path: Path) -> None:
    write_artifacts(tmp_path / "lane", files("one"))
    assert read_artifact_set(tmp_path / "lane") == files("one")


def test_rewriting_replaces_the_whole_set_and_leaves_no_staging(tmp_path: Path) -> None:
    write_artifacts(tmp_path / "lane", files("one"))
    write_artifacts(tmp_path / "lane", files("two"))
    assert read_artifact_set(tmp_path / "lane") == files("two")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lane"]


def test_a_partial_folder_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "lane").mkdir()
    (tmp_path / "lane" / "report.json").write_text("{}")
    with pytest.raises(ContractError, match=r"canonical\.json"):
        read_artifact_set(tmp_path / "lane")


def test_a_partial_folder_is_replaced_by_a_complete_set(tmp_path: Path) -> None:
    (tmp_path / "lane").mkdir()
    (tmp_path / "lane" / "report.json").write_text("{}")
    write_artifacts(tmp_path / "lane", files("one"))
    assert read_artifact_set(tmp_path / "lane") == files("one")


def test_an_unwritable_target_fails_cleanly_and_keeps_the_previous_set(tmp_path: Path) -> None:
    write_artifacts(tmp_path / "lane", files("one"))
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ContractError, match="artifact_write_failed"):
        write_artifacts(blocker / "lane", files("two"))
    assert read_artifact_set(tmp_path / "lane") == files("one")


def test_a_killed_writer_never_leaves_a_mixed_or_missing_set(tmp_path: Path) -> None:
    target = tmp_path / "lane"
    write_artifacts(target, files("generation 0"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    last = 0
    for round_number in range(6):
        child = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "tests" / "support" / "programs" / "writer_loop.py"),
                str(target),
                str(last),
            ],
            stdout=subprocess.PIPE,
            env=env,
        )
        assert child.stdout is not None
        child.stdout.readline()  # at least one full generation written by this child
        deadline = time.monotonic() + 0.05 * (round_number + 1)
        while time.monotonic() < deadline:
            assert len(generation_of(target)) == 1  # a reader never sees a mixed set
        child.send_signal(signal.SIGKILL)
        child.wait()
        stamps = generation_of(target)
        assert len(stamps) == 1
        last = int(stamps.pop().split()[1])
    write_artifacts(target, files("final"))  # the next writer cleans up after the killed ones
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lane"]
