"""How a backend child is wrapped in bubblewrap, and which leftovers the harness reaps.

The end-to-end proofs (a hostile server that finds nothing under the sandbox and the oracles
without it; a detached grandchild gone after the run) are in tests/backends/test_sandbox.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic.adapters.sandbox import (
    RELAY_SCRIPT,
    Relay,
    SandboxError,
    View,
    requested_isolation,
    wrap,
)
from agentic.processes import SESSION_ENV, reap_adopted
from tests.support.processes import process_alive

PYTHON = sys.executable


def _pairs(argv: tuple[str, ...], flag: str) -> list[str]:
    return [argv[i + 1] for i, part in enumerate(argv) if part == flag]


def test_without_a_view_or_with_isolation_none_the_command_is_unchanged(tmp_path: Path) -> None:
    argv = (PYTHON, "-c", "pass")
    assert wrap(argv, tmp_path, None, "bubblewrap") == argv
    assert wrap(argv, tmp_path, View(), "none") == argv


def test_under_bubblewrap_the_child_gets_its_own_namespaces_and_dies_with_the_harness(
    tmp_path: Path,
) -> None:
    wrapped = wrap((PYTHON, "-c", "pass"), tmp_path, View(), "bubblewrap")
    assert Path(wrapped[0]).name == "bwrap"
    for flag in ("--unshare-all", "--die-with-parent", "--new-session"):
        assert flag in wrapped
    assert wrapped[wrapped.index("--") + 1 :] == (PYTHON, "-c", "pass")
    assert _pairs(wrapped, "--chdir") == [str(tmp_path)]


def test_no_child_shares_the_harness_network(tmp_path: Path) -> None:
    relay = Relay(tmp_path / "door" / "http.sock", 8000)
    (tmp_path / "door").mkdir()
    for view, door_fd in ((View(), None), (View(relay=relay), 3)):
        assert "--share-net" not in wrap((PYTHON,), tmp_path, view, "bubblewrap", door_fd)


def test_a_relayed_server_runs_behind_the_relay_handed_its_door_by_descriptor(
    tmp_path: Path,
) -> None:
    door = tmp_path / "door"
    door.mkdir()
    relay = Relay(door / "http.sock", 8123)
    wrapped = wrap((PYTHON, "-m", "server"), tmp_path, View(relay=relay), "bubblewrap", 5)
    command = wrapped[wrapped.index("--") + 1 :]
    assert command == (
        PYTHON, str(RELAY_SCRIPT), "--listen-fd", "5", "--port", "8123",
        "--", PYTHON, "-m", "server",
    )  # fmt: skip
    assert str(RELAY_SCRIPT) in _pairs(wrapped, "--ro-bind")


def test_the_door_folder_is_never_bound_into_the_sandbox(tmp_path: Path) -> None:
    door = tmp_path / "door"
    door.mkdir()
    wrapped = wrap(
        (PYTHON,), tmp_path, View(relay=Relay(door / "http.sock", 8123)), "bubblewrap", 5
    )
    assert not any(str(door) in part for part in wrapped[: wrapped.index("--")])


def test_a_relayed_server_without_its_door_descriptor_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="door"):
        wrap((PYTHON,), tmp_path, View(relay=Relay(tmp_path / "h.sock", 1)), "bubblewrap")


def test_read_only_and_writable_paths_are_bound_as_such(tmp_path: Path) -> None:
    prepared, run = tmp_path / "prepared", tmp_path / "run"
    prepared.mkdir()
    run.mkdir()
    wrapped = wrap((PYTHON,), run, View(read_only=(prepared,), writable=(run,)), "bubblewrap")
    assert str(prepared) in _pairs(wrapped, "--ro-bind")
    assert _pairs(wrapped, "--bind") == [str(run)]


def test_a_path_that_does_not_exist_is_not_bound(tmp_path: Path) -> None:
    wrapped = wrap((PYTHON,), tmp_path, View(read_only=(tmp_path / "nothing",)), "bubblewrap")
    assert str(tmp_path / "nothing") not in wrapped


def test_the_harness_directory_is_masked_when_a_bind_contains_it_and_inner_binds_show_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = tmp_path / "checkout"
    inner = harness / "package"
    inner.mkdir(parents=True)
    monkeypatch.chdir(harness)
    wrapped = wrap((PYTHON,), tmp_path, View(read_only=(tmp_path, inner)), "bubblewrap")
    mask = wrapped.index("--tmpfs", wrapped.index("/tmp") + 1)
    assert wrapped[mask + 1] == str(harness)
    assert wrapped.index(str(inner)) > mask > wrapped.index(str(tmp_path))


def test_the_harness_directory_is_not_masked_when_nothing_contains_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness, other = tmp_path / "checkout", tmp_path / "other"
    harness.mkdir()
    other.mkdir()
    monkeypatch.chdir(harness)
    wrapped = wrap((PYTHON,), other, View(read_only=(other,)), "bubblewrap")
    assert str(harness) not in _pairs(wrapped, "--tmpfs")


def test_a_command_that_is_not_there_fails_as_an_unsandboxed_spawn_would(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        wrap(("/nonexistent/server",), tmp_path, View(), "bubblewrap")


@pytest.mark.parametrize("value", ["", "auto", "bubblewrap", "none"])
def test_a_known_isolation_setting_is_accepted(value: str) -> None:
    assert requested_isolation({"AGENTIC_ISOLATION": value}) == (value or "auto")


def test_an_unknown_isolation_setting_is_refused() -> None:
    with pytest.raises(SandboxError, match="is not one of auto, bubblewrap, none"):
        requested_isolation({"AGENTIC_ISOLATION": "chroot"})


# -- reaping -------------------------------------------------------------------------------------


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A child of this process that carries no session marker."""
    child = subprocess.Popen([PYTHON, "-c", "import time; time.sleep(600)"])
    yield child
    child.kill()
    child.wait()


