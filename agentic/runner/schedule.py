"""The schedule of one benchmark run, validated before any adapter is prepared."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import ContractError
from agentic.contract.receipt import LIFECYCLES, Lifecycle
from agentic.contract.report import Trial


@dataclass(frozen=True)
class Schedule:
    task_ids: tuple[str, ...]
    adapter_ids: tuple[str, ...]
    lifecycles: tuple[Lifecycle, ...]
    trials: tuple[Trial, ...]


_LISTED = 12


def _listing(known: Sequence[str]) -> str:
    names = sorted(known)
    shown = ", ".join(names[:_LISTED])
    return shown if len(names) <= _LISTED else f"{shown}, ... ({len(names)} in all)"


_Axis = Literal["task", "adapter", "lifecycle", "trial"]

# The code of an invalid list, by the axis it lists.
_INVALID: dict[_Axis, ErrorCodeName] = {
    "task": "invalid_task_schedule",
    "adapter": "invalid_adapter_schedule",
    "lifecycle": "invalid_lifecycle_schedule",
    "trial": "invalid_trial_schedule",
}


def _check_items(kind: _Axis, items: Sequence[str], known: Sequence[str]) -> None:
    code = _INVALID[kind]
    if not items:
        raise ContractError(code, f"the {kind} list is empty")
    seen: set[str] = set()
    for item in items:
        if item in seen:
            raise ContractError(code, f"duplicate {kind} {item!r}")
        seen.add(item)
        if item not in known:
            raise ContractError(code, f"unknown {kind} {item!r}; known: {_listing(known)}")


def build_schedule(
    *,
    task_ids: Sequence[str],
    known_task_ids: Sequence[str],
    adapter_ids: Sequence[str],
    known_adapter_ids: Sequence[str],
    lifecycles: Sequence[str],
    trials: Sequence[Trial],
) -> Schedule:
    """Validate every axis, then fix the run order: tasks and adapters sorted, cold before warm."""
    _check_items("task", task_ids, known_task_ids)
    _check_items("adapter", adapter_ids, known_adapter_ids)
    _check_items("lifecycle", lifecycles, LIFECYCLES)
    _check_items("trial", [t.trialId for t in trials], [t.trialId for t in trials])
    ordered_lifecycles = tuple(lc for lc in LIFECYCLES if lc in lifecycles)
    return Schedule(
        task_ids=tuple(sorted(task_ids)),
        adapter_ids=tuple(sorted(adapter_ids)),
        lifecycles=ordered_lifecycles,
        trials=tuple(trials),
    )
