"""What a run executes, apart from where it runs: every pair of a schedule, in run order.
It also gives the deterministic slice of them that one shard runs.

A pair is named by a ``PairKey``: its pass (``scored``, or ``replay`` for the second pass of a
replayable bundle adapter on a fresh preparation), adapter, lifecycle, trial and task. The seed
and the agent follow from the trial and the lane. Reports are built from receipts sorted by
identity, so neither the executor, the order in which pairs finish, the number of workers nor
the shard split can change a canonical byte.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from agentic.contract.base import ContractModel, PositiveInt, Sha256, Str
from agentic.contract.errors import ContractError
from agentic.contract.receipt import Lifecycle, PairIdentity
from agentic.contract.report import Trial
from agentic.contract.strict_json import JsonObject, JsonValue
from agentic.runner.schedule import Schedule

Pass = Literal["scored", "replay"]
PASSES: tuple[Pass, ...] = ("scored", "replay")
_SHARD = re.compile(r"([1-9][0-9]*)/([1-9][0-9]*)")


@dataclass(frozen=True, order=True)
class PairKey:
    pass_: Pass
    adapter_id: str
    lifecycle: Lifecycle
    trial_id: str
    task_id: str

    @classmethod
    def of(cls, pass_: Pass, pair: PairIdentity) -> PairKey:
        return cls(pass_, pair.adapterId, pair.lifecycle, pair.trialId, pair.taskId)

    def to_json(self) -> JsonObject:
        return {
            "pass": self.pass_,
            "adapterId": self.adapter_id,
            "lifecycle": self.lifecycle,
            "trialId": self.trial_id,
            "taskId": self.task_id,
        }

    def label(self) -> str:
        suffix = " (replay)" if self.pass_ == "replay" else ""
        return f"{self.adapter_id}/{self.lifecycle}/{self.trial_id}/{self.task_id}{suffix}"


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based), written ``K/N`` on the command line."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = _SHARD.fullmatch(text)
        if match is None:
            raise ContractError("invalid_shard", f"--shard {text!r}: expected K/N, e.g. 1/4")
        index, count = int(match.group(1)), int(match.group(2))
        if index > count:
            raise ContractError("invalid_shard", f"--shard {text}: K must be at most N")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def first_difference(a: Mapping[str, JsonValue], b: Mapping[str, JsonValue]) -> str | None:
    """The first field, in name order, in which two run identities differ (None: equal)."""
    return next((n for n in sorted(set(a) | set(b)) if a.get(n) != b.get(n)), None)


def planned_keys(schedule: Schedule, replay_adapters: frozenset[str]) -> tuple[PairKey, ...]:
    """Every pair of the run in run order: per adapter its scored pass, then its replay pass
    when it has one; cold before warm; trials in schedule order; tasks sorted."""
    keys = []
    for adapter_id in schedule.adapter_ids:
        passes: tuple[Pass, ...] = PASSES if adapter_id in replay_adapters else ("scored",)
        for pass_ in passes:
            for lifecycle in schedule.lifecycles:
                for trial in schedule.trials:
                    for task_id in schedule.task_ids:
                        keys.append(PairKey(pass_, adapter_id, lifecycle, trial.trialId, task_id))
    return tuple(keys)


def shard_keys(keys: tuple[PairKey, ...], shard: Shard) -> frozenset[PairKey]:
    """The pairs shard ``shard`` runs: every ``count``-th scored pair from position ``index - 1``
    (round robin, so each shard gets a share of every adapter and cohort), each with its replay
    twin, so a shard holds both passes that a bundle replay compares."""
    scored = [key for key in keys if key.pass_ == "scored"]
    mine = {key for position, key in enumerate(scored) if position % shard.count == shard.index - 1}
    return frozenset(
        key for key in keys if (key if key.pass_ == "scored" else scored_twin(key)) in mine
    )


def scored_twin(key: PairKey) -> PairKey:
    """The scored pair a replay pair repeats (a scored pair is its own twin)."""
    return PairKey("scored", key.adapter_id, key.lifecycle, key.trial_id, key.task_id)


class AgentIdentity(ContractModel):
    """What decides an agent's behaviour beyond its id: its kind, its endpoint, its cue table
    and the config file it came from (both by content)."""

    id: Str
    kind: Str
    endpoint: JsonObject | None
    cues: Sha256 | None
    source: Str


class AdapterIdentity(ContractModel):
    id: Str
    config: Sha256  # the fingerprint of the adapter's configuration


class RunIdentity(ContractModel):
    """What a journal, a shard or a worker's rebuilt lane belongs to: two runs with the same
    identity produce the same receipts, so their pairs may be combined."""

    kit: Str
    runtime: Sha256
    fixture: Sha256
    agent: AgentIdentity
    adapters: tuple[AdapterIdentity, ...]
    tasks: tuple[Str, ...]
    lifecycles: tuple[Lifecycle, ...]
    trials: tuple[Trial, ...]
    replay: tuple[Str, ...]
    timeoutMs: PositiveInt

    @property
    def adapter_ids(self) -> tuple[str, ...]:
        return tuple(adapter.id for adapter in self.adapters)

    def schedule(self) -> Schedule:
        return Schedule(self.tasks, self.adapter_ids, self.lifecycles, self.trials)

    def planned_keys(self) -> tuple[PairKey, ...]:
        return planned_keys(self.schedule(), frozenset(self.replay))
