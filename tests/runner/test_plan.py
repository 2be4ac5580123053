"""The pair plan and its shards: a deterministic partition of a lane's pairs."""

from __future__ import annotations

import pytest

from agentic.contract.errors import ContractError
from agentic.contract.report import Trial
from agentic.runner.plan import PairKey, Shard, planned_keys, shard_keys
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
