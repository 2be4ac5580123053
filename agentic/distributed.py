"""The Ray executor (``agentic run --executor ray``): a lane's pairs as Ray tasks on an existing
Ray cluster, with the report the local executor writes, byte for byte.

The driver (the ``agentic run`` process) plans the lane as usual, then splits the pairs to run
into units: per adapter, round robin over its pairs into as many units as the cluster has CPUs
(a capsule pair's replay twin goes with it). Each unit is one Ray task, spread over the nodes.
The fixture's files go to the object store once; a task writes them under its node's temp
folder (once per fixture fingerprint), loads and verifies them like any fixture, rebuilds the
catalog (the same ``--backend`` and ``--agent-config`` paths, which every node must see) and the
lane, and refuses to run unless its run identity (``lane.run_identity``: kit, runtime,
fixture, agent, adapter config fingerprints, schedule) is the driver's. It then prepares its
adapter itself (or copies it from a shared ``--index-cache``), runs its pairs with the local
code, and returns their receipts; the driver checks that every unit built the same index and
journals each receipt as its unit comes back.

Canonical receipts do not depend on the unit a pair ran in: a unit's warm cohort attaches its
own session with one discarded readiness probe on the schedule's first task, like a shard's.

A unit whose worker process crashed or whose node was lost is a harness failure: with
``--retries K`` it is submitted again up to K times, and every receipt of the unit records each
retry in its observations. Without retries left, its pairs are excluded as ``ray_worker_lost``.
An exception inside a task (a refused identity, a bug) is never retried: it ends the run.
"""

from __future__ import annotations

import importlib
import logging
import os
import shutil
import socket
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from agentic.contract.canonical import fingerprint
from agentic.contract.errors import ContractError
from agentic.contract.receipt import PairIdentity, Timing, TrajectoryReceipt
from agentic.contract.report import Preparation
from agentic.contract.schemas import load_document
from agentic.runner.catalog_source import CatalogSource
from agentic.runner.plan import PairKey
from agentic.runner.receipts import harness_failure_receipt, unknown_fingerprints, with_retries
from agentic.runner.run import (
    Recorder,
    RunConfig,
    RunResult,
    combine_runs,
    preparation_record,
    run_adapters,
    runtime_fingerprint,
)

if TYPE_CHECKING:
    from agentic.lane import LanePlan

RAY_MISSING = "the Ray executor needs the 'distributed' extra: pip install -e '.[distributed]'"
_FIXTURES_DIR = "agentic-ray-fixtures"
_PROBE_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class RayOptions:
    address: str | None = None  # None: RAY_ADDRESS, else a cluster started on this machine
    retries: int = 0


