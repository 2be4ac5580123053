"""Environment provenance recorded in every report (part of canonicalFingerprint only)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

from agentic import __version__
from agentic.contract.report import AgentEndpoint, Environment, GitInfo, Isolation, Trial
from agentic.resources import repo_root

# Baked into the container image at build time, where no .git folder exists.
BUILD_COMMIT_ENV = "AGENTIC_BUILD_COMMIT"
BUILD_DIRTY_ENV = "AGENTIC_BUILD_DIRTY"


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def git_info() -> GitInfo:
    baked = os.environ.get(BUILD_COMMIT_ENV)
    if baked:
        dirty = os.environ.get(BUILD_DIRTY_ENV)
        return GitInfo(
            commit=baked,
            # Only an explicit "true"/"false" is known; an empty build arg says nothing.
            dirty={"true": True, "false": False}.get(dirty or ""),
            unavailableReason=None,
        )
    root = repo_root()
    if root is None or not (root / ".git").exists():
        return GitInfo(commit=None, dirty=None, unavailableReason="not a git checkout")
    head = _git(root, "rev-parse", "HEAD")
    status = _git(root, "status", "--porcelain")
    if head is None or status is None:
        return GitInfo(commit=None, dirty=None, unavailableReason="git metadata unavailable")
    return GitInfo(commit=head.strip(), dirty=bool(status.strip()), unavailableReason=None)


def collect_environment(
    *,
    fixture_version: str,
    agent_id: str,
    trials: tuple[Trial, ...],
    isolation: Isolation | None = None,
    agent_endpoint: AgentEndpoint | None = None,
) -> Environment:
    return Environment(
        packageVersion=__version__,
        bunVersion=None,
        pythonVersion=platform.python_version(),
        platform=sys.platform,
        architecture=platform.machine(),
        git=git_info(),
        fixtureVersion=fixture_version,
        agentId=agent_id,
        trials=trials,
        isolation=isolation,
        agentEndpoint=agent_endpoint,
    )
