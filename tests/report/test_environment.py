"""The git provenance of a report: asked of git in the background, never trusted blindly."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from agentic.report import environment
from agentic.report.environment import BUILD_COMMIT_ENV, BUILD_DIRTY_ENV, GitProbe, git_info


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-commit repository standing in for the kit's own checkout."""
    root = tmp_path / "checkout"
    root.mkdir()
    _git(root, "init", "-q")
    (root / "file.txt").write_text("one\n", encoding="utf-8")
    _git(root, "add", "file.txt")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "one")
    monkeypatch.setattr(environment, "repo_root", lambda: root)
    monkeypatch.delenv(BUILD_COMMIT_ENV, raising=False)
    return root


def _fake_git(folder: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder.mkdir()
    script = folder / "git"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def test_a_clean_checkout_gives_its_commit_and_not_dirty(checkout: Path) -> None:
    info = git_info()
    assert (info.commit, info.dirty, info.unavailableReason) == (
        _git(checkout, "rev-parse", "HEAD"),
        False,
        None,
    )


def test_an_untracked_file_makes_the_checkout_dirty(checkout: Path) -> None:
    (checkout / "new.txt").write_text("two\n", encoding="utf-8")
    assert git_info().dirty is True


def test_a_folder_without_git_metadata_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(environment, "repo_root", lambda: tmp_path)
    monkeypatch.delenv(BUILD_COMMIT_ENV, raising=False)
    info = git_info()
    assert (info.commit, info.dirty, info.unavailableReason) == (None, None, "not a git checkout")


def test_a_baked_build_commit_stands_in_for_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BUILD_COMMIT_ENV, "ab" * 20)
    monkeypatch.setenv(BUILD_DIRTY_ENV, "false")
    info = git_info()
    assert (info.commit, info.dirty, info.unavailableReason) == ("ab" * 20, False, None)


def test_a_failing_git_leaves_the_metadata_unavailable(
    checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_git(tmp_path / "bin", "exit 128", monkeypatch)
    info = git_info()
    assert (info.commit, info.unavailableReason) == (None, "git metadata unavailable")


def test_a_git_that_answers_no_object_name_leaves_the_metadata_unavailable(
    checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_git(tmp_path / "bin", "echo not-a-commit", monkeypatch)
    info = git_info()
    assert (info.commit, info.unavailableReason) == (None, "git metadata unavailable")


def test_a_hung_git_times_out_as_unavailable(
    checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_git(tmp_path / "bin", "exec sleep 60", monkeypatch)
    monkeypatch.setattr(environment, "GIT_TIMEOUT_S", 0.2)
    assert git_info().unavailableReason == "git metadata unavailable"


def test_a_probe_left_unread_stops_its_git_at_once(
    checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_git(tmp_path / "bin", "exec sleep 60", monkeypatch)
    started = time.monotonic()
    with GitProbe():
        pass
    assert time.monotonic() - started < 10


def test_status_never_takes_the_index_lock(
    checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A probe may be stopped at any moment (a refused fixture, SIGTERM): a status holding the
    # index lock then would leave it behind and break the user's next git command.
    calls = tmp_path / "calls"
    _fake_git(tmp_path / "bin", f'echo "$@" >> {calls}', monkeypatch)
    git_info()
    status = [line for line in calls.read_text().splitlines() if " status " in line]
    assert status == [f"-C {checkout} --no-optional-locks status --porcelain"]
