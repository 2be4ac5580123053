"""Environment provenance recorded in every report (part of canonicalFingerprint only)."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from pathlib import Path

from agentic import __version__
from agentic.contract.report import AgentEndpoint, Environment, GitInfo, Isolation, Trial
from agentic.resources import repo_root

# Baked into the container image at build time, where no .git folder exists.
BUILD_COMMIT_ENV = "AGENTIC_BUILD_COMMIT"
BUILD_DIRTY_ENV = "AGENTIC_BUILD_DIRTY"


GIT_TIMEOUT_S = 10.0
_COMMIT = re.compile(r"[0-9a-f]{40}")


class GitProbe:
    """The checkout's commit and whether it is dirty, asked of git in the background: both git
    processes start at once when the probe is made, and ``result`` reads them, so they run while
    the caller does other work (a lane loads its fixture meanwhile). Leaving the ``with`` block
    kills a git still running; an image build's baked commit stands in for a missing .git."""

    def __init__(self) -> None:
        self._known: GitInfo | None = _baked() or _unavailable()
        self._running: list[subprocess.Popen[str]] = []
        if self._known is not None:
            return
        root = repo_root()
        assert root is not None  # _unavailable() said so
        # --no-optional-locks: status must not take the index lock to refresh it, so it never
        # races the user's own git and may be stopped at any moment without leaving a lock.
        for args in (("rev-parse", "HEAD"), ("--no-optional-locks", "status", "--porcelain")):
            try:
                self._running.append(_spawn_git(root, args))
            except OSError:
                self._known = GitInfo(
                    commit=None, dirty=None, unavailableReason="git metadata unavailable"
                )
                return

    def __enter__(self) -> GitProbe:
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self._running:
            if process.poll() is None:
                process.kill()
            process.communicate()

    def result(self) -> GitInfo:
        if self._known is not None:
            return self._known
        head, status = (_output(process) for process in self._running)
        commit = (head or "").strip()
        # Anything but a full object name (a git that answers oddly) is no commit at all.
        if status is None or _COMMIT.fullmatch(commit) is None:
            return GitInfo(commit=None, dirty=None, unavailableReason="git metadata unavailable")
        return GitInfo(commit=commit, dirty=bool(status.strip()), unavailableReason=None)


def _spawn_git(root: Path, args: tuple[str, ...]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["git", "-C", str(root), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _output(process: subprocess.Popen[str]) -> str | None:
    try:
        out, _ = process.communicate(timeout=GIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return None
    return out if process.returncode == 0 else None


def _baked() -> GitInfo | None:
    baked = os.environ.get(BUILD_COMMIT_ENV)
    if not baked:
        return None
    dirty = os.environ.get(BUILD_DIRTY_ENV)
    return GitInfo(
        commit=baked,
        # Only an explicit "true"/"false" is known; an empty build arg says nothing.
        dirty={"true": True, "false": False}.get(dirty or ""),
        unavailableReason=None,
    )


def _unavailable() -> GitInfo | None:
    root = repo_root()
    if root is None or not (root / ".git").exists():
        return GitInfo(commit=None, dirty=None, unavailableReason="not a git checkout")
    return None


def git_info() -> GitInfo:
    with GitProbe() as probe:
        return probe.result()


def collect_environment(
    *,
    fixture_version: str,
    agent_id: str,
    trials: tuple[Trial, ...],
    isolation: Isolation | None = None,
    agent_endpoint: AgentEndpoint | None = None,
    git: GitInfo | None = None,
) -> Environment:
    """The run's environment; ``git`` as a ``GitProbe`` found it, else asked now."""
    return Environment(
        packageVersion=__version__,
        bunVersion=None,
        pythonVersion=platform.python_version(),
        platform=sys.platform,
        architecture=platform.machine(),
        git=git if git is not None else git_info(),
        fixtureVersion=fixture_version,
        agentId=agent_id,
        trials=trials,
        isolation=isolation,
        agentEndpoint=agent_endpoint,
    )