@dataclass(frozen=True)
class WorkerSpec:
    """What every task needs to rebuild the lane: plain data, pickled once per task."""

    request: dict[str, Any]  # the LaneRequest fields a worker sets as they are
    catalog_source: CatalogSource | None
    cues: bytes | None
    fixture_fingerprint: str
    identity: dict[str, Any]


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
    rename, so concurrent tasks never see half a fixture. It is verified on every load."""
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


def _result_json(result: RunResult) -> dict[str, Any]:
    return {
        "preparations": [p.to_json() for p in result.preparations],
        "receipts": [r.to_json() for r in result.receipts],
        "replayReceipts": [r.to_json() for r in result.replay_receipts],
    }


def run_unit(
    spec: WorkerSpec, files: Mapping[str, bytes], keys: Sequence[PairKey]
) -> dict[str, Any]:
    """One Ray task: rebuild the lane, check its identity, run ``keys``, return the records."""
    from agentic.lane import LaneRequest, plan_lane

    root = _materialize(files, spec.fixture_fingerprint)
    with tempfile.TemporaryDirectory(prefix="agentic-ray-unit-") as scratch:
        cues_path = None
        if spec.cues is not None:
            cues_path = Path(scratch) / "cues.json"
            cues_path.write_bytes(spec.cues)
        catalog = spec.catalog_source.load()[0] if spec.catalog_source is not None else None
        request = LaneRequest(
            fixture_dir=root, cues_path=cues_path, catalog=catalog, **spec.request
        )
        plan = plan_lane(request)
        if plan.identity != spec.identity:
            differs = next(
                name
                for name in sorted(set(plan.identity) | set(spec.identity))
                if plan.identity.get(name) != spec.identity.get(name)
            )
            raise ContractError(
                "worker_mismatch",
                f"a Ray worker rebuilt another run than the driver's ({differs} differs): "
                "install the same kit and the same backend and agent files on every node",
            )
        result = run_adapters(replace(plan.config, selected=frozenset(keys)))
    node = importlib.import_module("ray").get_runtime_context().get_node_id()
    return {**_result_json(result), "node": node}


# -- the driver side ------------------------------------------------------------------------------


def plan_units(keys: Iterable[PairKey], workers: int) -> list[tuple[PairKey, ...]]:
    """The pairs as Ray tasks: per adapter, round robin into at most ``workers`` units, each
    replay pair with its scored twin when both are to run."""
    by_adapter: dict[str, list[PairKey]] = {}
    for key in sorted(keys):
        by_adapter.setdefault(key.adapter_id, []).append(key)
    units: list[tuple[PairKey, ...]] = []
    for adapter_keys in by_adapter.values():
        present = set(adapter_keys)
        leaders = [k for k in adapter_keys if k.pass_ == "scored" or _twin(k) not in present]
        count = min(workers, len(leaders))
        slots: list[list[PairKey]] = [[] for _ in range(count)]
        slot_of = {key: position % count for position, key in enumerate(leaders)}
        for key in adapter_keys:
            slots[slot_of.get(key, slot_of.get(_twin(key), 0))].append(key)
        units.extend(tuple(slot) for slot in slots if slot)
    return units


def _twin(key: PairKey) -> PairKey:
    return PairKey("scored", key.adapter_id, key.lifecycle, key.trial_id, key.task_id)


def _import_ray() -> ModuleType:
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ContractError("ray_unavailable", RAY_MISSING) from None


def _reachable(where: str) -> str | None:
    """Why ``host:port`` takes no connection (None: it does, or it is not of that shape). Ray's
    own connect retries an address nobody listens on for minutes."""
    host, sep, port = where.rpartition(":")
    if not sep or not port.isdigit() or "/" in host:
        return None
    try:
        socket.create_connection((host, int(port)), timeout=_PROBE_TIMEOUT_S).close()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def _connect(ray: ModuleType, address: str | None) -> None:
    where = address or os.environ.get("RAY_ADDRESS") or "auto"
    refused = _reachable(where)
    if refused is not None:
        raise ContractError(
            "ray_unavailable",
            f"no Ray cluster at {where!r} ({refused}); start one with 'ray start --head' or "
            "pass the address of a running one",
        )
    try:
        ray.init(address=where, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ContractError(
            "ray_unavailable",
            f"no Ray cluster at {where!r} ({' '.join(str(exc).split())[:200]}); start one with "
            "'ray start --head' or pass --ray-address",
        ) from None


def _system_failures(ray: ModuleType) -> tuple[type[BaseException], ...]:
    """What a lost worker or node raises on ``ray.get``: harness failures, retried."""
    exceptions = ray.exceptions
    names = (
        "WorkerCrashedError",
        "NodeDiedError",
        "LocalRayletDiedError",
        "ObjectLostError",
        "OwnerDiedError",
        "RaySystemError",
    )
    return tuple(getattr(exceptions, name) for name in names if hasattr(exceptions, name))


def _worker_spec(plan: LanePlan) -> WorkerSpec:
    request = plan.request
    fields = {
        "adapters": plan.schedule.adapter_ids,
        "tasks": plan.schedule.task_ids,
        "lifecycles": plan.schedule.lifecycles,
        "agent": request.agent,
        "timeout_s": request.timeout_s,
        "promote": None,
        "replay": request.replay,
        "index_cache": request.index_cache.absolute() if request.index_cache else None,
    }
    source = request.catalog_source.absolute() if request.catalog_source is not None else None
    cues = request.cues_path.read_bytes() if request.cues_path is not None else None
    return WorkerSpec(fields, source, cues, plan.fixture.snapshot.fingerprint, plan.identity)


def _parsed(payload: dict[str, Any]) -> RunResult:
    def receipts(name: str) -> list[TrajectoryReceipt]:
        return [
            load_document("trajectory-receipt", item, source=f"a Ray task's {name}")
            for item in payload[name]
        ]

    preparations = [Preparation.model_validate(p) for p in payload["preparations"]]
    return RunResult(
        tuple(preparations), tuple(receipts("receipts")), (), tuple(receipts("replayReceipts"))
    )


def _lost(
    config: RunConfig, unit: Sequence[PairKey], message: str, failures: list[str]
) -> RunResult:
    """The unit's pairs excluded as lost, after its last retry."""
    seeds = {t.trialId: t.seed for t in config.schedule.trials}
    scored: list[TrajectoryReceipt] = []
    again: list[TrajectoryReceipt] = []
    for key in unit:
        adapter = config.adapter_factory(key.adapter_id)
        pair = PairIdentity(
            taskId=key.task_id,
            adapterId=key.adapter_id,
            trialId=key.trial_id,
            seed=seeds[key.trial_id],
            lifecycle=key.lifecycle,
            agentId=config.agent_id,
        )
        receipt = harness_failure_receipt(
            pair,
            code="ray_worker_lost",
            message=message,
            capabilities=adapter.capabilities,
            fingerprints=unknown_fingerprints(
                config.fixture.snapshot.fingerprint,
                runtime_fingerprint(),
                fingerprint(adapter.config),
                None,
            ),
            preparation=Timing.unavailable("pair not run: ray_worker_lost"),
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
                    f"two Ray workers built different {record.adapterId} indexes "
                    f"({earlier.indexFingerprint[:12]}, {record.indexFingerprint[:12]})",
                )
    corpus = config.fixture.snapshot.fingerprint
    for adapter_id in config.schedule.adapter_ids:
        if adapter_id not in chosen:
            chosen[adapter_id] = preparation_record(
                adapter_id, corpus, None, f"every Ray task of {adapter_id} was lost"
            )
    return list(chosen.values())


