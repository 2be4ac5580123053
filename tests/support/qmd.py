"""Helpers for qmd tests: qmd-shaped results for the tiny fixture, fake installs, whether the
real qmd install (``nox -s qmd-setup``) is present, and one qmd lane run through the real runner
(schedule, cohorts, receipts) without the CLI."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from agentic.adapters.base import Adapter
from agentic.adapters.mcp.profile import CallScope
from agentic.adapters.qmd.install import qmd_home, verify_install
from agentic.adapters.qmd.lockfile import QmdLock, load_qmd_lock
from agentic.adapters.qmd.native import collection_name
from agentic.catalog.agent_openers import open_fixture_agent
from agentic.contract.errors import ContractError
from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from agentic.lane.executors.local import run_adapters
from agentic.lane.run_config import RunConfig
from agentic.resources import locks_dir
from agentic.runner.schedule import build_schedule

TASK_A = "t0000a01"
TASK_B = "t0000b02"
TIMEOUT_S = 30.0


def scope(fixture: Fixture, task_id: str) -> CallScope:
    return CallScope(task=fixture.task(task_id), snapshot=fixture.snapshot)


def qmd_file(collection: str, rel_path: str) -> str:
    return f"{collection_name(collection)}/{rel_path}"


def numbered(start: int, lines: Sequence[str]) -> str:
    """qmd's ``addLineNumbers`` over a snippet whose first line is its header."""
    return "\n".join(f"{start + i}: {line}" for i, line in enumerate(lines))


def snippet(start: int, lines: Sequence[str], *, count: int | None = None) -> str:
    """A snippet as qmd sends it: a numbered ``@@ -START,COUNT @@`` header, then the lines.

    The ``N:`` prefixes start one off on purpose: qmd's own numbering is not reliable.
    """
    header = f"@@ -{start},{count if count is not None else len(lines)} @@ (1 before, 0 after)"
    return numbered(start + 1, [header, *lines])


def hit(file: str, text: str, *, score: float = 1.0, line: int = 1) -> JsonObject:
    return {
        "docid": "#abcdef",
        "file": file,
        "title": "t",
        "score": score,
        "context": None,
        "line": line,
        "snippet": text,
    }


def write_fake_install(home: Path, lock: QmdLock, *, node_version: str, qmd_version: str) -> None:
    """An install tree whose node prints ``node_version`` and whose qmd claims ``qmd_version``."""
    root = home / "install"
    root.mkdir(parents=True)
    (root / "package-lock.json").write_bytes((locks_dir() / lock.npm.packageLock.path).read_bytes())
    node = root / "node_modules" / lock.node.package / "bin" / "node"
    node.parent.mkdir(parents=True)
    node.write_text(f"#!/bin/sh\necho {node_version}\n", encoding="ascii")
    node.chmod(node.stat().st_mode | stat.S_IEXEC)
    package = root / "node_modules" / lock.qmd.package
    (package / lock.qmd.entry).parent.mkdir(parents=True)
    (package / lock.qmd.entry).write_text("// stand-in\n", encoding="ascii")
    (package / "package.json").write_text(json.dumps({"version": qmd_version}), encoding="ascii")


def qmd_installed() -> bool:
    try:
        verify_install(load_qmd_lock(), qmd_home(os.environ))
    except ContractError:
        return False
    return True


requires_qmd = pytest.mark.skipif(
    not qmd_installed(), reason="the pinned qmd is not installed (run 'nox -s qmd-setup')"
)


def run_lane(
    fixture: Fixture, adapter_id: str, factory: Callable[[], Adapter]
) -> tuple[TrajectoryReceipt, ...]:
    """Every task of ``fixture``, cold and warm, with the fixture agent."""
    lane = open_fixture_agent(fixture.root, None)
    task_ids = tuple(task.taskId for task in fixture.tasks)
    schedule = build_schedule(
        task_ids=task_ids,
        known_task_ids=task_ids,
        adapter_ids=(adapter_id,),
        known_adapter_ids=(adapter_id,),
        lifecycles=("cold", "warm"),
        trials=lane.trials,
    )
    config = RunConfig(
        fixture=fixture,
        schedule=schedule,
        adapter_factory=lambda _: factory(),
        agent_factory=lane.factory,
        agent_id=lane.agent_id,
        timeout_s=TIMEOUT_S,
    )
    return run_adapters(config).receipts
