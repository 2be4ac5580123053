"""Pairs run in worker processes: the part the Ray executor (``ray_tasks.py``) and the local
process pool (``processes.py``) share.

The driver splits the pairs to run into units (per adapter, round robin, a capsule pair's
replay twin with it) and hands each unit to a worker with a ``WorkerSpec``: the lane request a
worker runs, as typed plain data, from which the worker rebuilds the lane (``lane.plan_lane``)
and refuses to run unless its run identity is the driver's. The worker prepares the unit's
adapter itself (or copies it from a shared ``--index-cache``), runs the unit's pairs with the
local executor and returns their records as JSON; the driver validates every receipt against
its schema, checks that all units built the same index of each adapter, and journals each
unit's receipts as it comes back.

A unit whose worker died (a crashed process, a lost node) is a harness failure: it is handed
out again up to ``--retries`` times, each retry recorded in the observations of every receipt of
the unit; with no retry left its pairs are excluded as ``worker_lost``. An exception raised in
a worker (a refused identity, a bug) is never retried.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from agentic.contract.errors import AgenticError, ContractError
from agentic.contract.json_access import as_array
from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import Preparation
from agentic.contract.schemas import load_document
from agentic.contract.strict_json import JsonObject, JsonValue
from agentic.lane.executors.local import run_adapters
from agentic.lane.harness_records import never_ran, preparation_record
from agentic.lane.request import Execution, LaneRequest
from agentic.lane.run_config import Recorder, RunConfig
from agentic.lane.run_result import RunResult, combine_parts
from agentic.runner.pairs import PairKey, RunIdentity, first_difference, scored_twin
from agentic.runner.receipts import with_retries

if TYPE_CHECKING:
    from agentic.lane.plan import LanePlan

_FIXTURES_DIR = "agentic-worker-fixtures"
Unit = tuple[PairKey, ...]
Handle = TypeVar("Handle")


@dataclass(frozen=True)
class WorkerSpec:
    """What every worker needs to rebuild the lane: plain data, pickled to each unit.

    ``request`` is the lane a worker runs: the driver's schedule, settings and catalog source,
    never a gate or an output. Its fixture folder is the driver's: a worker runs on that folder
    when it shares the driver's filesystem (a local pool), else on the files that come with each
    unit (``fixture_files``), written on the worker's node. A cue table comes as its bytes
    (``cues``), which each worker writes to a file of its own."""

    request: LaneRequest
    cues: bytes | None
    fixture_fingerprint: str
    identity: RunIdentity
    shared_filesystem: bool


class WorkerLostError(AgenticError):
    """A unit's worker died before it returned: a harness failure, retried."""


# -- the worker side ------------------------------------------------------------------------------


def fixture_files(root: Path) -> dict[str, bytes]:
    """Every regular file of a fixture folder by its relative path."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def _materialize(files: Mapping[str, bytes], fixture_fingerprint: str) -> Path:
    """The fixture's folder on this node: written once per fingerprint by staging and one
    rename, so concurrent workers never see half a fixture. It is verified on every load."""
    home = Path(tempfile.gettempdir()) / _FIXTURES_DIR
    target = home / fixture_fingerprint
    if target.is_dir():
        return target
    home.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".stage-", dir=home))
    try:
        for name, data in files.items():
            path = stage / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        os.rename(stage, target)
    except OSError:
        if not target.is_dir():
            raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return target


def run_unit(
    spec: WorkerSpec, files: Mapping[str, bytes] | None, keys: Sequence[PairKey]
) -> JsonObject:
    """In a worker: rebuild the lane, check its identity, run ``keys``, return the records."""
    from agentic.lane.plan import plan_lane

    root = spec.request.fixture_dir
    if not spec.shared_filesystem:
        root = _materialize(files or {}, spec.fixture_fingerprint)
    with tempfile.TemporaryDirectory(prefix="agentic-unit-") as scratch:
        cues_path = None
        if spec.cues is not None:
            cues_path = Path(scratch) / "cues.json"
            cues_path.write_bytes(spec.cues)
        plan = plan_lane(replace(spec.request, fixture_dir=root, cues_path=cues_path))
        if plan.identity != spec.identity:
            raise ContractError(
                "worker_mismatch",
                f"a worker rebuilt another run than the driver's "
                f"({first_difference(plan.identity.to_json(), spec.identity.to_json())} differs): "
                "install the same kit and the same backend and agent files on every node",
            )
        result = run_adapters(replace(plan.config, selected=frozenset(keys)))
    return {
        "preparations": [p.to_json() for p in result.preparations],
        "receipts": [r.to_json() for r in result.receipts],
        "replayReceipts": [r.to_json() for r in result.replay_receipts],
    }


# -- the driver side ------------------------------------------------------------------------------


def plan_units(keys: Iterable[PairKey], workers: int) -> list[Unit]:
    """The pairs as units: per adapter, round robin into at most ``workers`` units, each replay
    pair with its scored twin when both are to run."""
    by_adapter: dict[str, list[PairKey]] = {}
    for key in sorted(keys):
        by_adapter.setdefault(key.adapter_id, []).append(key)
    units: list[Unit] = []
    for adapter_keys in by_adapter.values():
        present = set(adapter_keys)
        leaders = [k for k in adapter_keys if k.pass_ == "scored" or scored_twin(k) not in present]
        count = min(workers, len(leaders))
        slots: list[list[PairKey]] = [[] for _ in range(count)]
        slot_of = {key: position % count for position, key in enumerate(leaders)}
        for key in adapter_keys:
            slots[slot_of.get(key, slot_of.get(scored_twin(key), 0))].append(key)
        units.extend(tuple(slot) for slot in slots if slot)
    return units


def worker_spec(plan: LanePlan, *, shared_filesystem: bool) -> WorkerSpec:
    request = plan.request
    worker_request = LaneRequest(
        fixture_dir=plan.fixture.root.absolute(),
        adapters=plan.schedule.adapter_ids,
        tasks=plan.schedule.task_ids,
        lifecycles=plan.schedule.lifecycles,
        agent=request.agent,
        timeout_s=request.timeout_s,
        prepare_timeout_s=request.prepare_timeout_s,
        promote=None,
        replay=request.replay,
        index_cache=request.index_cache.absolute() if request.index_cache else None,
        # A pair whose setup failed is retried on the worker as in one process.
        execution=Execution(retries=request.execution.retries),
        catalog_source=request.catalog_source.absolute(),
    )
    cues = request.cues_path.read_bytes() if request.cues_path is not None else None
    return WorkerSpec(
        worker_request,
        cues,
        plan.fixture.snapshot.fingerprint,
        plan.identity,
        shared_filesystem,
    )


class UnitRunner(Protocol, Generic[Handle]):
    """Where units run: hand one out, wait for one, collect one."""

    def submit(self, unit: Unit) -> Handle: ...

    def wait(self, handles: Sequence[Handle]) -> Handle:
        """A finished handle among ``handles``."""
        ...

    def collect(self, handle: Handle) -> JsonObject:
        """The unit's records; WorkerLostError when its worker died; ContractError otherwise."""
        ...

    def cancel(self, handles: Sequence[Handle]) -> None: ...


