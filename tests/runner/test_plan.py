"""The pair plan and its shards: a deterministic partition of a lane's pairs."""

from __future__ import annotations

import pytest

from agentic.contract.errors import ContractError
from agentic.contract.report import Trial
from agentic.lane.executors.units import plan_units
from agentic.runner.pairs import PairKey, Shard, planned_keys, shard_keys
from agentic.runner.schedule import Schedule

SCHEDULE = Schedule(
    task_ids=("t0000a01", "t0000b02", "t0000c03"),
    adapter_ids=("capsule", "lexical"),
    lifecycles=("cold", "warm"),
    trials=(Trial(trialId="trial-1", seed=None),),
)
KEYS = planned_keys(SCHEDULE, frozenset({"capsule"}))


def test_the_plan_runs_each_adapters_scored_pass_before_its_replay() -> None:
    passes = [(k.adapter_id, k.pass_) for k in KEYS]
    assert passes == sorted(passes, key=lambda p: (p[0], p[1] != "scored"))
    assert len(KEYS) == 3 * 2 * 2 + 3 * 2


@pytest.mark.parametrize("count", [1, 2, 3, 5, 30])
def test_the_shards_partition_the_plan(count: int) -> None:
    shards = [shard_keys(KEYS, Shard(index, count)) for index in range(1, count + 1)]
    assert sum(len(s) for s in shards) == len(KEYS)
    assert frozenset().union(*shards) == frozenset(KEYS)


def test_a_replay_pair_lands_in_the_shard_of_its_scored_pair() -> None:
    for index in (1, 2, 3):
        mine = shard_keys(KEYS, Shard(index, 3))
        for key in mine:
            twin = PairKey("scored", key.adapter_id, key.lifecycle, key.trial_id, key.task_id)
            assert twin in mine


def test_a_shard_is_the_same_slice_every_time() -> None:
    assert shard_keys(KEYS, Shard(2, 4)) == shard_keys(
        planned_keys(SCHEDULE, frozenset({"capsule"})), Shard(2, 4)
    )


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "a/b", "1", "1/2/3", " 1/2"])
def test_a_malformed_shard_is_refused(text: str) -> None:
    with pytest.raises(ContractError) as caught:
        Shard.parse(text)
    assert caught.value.code == "invalid_shard"


def test_a_shard_is_written_k_slash_n() -> None:
    assert str(Shard.parse("3/7")) == "3/7"


def test_units_hold_one_adapter_each_and_cover_every_selected_pair() -> None:
    units = plan_units(KEYS, workers=2)
    assert sorted(k for unit in units for k in unit) == sorted(KEYS)
    assert all(len({k.adapter_id for k in unit}) == 1 for unit in units)
    assert len(units) == 4  # two per adapter


def test_a_unit_keeps_a_replay_pair_with_its_scored_twin() -> None:
    for unit in plan_units(KEYS, workers=3):
        scored = {(k.lifecycle, k.task_id) for k in unit if k.pass_ == "scored"}
        assert all((k.lifecycle, k.task_id) in scored for k in unit if k.pass_ == "replay")


def test_a_replay_pair_whose_twin_is_done_still_gets_a_unit() -> None:
    replay_only = frozenset(k for k in KEYS if k.pass_ == "replay")
    units = plan_units(replay_only, workers=4)
    assert sorted(k for unit in units for k in unit) == sorted(replay_only)


def test_more_workers_than_pairs_give_one_unit_per_pair() -> None:
    lexical = [k for k in KEYS if k.adapter_id == "lexical"]
    assert len(plan_units(lexical, workers=100)) == len(lexical)
