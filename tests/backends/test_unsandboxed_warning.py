"""A run that starts a backend without bubblewrap says so, in one line on stderr, every time:
the sandbox is never lost silently. ``none`` is a choice, not a loss, and says nothing; a
required sandbox that cannot run is refused (``test_sandbox.py``)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from agentic.adapters import sandbox
from tests.support.backends import agentic, stdio_config, write_config
from tests.support.tiny_fixture import TASK_A

WARNING = (
    "agentic: warning: bubblewrap is not installed: backend misbehaving runs unsandboxed "
    "(AGENTIC_ISOLATION=bubblewrap refuses instead; install: apt-get install bubblewrap)"
)


@pytest.fixture
def no_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """``auto`` isolation on a PATH without ``bwrap`` (this interpreter's folder alone)."""
    monkeypatch.setenv("AGENTIC_ISOLATION", "auto")
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    monkeypatch.setattr(sandbox, "bubblewrap_works", lambda: False)


@pytest.mark.usefixtures("no_bubblewrap")
def test_the_warning_names_the_backends_and_how_to_install_bubblewrap() -> None:
    assert sandbox.unsandboxed_warning(["misbehaving"]) == WARNING


@pytest.mark.usefixtures("no_bubblewrap")
def test_an_installed_bubblewrap_that_cannot_run_is_told_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    warning = sandbox.unsandboxed_warning(["a", "b"]) or ""
    assert warning.startswith(
        "agentic: warning: bubblewrap cannot create namespaces here: backends a, b run unsandboxed"
    )


@pytest.mark.usefixtures("no_bubblewrap")
def test_isolation_none_asked_for_is_not_warned_of(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "none")
    assert sandbox.unsandboxed_warning(["misbehaving"]) is None


@pytest.mark.real_process
@pytest.mark.usefixtures("no_bubblewrap")
def test_a_run_without_bubblewrap_warns_once_on_stderr(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    path = write_config(tmp_path / "config", stdio_config("ok"))
    done = agentic(
        "run", "--fixture", str(tiny_fixture_dir), "--backend", str(path),
        "--adapter", "misbehaving", "--task", TASK_A, "--promote", "none",
        "--out", str(tmp_path / "out"), "--quiet", temp=tmp_path / "tmp",
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert done.stderr.splitlines() == [WARNING]


@pytest.mark.usefixtures("no_bubblewrap")
def test_a_required_sandbox_without_bubblewrap_is_refused_with_how_to_install_it() -> None:
    with pytest.raises(sandbox.SandboxError, match="apt-get install bubblewrap"):
        sandbox.isolation({"AGENTIC_ISOLATION": "bubblewrap"})
