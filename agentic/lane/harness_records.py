"""The records a run writes itself rather than from a pair it ran: an adapter's preparation
record, and the receipt of a pair that never ran (its adapter could not be prepared, or its
worker was lost)."""

from __future__ import annotations

from agentic.adapters.base import Adapter, PreparedIndex
from agentic.contract.canonical import ZERO_HASH, fingerprint
from agentic.contract.receipt import PairIdentity, Timing, TrajectoryReceipt
from agentic.contract.report import Preparation, PreparationObservations
from agentic.lane.run_config import RunConfig, runtime_fingerprint
from agentic.runner.pairs import PairKey
from agentic.runner.receipts import harness_failure_receipt, unknown_fingerprints


def preparation_record(
    adapter_id: str, corpus_fp: str, prepared: PreparedIndex | None, failure: str | None
) -> Preparation:
    if prepared is None:
        observations = PreparationObservations(
            preparationMs=None,
            preparationUnavailableReason=failure or "preparation failed",
            details={},
        )
        return Preparation(
            adapterId=adapter_id,
            corpusFingerprint=corpus_fp,
            indexFingerprint=ZERO_HASH,
            observations=observations,
        )
    observations = PreparationObservations(
        preparationMs=round(prepared.preparation_ms, 3),
        preparationUnavailableReason=None,
        details=dict(prepared.details),
    )
    return Preparation(
        adapterId=adapter_id,
        corpusFingerprint=prepared.corpus_fingerprint,
        indexFingerprint=prepared.index_fingerprint,
        observations=observations,
    )


def never_ran(
    config: RunConfig,
    adapter: Adapter,
    key: PairKey,
    *,
    code: str,
    message: str,
    preparation: str,
) -> TrajectoryReceipt:
    """The receipt of a pair that never ran: its adapter could not be prepared, or its worker
    was lost. ``preparation`` says why the preparation time is unavailable."""
    seeds = {trial.trialId: trial.seed for trial in config.schedule.trials}
    pair = PairIdentity(
        taskId=key.task_id,
        adapterId=key.adapter_id,
        trialId=key.trial_id,
        seed=seeds[key.trial_id],
        lifecycle=key.lifecycle,
        agentId=config.agent_id,
    )
    return harness_failure_receipt(
        pair,
        code=code,
        message=message,
        capabilities=adapter.capabilities,
        fingerprints=unknown_fingerprints(
            config.fixture.snapshot.fingerprint,
            runtime_fingerprint(),
            fingerprint(adapter.config),
            None,
        ),
        preparation=Timing.unavailable(preparation),
    )