def run_on_ray(
    plan: LanePlan, selected: frozenset[PairKey], recorder: Recorder, options: RayOptions
) -> RunResult:
    """The selected pairs as Ray tasks; each unit's records are journaled as it returns."""
    ray = _import_ray()
    if not selected:
        return combine_runs([], [], [])
    _connect(ray, options.address)
    try:
        return _run_units(ray, plan, selected, recorder, options)
    finally:
        ray.shutdown()


def _run_units(
    ray: ModuleType,
    plan: LanePlan,
    selected: frozenset[PairKey],
    recorder: Recorder,
    options: RayOptions,
) -> RunResult:
    config = plan.config
    workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    units = plan_units(selected, workers)
    files = ray.put(fixture_files(plan.fixture.root))
    spec = ray.put(_worker_spec(plan))
    task = ray.remote(num_cpus=1, max_retries=0)(run_unit).options(scheduling_strategy="SPREAD")
    lost = _system_failures(ray)
    pending: dict[Any, tuple[tuple[PairKey, ...], list[str]]] = {
        task.remote(spec, files, list(unit)): (unit, []) for unit in units
    }
    config.progress.begin(len(selected))
    results: list[RunResult] = []
    nodes: set[str] = set()
    retried = 0
    try:
        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            unit, failures = pending.pop(ref)
            try:
                payload = ray.get(ref)
                nodes.add(str(payload["node"]))
                result = _parsed(payload)
            except lost as exc:
                failure = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
                if len(failures) < options.retries:
                    pending[task.remote(spec, files, list(unit))] = (unit, [*failures, failure])
                    retried += 1
                    continue
                result = _lost(config, unit, failure, failures)
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                if isinstance(cause, ContractError):
                    raise ContractError(cause.code, cause.message) from None
                raise ContractError(
                    "unexpected_harness_error", f"a Ray task failed: {cause!r}"
                ) from None
            result = _with_notes(result, failures)
            _record(recorder, result)
            results.append(result)
            config.progress.advance(len(unit))
    finally:
        config.progress.close()
        for ref in pending:
            ray.cancel(ref, force=True)
    config.progress.note(f"ray: {len(units)} units on {len(nodes)} nodes, {retried} retried")
    return combine_runs(
        _agreed_preparations(config, results),
        [r for result in results for r in result.receipts],
        [r for result in results for r in result.replay_receipts],
    )


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
