"""Lanes that may be written as baselines, and where.

Only a full lane (every task, both lifecycles, exactly the lane's adapters) may be written. The
authoritative lane is the fixture agent over lexical, capsule and mcp-reference; every other lane
writes under ``baselines/optional/``. The ``oracle`` ceiling is never written.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentic.contract.errors import ContractError
from agentic.contract.receipt import LIFECYCLES


@dataclass(frozen=True)
class Lane:
    agent: str
    adapters: frozenset[str]
    folder: str


AUTHORITATIVE_ADAPTERS: tuple[str, ...] = ("capsule", "lexical", "mcp-reference")
AUTHORITATIVE_FOLDER = "fixture-agent"
OPTIONAL_FOLDER = "optional"

LANES: tuple[Lane, ...] = (
    Lane("fixture", frozenset(AUTHORITATIVE_ADAPTERS), AUTHORITATIVE_FOLDER),
    Lane("fixture", frozenset({"qmd-lex"}), f"{OPTIONAL_FOLDER}/qmd-lex"),
    Lane("fixture", frozenset({"qmd"}), f"{OPTIONAL_FOLDER}/qmd"),
    Lane("local-model", frozenset(AUTHORITATIVE_ADAPTERS), f"{OPTIONAL_FOLDER}/local-model"),
)


def baseline_folder(
    *,
    agent: str,
    adapters: tuple[str, ...],
    task_ids: tuple[str, ...],
    all_task_ids: tuple[str, ...],
    lifecycles: tuple[str, ...],
) -> str:
    """The folder under ``baselines/`` for this run, or ContractError(unsafe_baseline_write)."""
    if tuple(sorted(task_ids)) != tuple(sorted(all_task_ids)):
        raise ContractError("unsafe_baseline_write", "--write needs every task of the fixture")
    if tuple(sorted(lifecycles)) != tuple(sorted(LIFECYCLES)):
        raise ContractError("unsafe_baseline_write", "--write needs both lifecycles")
    for lane in LANES:
        if lane.agent == agent and lane.adapters == frozenset(adapters):
            return lane.folder
    raise ContractError(
        "unsafe_baseline_write",
        f"agent {agent!r} with adapters {','.join(sorted(adapters))} is not a baseline lane",
    )