@dataclass(frozen=True)
class Drive:
    units: int
    retried: int


def run_units(
    plan: LanePlan,
    units: Sequence[Unit],
    runner: UnitRunner[Handle],
    recorder: Recorder,
    retries: int,
) -> tuple[RunResult, Drive]:
    """Every unit through ``runner``; each unit's records journaled as it comes back."""
    config = plan.config
    pending: dict[Handle, tuple[Unit, list[str]]] = {
        runner.submit(unit): (unit, []) for unit in units
    }
    config.progress.begin(sum(len(unit) for unit in units))
    results: list[RunResult] = []
    retried = 0
    try:
        while pending:
            handle = runner.wait(list(pending))
            unit, failures = pending.pop(handle)
            try:
                result = _parsed(runner.collect(handle))
            except WorkerLostError as lost:
                if len(failures) < retries:
                    pending[runner.submit(unit)] = (unit, [*failures, str(lost)])
                    retried += 1
                    continue
                result = _lost(config, unit, str(lost), failures)
            result = _with_notes(result, failures)
            _record(recorder, result)
            results.append(result)
            config.progress.advance(len(unit))
    finally:
        config.progress.close()
        runner.cancel(list(pending))
    merged = combine_parts(
        _agreed_preparations(config, results),
        [r for result in results for r in result.receipts],
        [r for result in results for r in result.replay_receipts],
    )
    return merged, Drive(len(units), retried)


def _parsed(payload: Mapping[str, JsonValue]) -> RunResult:
    def receipts(name: str) -> list[TrajectoryReceipt]:
        return [
            load_document("trajectory-receipt", item, source=f"a worker's {name}")
            for item in as_array(payload[name], name)
        ]

    preparations = [
        Preparation.model_validate(p) for p in as_array(payload["preparations"], "preparations")
    ]
    scored, again = receipts("receipts"), receipts("replayReceipts")
    return RunResult(tuple(preparations), tuple(scored), (), tuple(again))


def _lost(config: RunConfig, unit: Unit, message: str, failures: list[str]) -> RunResult:
    """The unit's pairs excluded as lost, after its last retry."""
    scored: list[TrajectoryReceipt] = []
    again: list[TrajectoryReceipt] = []
    for key in unit:
        adapter = config.adapter_factory(key.adapter_id)
        receipt = never_ran(
            config,
            adapter,
            key,
            code="worker_lost",
            message=message,
            preparation="pair not run: worker_lost",
        )
        (scored if key.pass_ == "scored" else again).append(with_retries(receipt, failures))
    return RunResult((), tuple(scored), (), tuple(again))


def _agreed_preparations(config: RunConfig, results: Iterable[RunResult]) -> list[Preparation]:
    chosen: dict[str, Preparation] = {}
    for result in results:
        for record in result.preparations:
            earlier = chosen.setdefault(record.adapterId, record)
            if earlier.indexFingerprint != record.indexFingerprint:
                raise ContractError(
                    "worker_mismatch",
                    f"two workers built different {record.adapterId} indexes "
                    f"({earlier.indexFingerprint[:12]}, {record.indexFingerprint[:12]})",
                )
    corpus = config.fixture.snapshot.fingerprint
    for adapter_id in config.schedule.adapter_ids:
        if adapter_id not in chosen:
            chosen[adapter_id] = preparation_record(
                adapter_id, corpus, None, f"every worker running {adapter_id} was lost"
            )
    return list(chosen.values())


def _with_notes(result: RunResult, failures: list[str]) -> RunResult:
    if not failures:
        return result
    return replace(
        result,
        receipts=tuple(with_retries(r, failures) for r in result.receipts),
        replay_receipts=tuple(with_retries(r, failures) for r in result.replay_receipts),
    )


def _record(recorder: Recorder, result: RunResult) -> None:
    for preparation in result.preparations:
        recorder.preparation(preparation)
    for receipt in result.receipts:
        recorder.receipt(PairKey.of("scored", receipt.canonical), receipt)
    for receipt in result.replay_receipts:
        recorder.receipt(PairKey.of("replay", receipt.canonical), receipt)