def _marked_child(marker: str) -> int:
    env = {**os.environ, SESSION_ENV: marker}
    # Not a Popen the test keeps: reap_adopted reaps it, as it does an adopted orphan.
    return subprocess.Popen([PYTHON, "-c", "import time; time.sleep(600)"], env=env).pid


def test_reaping_a_session_ends_its_marked_children_and_spares_the_harness_own(
    sleeper: subprocess.Popen[bytes],
) -> None:
    marked = _marked_child("session-a")
    other = _marked_child("session-b")
    assert marked in reap_adopted("session-a")
    assert not process_alive(marked)
    assert process_alive(other) and sleeper.poll() is None
    assert other in reap_adopted()
    assert sleeper.poll() is None


def test_a_spared_child_is_not_reaped() -> None:
    marked = _marked_child("session-c")
    assert reap_adopted("session-c", spared=frozenset({marked})) == ()
    assert reap_adopted("session-c") == (marked,)


def _fixture_folder(path: Path) -> Path:
    """A folder the loader has noted as a fixture (the sandbox hides every such folder)."""
    from agentic.fixture import hidden

    (path / "oracles").mkdir(parents=True)
    hidden.remember(path)
    return path


def test_a_fixture_inside_a_bound_folder_is_masked_after_every_bind(tmp_path: Path) -> None:
    config = tmp_path / "config"
    fixture = _fixture_folder(config / "fixtures" / "mine")
    wrapped = wrap((PYTHON,), tmp_path, View(read_only=(config,)), "bubblewrap")
    assert str(fixture) in _pairs(wrapped, "--tmpfs")
    last_bind = max(i for i, part in enumerate(wrapped) if part in ("--bind", "--ro-bind"))
    assert wrapped.index(str(fixture)) > last_bind


def test_a_fixture_reached_through_a_linked_bind_is_masked_where_the_sandbox_shows_it(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real"
    _fixture_folder(real / "fx")
    link = tmp_path / "link"
    link.symlink_to(real)
    wrapped = wrap((PYTHON,), tmp_path, View(read_only=(link,)), "bubblewrap")
    assert str(link / "fx") in _pairs(wrapped, "--tmpfs")


def test_the_kits_bundled_fixtures_are_among_the_hidden_roots() -> None:
    from agentic import resources
    from agentic.adapters.sandbox import hidden_roots

    assert set(resources.bundled_fixture_dirs()) <= set(hidden_roots())
    assert resources.bundled_fixture_dirs()


def test_a_command_line_that_names_the_file_system_root_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="names /, the whole file system"):
        wrap((PYTHON, "/"), tmp_path, View(), "bubblewrap")


def test_a_command_line_that_names_a_file_inside_a_fixture_is_refused(tmp_path: Path) -> None:
    fixture = _fixture_folder(tmp_path / "fx")
    oracle = fixture / "oracles" / "t1.json"
    oracle.write_text("{}", encoding="utf-8")
    with pytest.raises(SandboxError, match="overlaps the fixture"):
        wrap((PYTHON, "server.py", "--data", str(oracle)), tmp_path, View(), "bubblewrap")


def test_a_command_line_that_names_a_folder_holding_a_fixture_is_refused(tmp_path: Path) -> None:
    _fixture_folder(tmp_path / "data" / "fx")
    with pytest.raises(SandboxError, match="overlaps the fixture"):
        wrap((PYTHON, str(tmp_path / "data")), tmp_path, View(), "bubblewrap")


def test_a_view_path_inside_a_fixture_is_refused(tmp_path: Path) -> None:
    fixture = _fixture_folder(tmp_path / "fx")
    with pytest.raises(SandboxError, match="lies inside the fixture"):
        wrap((PYTHON,), tmp_path, View(read_only=(fixture / "oracles",)), "bubblewrap")
