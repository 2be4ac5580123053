"""What every test folder shares: the Hypothesis profile and the tiny fixture.

Hypothesis profiles: ``agentic-fast`` (the default) is derandomized, so a CI run explores the
same examples every time and stays within the suite's time budget on a shared machine.
``agentic-thorough`` explores randomly and much more; select it with
``AGENTIC_HYPOTHESIS_PROFILE=agentic-thorough``. The profile is loaded here, before any test
module is imported, so a module-level ``settings()`` sees it too.

The tiny fixture (``tests.support.tiny_fixture``) comes three ways:

- ``tiny_fixture_dir``: a freshly written folder for each test, which the test may edit;
- ``tiny_fixture``: the loaded ``Fixture``, written and loaded once per session; a ``Fixture``
  is immutable, and no test may write under its ``root``;
- ``tiny_fixture_with_goldens``: the same with the tiny goldens (``tests.support.goldens``)
  written under its root, for the ranking and generation tiers; shared read-only like it.

``unsandboxed`` runs backend children without bubblewrap (see its docstring).

Every test runs with ``XDG_STATE_HOME`` in a folder of its session, so the run keys that journals
and shards are sealed with (``lane/journal.py``) never pile up in the real home.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from agentic.fixture.loader import Fixture, load_fixture
from tests.support.goldens import write_tiny_fixture_with_goldens
from tests.support.tiny_fixture import write_tiny_fixture

FAST = "agentic-fast"
THOROUGH = "agentic-thorough"

settings.register_profile(
    FAST,
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(THOROUGH, max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("AGENTIC_HYPOTHESIS_PROFILE", FAST))


@pytest.fixture
def tiny_fixture_dir(tmp_path: Path) -> Path:
    """The tiny fixture written under this test's ``tmp_path``, its own to edit."""
    return write_tiny_fixture(tmp_path / "tiny")


@pytest.fixture(scope="session")
def tiny_fixture(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    """The tiny fixture, loaded once for the session and shared read-only."""
    return load_fixture(write_tiny_fixture(tmp_path_factory.mktemp("tiny") / "fixture"))


@pytest.fixture(scope="session")
def tiny_fixture_with_goldens(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    """The tiny fixture with its goldens, loaded once for the session and shared read-only."""
    return load_fixture(write_tiny_fixture_with_goldens(tmp_path_factory.mktemp("tiny-goldens")))


@pytest.fixture
def unsandboxed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Backend children run without bubblewrap: for tests of the harness's own process
    cleanup, which read pids a child writes to files (a sandboxed child sees neither the file's
    folder nor its host pid)."""
    monkeypatch.setenv("AGENTIC_ISOLATION", "none")


@pytest.fixture(scope="session", autouse=True)
def private_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """This session's state folder, inherited by every ``agentic`` child a test starts."""
    folder = tmp_path_factory.mktemp("state")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(folder))
        yield folder
