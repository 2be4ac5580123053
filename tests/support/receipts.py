"""Pair identities for tests that build receipts directly."""

from __future__ import annotations

from agentic.contract.receipt import PairIdentity


def identity(
    task_id: str, adapter_id: str, trial_id: str, seed: int | None, agent_id: str
) -> PairIdentity:
    """A cold pair's identity."""
    return PairIdentity(
        taskId=task_id,
        adapterId=adapter_id,
        trialId=trial_id,
        seed=seed,
        lifecycle="cold",
        agentId=agent_id,
    )
