"""A run killed with SIGKILL leaves its ``agentic-run-*`` folder behind; the next run removes it,
and only it: a folder whose owner lives, one without the kit's owner marker, one whose marker is
malformed or from another pid namespace, is left alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agentic.adapters.base import Adapter
from agentic.agents.base import Agent
from agentic.fixture.loader import Fixture
from agentic.lane.executors.local import run_adapters
from agentic.lane.run_config import RunConfig
from agentic.lane.work_dir import OWNER_FILE, new_work_dir, process_owner, sweep_orphaned_runs
from agentic.runner.schedule import Schedule

pytestmark = pytest.mark.real_process

# A child that makes a run folder the way a run does, prints it, and waits to be killed.
_OWNER = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from agentic.lane.work_dir import new_work_dir\n"
    "print(new_work_dir(Path(sys.argv[1])), flush=True)\n"
    "time.sleep(120)\n"
)


@contextmanager
def owner_child(temp_dir: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    child = subprocess.Popen(
        [sys.executable, "-c", _OWNER, str(temp_dir)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        yield child, Path(child.stdout.readline().strip())
    finally:
        child.kill()
        child.wait()
        if child.stdout is not None:
            child.stdout.close()


def killed_owners_folder(temp_dir: Path) -> Path:
    with owner_child(temp_dir) as (child, folder):
        os.kill(child.pid, signal.SIGKILL)
        child.wait()  # reaped: the pid now names nothing (or, later, another process)
    return folder


def marked(temp_dir: Path, name: str, marker: object) -> Path:
    folder = temp_dir / name
    folder.mkdir()
    (folder / OWNER_FILE).write_text(json.dumps(marker), encoding="utf-8")
    return folder


def own_marker() -> dict[str, str | int]:
    me = process_owner(os.getpid())
    assert me is not None
    return me.to_json()


def test_a_folder_whose_owner_was_killed_is_removed(tmp_path: Path) -> None:
    folder = killed_owners_folder(tmp_path)
    assert (folder / OWNER_FILE).is_file()

    assert sweep_orphaned_runs(tmp_path) == (folder,)
    assert not folder.exists()


def test_a_folder_whose_owner_lives_is_kept(tmp_path: Path) -> None:
    with owner_child(tmp_path) as (_, folder):
        assert sweep_orphaned_runs(tmp_path) == ()
        assert folder.is_dir()


def test_a_folder_without_the_kits_marker_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "agentic-run-unmarked"
    folder.mkdir()
    assert sweep_orphaned_runs(tmp_path) == ()
    assert folder.is_dir()


def test_a_reused_pid_is_not_taken_for_the_owner(tmp_path: Path) -> None:
    # The pid is alive (it is this process) but started at another time: another process.
    mine = own_marker()
    marker = {**mine, "startTicks": int(mine["startTicks"]) + 1}
    folder = marked(tmp_path, "agentic-run-reused", marker)
    assert sweep_orphaned_runs(tmp_path) == (folder,)


def test_a_folder_of_this_very_process_is_kept(tmp_path: Path) -> None:
    folder = new_work_dir(tmp_path)
    assert sweep_orphaned_runs(tmp_path) == ()
    assert folder.is_dir()


def test_a_marker_from_another_pid_namespace_is_kept(tmp_path: Path) -> None:
    marker = {**own_marker(), "pidNamespace": "pid:[1]", "pid": 999_999_999}
    folder = marked(tmp_path, "agentic-run-elsewhere", marker)
    assert sweep_orphaned_runs(tmp_path) == ()
    assert folder.is_dir()


def test_a_marker_of_an_earlier_boot_is_an_ended_owner(tmp_path: Path) -> None:
    folder = marked(tmp_path, "agentic-run-old-boot", {**own_marker(), "bootId": "earlier"})
    assert sweep_orphaned_runs(tmp_path) == (folder,)


@pytest.mark.parametrize(
    "marker",
    [
        [],
        {"pid": 999_999_999},
        {"bootId": "b", "pidNamespace": "n", "pid": "1", "startTicks": 1},
        {"bootId": "b", "pidNamespace": "n", "pid": 999_999_999, "startTicks": 1, "x": 1},
    ],
)
def test_a_malformed_marker_is_kept(tmp_path: Path, marker: object) -> None:
    folder = marked(tmp_path, "agentic-run-odd", marker)
    assert sweep_orphaned_runs(tmp_path) == ()
    assert folder.is_dir()


def test_only_run_folders_are_swept(tmp_path: Path) -> None:
    dead = killed_owners_folder(tmp_path)
    other = dead.rename(tmp_path / "someone-else")
    assert sweep_orphaned_runs(tmp_path) == ()
    assert other.is_dir()


def test_a_symlink_named_like_a_run_folder_is_left_alone(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    dead = killed_owners_folder(elsewhere)
    (tmp_path / "agentic-run-link").symlink_to(dead)
    assert sweep_orphaned_runs(tmp_path) == ()
    assert dead.is_dir()


def test_a_run_sweeps_its_temporary_directory_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_fixture: Fixture
) -> None:
    dead = killed_owners_folder(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    run_adapters(empty_run(tiny_fixture))

    assert not dead.exists()
    assert list(tmp_path.glob("agentic-run-*")) == []  # and its own folder went at its end


def empty_run(fixture: Fixture) -> RunConfig:
    def no_adapter(adapter_id: str) -> Adapter:
        raise AssertionError(adapter_id)

    def no_agent() -> Agent:
        raise AssertionError("no agent")

    return RunConfig(
        fixture=fixture,
        schedule=Schedule(task_ids=(), adapter_ids=("lexical",), lifecycles=(), trials=()),
        adapter_factory=no_adapter,
        agent_factory=no_agent,
        agent_id="none",
        timeout_s=1.0,
        selected=frozenset(),  # nothing to run: the sweep and the run's own folder remain
    )
