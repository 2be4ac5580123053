"""The Ray executor (``agentic run --executor ray``): a lane's pairs as tasks on a Ray cluster.
The cluster must exist already. The report is the one the local executor writes, byte for byte.

The pairs are split into units as ``units.py`` describes, as many per adapter as the cluster
has CPUs, and each unit is one Ray task spread over the nodes. The fixture's files go to the
object store once; a task writes them under its node's temp folder (once per fixture
fingerprint) and loads and verifies them like any fixture. Every node needs the kit installed
with the 'distributed' extra, and sees the same ``--backend``, ``--agent-config`` and
``--index-cache`` paths (a shared filesystem or one image); a worker that rebuilds another run
identity than the driver's is refused. A task whose worker process crashed or whose node was
lost raises one of Ray's system errors: a harness failure, retried (``--retries``).
"""

from __future__ import annotations

import importlib
import logging
import os
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject
from agentic.lane.executors.units import (
    Unit,
    WorkerLostError,
    WorkerSpec,
    plan_units,
    run_units,
    worker_spec,
)
from agentic.lane.run_config import Recorder
from agentic.lane.run_result import RunResult, combine_parts
from agentic.runner.pairs import PairKey

if TYPE_CHECKING:
    from agentic.lane.plan import LanePlan

RAY_MISSING = "the Ray executor needs the 'distributed' extra: pip install -e '.[distributed]'"
_PROBE_TIMEOUT_S = 5.0
LOCAL_RUNTIME = "no Ray address given: starting a local Ray runtime"


@dataclass(frozen=True)
class RayOptions:
    address: str | None = None  # None: RAY_ADDRESS, else a cluster started on this machine
    retries: int = 0


def ray_unit(spec: WorkerSpec, files: dict[str, bytes], keys: Sequence[PairKey]) -> JsonObject:
    """One Ray task: ``units.run_unit``, and the node it ran on."""
    from agentic.lane.executors.units import run_unit

    node = importlib.import_module("ray").get_runtime_context().get_node_id()
    return {**run_unit(spec, files, keys), "node": node}


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
    given = address or os.environ.get("RAY_ADDRESS")
    where = given or "auto"
    refused = _reachable(where)
    if refused is not None:
        raise ContractError(
            "ray_unavailable",
            f"no Ray cluster at {where!r} ({refused}); start one with 'ray start --head' or "
            "pass the address of a running one",
        )
    try:
        _init(ray, where, start_local=given is None)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ContractError(
            "ray_unavailable",
            f"no Ray cluster at {where!r} ({' '.join(str(exc).split())[:200]}); start one with "
            "'ray start --head' or pass --ray-address",
        ) from None


def _init(ray: ModuleType, where: str, *, start_local: bool) -> None:
    """Join the cluster at ``where``. With no address given and none running here ("auto" finds
    none), Ray's own convention: a local runtime, stopped by ``ray.shutdown`` after the run."""
    try:
        ray.init(address=where, log_to_driver=False, logging_level=logging.WARNING)
    except ConnectionError:
        if not start_local:
            raise
        print(f"agentic: {LOCAL_RUNTIME}", file=sys.stderr, flush=True)  # even with --quiet
        ray.init(address="local", log_to_driver=False, logging_level=logging.WARNING)


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


class _RayRunner:
    """Units as Ray tasks, spread over the nodes; a lost worker or node is ``WorkerLostError``."""

    def __init__(self, ray: ModuleType, spec: WorkerSpec, files: dict[str, bytes]) -> None:
        self._ray = ray
        self._spec = ray.put(spec)
        self._files = ray.put(files)
        self._task = ray.remote(num_cpus=1, max_retries=0)(ray_unit).options(
            scheduling_strategy="SPREAD"
        )
        self._lost = _system_failures(ray)
        self.nodes: set[str] = set()

    def submit(self, unit: Unit) -> object:
        return self._task.remote(self._spec, self._files, list(unit))

    def wait(self, handles: Sequence[object]) -> object:
        (done,), _ = self._ray.wait(list(handles), num_returns=1)
        return done

    def collect(self, handle: object) -> JsonObject:
        ray = self._ray
        try:
            payload: JsonObject = ray.get(handle)
        except self._lost as exc:
            raise WorkerLostError(
                f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
            ) from None
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, ContractError):
                raise ContractError(cause.code, cause.message) from None
            raise ContractError(
                "unexpected_harness_error", f"a Ray task failed: {cause!r}"
            ) from None
        self.nodes.add(str(payload.pop("node")))
        return payload

    def cancel(self, handles: Sequence[object]) -> None:
        for handle in handles:
            self._ray.cancel(handle, force=True)


def run_on_ray(
    plan: LanePlan, selected: frozenset[PairKey], recorder: Recorder, options: RayOptions
) -> RunResult:
    """The selected pairs as Ray tasks; each unit's records are journaled as it returns."""
    ray = _import_ray()
    if not selected:
        return combine_parts([], [], [])
    _connect(ray, options.address)
    try:
        from agentic.lane.executors.units import fixture_files

        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        units = plan_units(selected, workers)
        spec = worker_spec(plan, shared_filesystem=False)
        runner = _RayRunner(ray, spec, fixture_files(plan.fixture.root))
        result, drive = run_units(plan, units, runner, recorder, options.retries)
    finally:
        ray.shutdown()
    plan.config.progress.note(
        f"ray: {drive.units} units on {len(runner.nodes)} nodes, {drive.retried} retried"
    )
    return result
