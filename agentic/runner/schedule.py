"""The schedule of one benchmark run, validated before any adapter is prepared."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentic.contract.errors import ContractError
from agentic.contract.receipt import LIFECYCLES, Lifecycle
from agentic.contract.report import Trial


@dataclass(frozen=True)
class Schedule:
    task_ids: tuple[str, ...]
    adapter_ids: tuple[str, ...]
    lifecycles: tuple[Lifecycle, ...]
    trials: tuple[Trial, ...]

    @property
    def attempted_pairs(self) -> int:
        return len(self.task_ids) * len(self.adapter_ids) * len(self.lifecycles) * len(self.trials)


_LISTED = 12


def _listing(known: Sequence[str]) -> str:
    names = sorted(known)
    shown = ", ".join(names[:_LISTED])
    return shown if len(names) <= _LISTED else f"{shown}, ... ({len(names)} in all)"


def _check_items(kind: str, items: Sequence[str], known: Sequence[str]) -> None:
    if not items:
        raise ContractError(f"invalid_{kind}_schedule", f"the {kind} list is empty")
    seen: set[str] = set()
    for item in items:
        if item in seen:
            raise ContractError(f"invalid_{kind}_schedule", f"duplicate {kind} {item!r}")
        seen.add(item)
        if item not in known:
            raise ContractError(
                f"invalid_{kind}_schedule", f"unknown {kind} {item!r}; known: {_listing(known)}"
            )


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
