"""One run of a lane's adapters: prepare each adapter once, run its cohorts, replay the capsule.
It returns everything the report needs. Scoring happens afterwards, on the receipts alone.

A run works in a fresh ``agentic-run-*`` folder of the temporary directory, removed when it ends.
A run killed with SIGKILL never gets there, so the folder records its owner (``OWNER_FILE``:
pid, start time, boot and pid namespace) and every run first removes the folders whose owner
has ended (``sweep_orphaned_runs``). A folder without that marker, of another user, or whose
owner may still live (another pid namespace, say) is never touched.

(The performance benchmarks of the kit itself live in ``benchmarks/``, not here.)"""

from __future__ import annotations

import json
import os
import platform
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentic import __version__
from agentic.adapters.base import Adapter, PreparedIndex
from agentic.adapters.deadlines import PREPARE_TIMEOUT_S
from agentic.agents.base import Agent
from agentic.contract.canonical import ZERO_HASH, canonical_text, fingerprint, sha256_hex
from agentic.contract.receipt import CanonicalReceipt, PairIdentity, Timing, TrajectoryReceipt
from agentic.contract.report import (
    CapsuleReplay,
    Preparation,
    PreparationObservations,
    ReplayPayload,
    pair_identity,
)
from agentic.contract.task import AgentTask
from agentic.fixture.loader import Fixture
from agentic.processes import process_state
from agentic.runner.bounded import BoundedExecutor
from agentic.runner.index_cache import prepare_cached
from agentic.runner.lifecycles import CohortContext, cold_receipts, warm_receipts
from agentic.runner.pairs import PairKey, Pass
from agentic.runner.progress import QUIET, Progress
from agentic.runner.receipts import harness_failure_receipt, unknown_fingerprints
from agentic.runner.redaction import redact_secrets
from agentic.runner.schedule import Schedule

RUNNER_ID = "agentic-runner-v1"


def runtime_fingerprint() -> str:
    """Identity of the harness runtime. Machine details live in the report environment, so the
    same kit on two machines (or host and container) yields the same receipts."""
    major, minor, _ = platform.python_version_tuple()
    return fingerprint({"runner": RUNNER_ID, "package": __version__, "python": f"{major}.{minor}"})


class Recorder(Protocol):
    """Told of every receipt of a prepared adapter and every scored-pass preparation as soon as
    it exists (the resume journal is one)."""

    def preparation(self, record: Preparation) -> None: ...

    def receipt(self, key: PairKey, receipt: TrajectoryReceipt) -> None: ...


class _Forget:
    def preparation(self, record: Preparation) -> None:
        pass

    def receipt(self, key: PairKey, receipt: TrajectoryReceipt) -> None:
        pass


FORGET: Recorder = _Forget()


@dataclass(frozen=True)
class RunConfig:
    fixture: Fixture
    schedule: Schedule
    adapter_factory: Callable[[str], Adapter]
    agent_factory: Callable[[], Agent]
    agent_id: str
    timeout_s: float
    # Each adapter's preparation deadline; the calls keep ``timeout_s``. Never in a report: it
    # changes no result, only whether a slow preparation gets to finish.
    prepare_timeout_s: float = PREPARE_TIMEOUT_S
    # Adapters whose one-call bundles are replayed from a fresh preparation (catalog-declared).
    replay_adapters: frozenset[str] = frozenset()
    index_cache: Path | None = None
    # Shown on stderr as the run goes (a pair counter, cohort lines); never part of a report.
    progress: Progress = QUIET
    # Cold pairs at once (see lifecycles.CohortContext.jobs); receipts never depend on it.
    jobs: int = 1
    # The pairs to run (a shard's, or those a resumed run still misses); None: every pair.
    # An adapter with none of them is not even prepared.
    selected: frozenset[PairKey] | None = None
    recorder: Recorder = FORGET
    # Re-attempts of a pair whose setup failed (a harness failure: it never ran); the receipt
    # records each one in its observations (lifecycles.RETRIED_SETUP).
    retries: int = 0

    def wants(self, key: PairKey) -> bool:
        return self.selected is None or key in self.selected


@dataclass(frozen=True)
class RunResult:
    preparations: tuple[Preparation, ...]
    receipts: tuple[TrajectoryReceipt, ...]
    replays: tuple[CapsuleReplay, ...]
    # The replay pass of each replayed adapter, kept so that runs of parts of a lane (shards,
    # a resumed run) can be combined and their replays matched afterwards.
    replay_receipts: tuple[TrajectoryReceipt, ...] = ()


@dataclass(frozen=True)
class _AdapterPass:
    """One pass of one adapter (scored, or its replay): its preparation and its receipts."""

    preparation: Preparation
    receipts: list[TrajectoryReceipt]


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
    pair: PairIdentity,
    *,
    code: str,
    message: str,
    preparation: str,
) -> TrajectoryReceipt:
    """The receipt of a pair that never ran: its adapter could not be prepared, or its worker
    was lost. ``preparation`` says why the preparation time is unavailable."""
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


def _failed_preparation(
    config: RunConfig, adapter: Adapter, tasks: tuple[AgentTask, ...], message: str, pass_: Pass
) -> list[TrajectoryReceipt]:
    receipts = []
    for lifecycle in config.schedule.lifecycles:
        for trial in config.schedule.trials:
            for task in tasks:
                pair = PairIdentity(
                    taskId=task.taskId,
                    adapterId=adapter.adapter_id,
                    trialId=trial.trialId,
                    seed=trial.seed,
                    lifecycle=lifecycle,
                    agentId=config.agent_id,
                )
                if not config.wants(PairKey.of(pass_, pair)):
                    continue
                receipts.append(
                    never_ran(
                        config,
                        adapter,
                        pair,
                        code="adapter_preparation_failed",
                        message=message,
                        preparation="preparation failed",
                    )
                )
    return receipts


def _prepare(config: RunConfig, adapter: Adapter, root: Path, *, fresh: bool) -> PreparedIndex:
    snapshot = config.fixture.snapshot
    if config.index_cache is None or fresh:
        return adapter.prepare(snapshot, root, timeout_s=config.prepare_timeout_s)
    return prepare_cached(
        adapter, snapshot, root, config.index_cache, timeout_s=config.prepare_timeout_s
    ).prepared


def _runs_any(config: RunConfig, adapter_id: str, pass_: Pass) -> bool:
    """Whether the adapter's pass has a selected pair (an adapter with none is not prepared)."""
    if config.selected is None:
        return True
    return any(k.pass_ == pass_ and k.adapter_id == adapter_id for k in config.selected)


def _run_adapter(
    config: RunConfig,
    adapter_id: str,
    work: Path,
    executor: BoundedExecutor,
    *,
    pass_: Pass = "scored",
) -> _AdapterPass:
    fresh = pass_ == "replay"
    snapshot = config.fixture.snapshot
    tasks = tuple(config.fixture.task(t) for t in config.schedule.task_ids)
    adapter = config.adapter_factory(adapter_id)
    root = Path(tempfile.mkdtemp(prefix=f"{adapter_id}-", dir=work))
    config.progress.note(f"prepare {adapter_id}")
    started = time.perf_counter()
    try:
        prepared = _prepare(config, adapter, root, fresh=fresh)
        if prepared.corpus_fingerprint != snapshot.fingerprint:
            raise ValueError("corpus_fingerprint_mismatch: index bound to another corpus")
    except Exception as exc:
        # Often a product's stderr: no credentials or names in the report, but the paths stay
        # (this reason is also the lane's one line on stderr, for the person fixing the setup).
        message = redact_secrets(f"{type(exc).__name__}: {exc}")
        failed = _failed_preparation(config, adapter, tasks, message, pass_)
        config.progress.advance(len(failed))
        return _AdapterPass(
            preparation_record(adapter_id, snapshot.fingerprint, None, message), failed
        )
    elapsed = (time.perf_counter() - started) * 1000
    preparation = Timing.measured(prepared.preparation_ms or elapsed)
    ctx = CohortContext(
        adapter=adapter,
        prepared=prepared,
        agent_factory=config.agent_factory,
        agent_id=config.agent_id,
        tasks=tasks,
        trials=config.schedule.trials,
        corpus_fingerprint=snapshot.fingerprint,
        runtime_fingerprint=runtime_fingerprint(),
        timeout_s=config.timeout_s,
        preparation=preparation,
        executor=executor,
        jobs=config.jobs,
        keep=lambda pair: config.wants(PairKey.of(pass_, pair)),
        retries=config.retries,
    )
    record = preparation_record(adapter_id, snapshot.fingerprint, prepared, None)
    if pass_ == "scored":
        config.recorder.preparation(record)
    receipts: list[TrajectoryReceipt] = []
    for lifecycle in config.schedule.lifecycles:
        if not any(ctx.keep(pair) for pair, _ in ctx.pairs(lifecycle)):
            continue
        config.progress.cohort(f"{adapter_id} {lifecycle} cohort")
        cohort = cold_receipts(ctx) if lifecycle == "cold" else warm_receipts(ctx)
        with closing(cohort):
            for receipt in cohort:
                receipts.append(receipt)
                config.recorder.receipt(PairKey.of(pass_, receipt.canonical), receipt)
                config.progress.advance()
        config.progress.cohort_done()
    return _AdapterPass(record, receipts)


def receipt_sort_key(receipt: TrajectoryReceipt) -> tuple[str, str, str, str, str, str]:
    c = receipt.canonical
    return (c.adapterId, c.taskId, c.trialId, c.lifecycle, str(c.seed), c.agentId)


def single_bundle_payload(receipt: CanonicalReceipt) -> str | None:
    """The content of the one delivered evidence_bundle, or None if not exactly one."""
    bundles = [
        c.result.content
        for c in receipt.calls
        if c.deliveredToAgent and c.result.resultRole == "evidence_bundle"
    ]
    return bundles[0] if len(bundles) == 1 else None


def _replay_payload(content: str) -> ReplayPayload:
    return ReplayPayload(canonicalJson=content, sha256=sha256_hex(content.encode("utf-8")))


def bundle_replays(
    first: list[TrajectoryReceipt], second: list[TrajectoryReceipt]
) -> tuple[CapsuleReplay, ...]:
    """Match receipts of the two passes of one bundle adapter (``first`` scored, ``second`` its
    replay) by identity; record both payloads."""
    second_by_key = {receipt_sort_key(r): r.canonical for r in second}
    replays = []
    for receipt in sorted(first, key=receipt_sort_key):
        c = receipt.canonical
        other = second_by_key.get(receipt_sort_key(receipt))
        payload_a = single_bundle_payload(c)
        if other is None or payload_a is None or len(payload_a) < 2:
            continue
        if canonical_text(other.fingerprints.to_json()) != canonical_text(c.fingerprints.to_json()):
            continue
        payload_b = single_bundle_payload(other)
        if payload_b is None or len(payload_b) < 2:
            continue
        replays.append(
            CapsuleReplay(
                # The catalog lets only the capsule declare replays (v1.0 fixes the id).
                **(pair_identity(c) | {"adapterId": "capsule"}),
                first=_replay_payload(payload_a),
                second=_replay_payload(payload_b),
            )
        )
    return tuple(replays)


def _replay_sort_key(replay: CapsuleReplay) -> tuple[str, str, str, str]:
    return (replay.adapterId, replay.taskId, replay.trialId, replay.lifecycle)


def planned_pairs(config: RunConfig) -> int:
    """Every pair this run will attempt: the schedule's, plus each replayed adapter's again."""
    if config.selected is not None:
        return len(config.selected)
    schedule = config.schedule
    replayed = sum(1 for a in schedule.adapter_ids if a in config.replay_adapters)
    per_adapter = schedule.attempted_pairs // len(schedule.adapter_ids)
    return schedule.attempted_pairs + replayed * per_adapter


def combine_parts(
    preparations: Iterable[Preparation],
    receipts: Iterable[TrajectoryReceipt],
    replay_receipts: Iterable[TrajectoryReceipt],
) -> RunResult:
    """One run from the records of its parts (shards, worker units, a resumed journal, or the
    passes of one process), in identity order; bundle replays are matched across the parts.
    ``preparations`` holds one record per adapter."""
    scored = sorted(receipts, key=receipt_sort_key)
    again = sorted(replay_receipts, key=receipt_sort_key)
    replays = bundle_replays(scored, again)
    return RunResult(
        preparations=tuple(sorted(preparations, key=lambda p: p.adapterId)),
        receipts=tuple(scored),
        replays=tuple(sorted(replays, key=_replay_sort_key)),
        replay_receipts=tuple(again),
    )


WORK_PREFIX = "agentic-run-"
OWNER_FILE = ".agentic-run-owner.json"
_MAX_OWNER_BYTES = 1024
_OWNER_KEYS = frozenset({"bootId", "pidNamespace", "pid", "startTicks"})


@dataclass(frozen=True)
class RunOwner:
    """The process that made a run folder. A pid alone may since name another process, so its
    start time (clock ticks after boot) is kept, with the boot and the pid namespace that give
    both numbers their meaning."""

    boot_id: str
    pid_namespace: str
    pid: int
    start_ticks: int

    def to_json(self) -> dict[str, str | int]:
        return {
            "bootId": self.boot_id,
            "pidNamespace": self.pid_namespace,
            "pid": self.pid,
            "startTicks": self.start_ticks,
        }

    @classmethod
    def from_json(cls, data: object) -> RunOwner | None:
        """The owner a marker names, or None for anything but the exact shape written."""
        if not isinstance(data, dict) or set(data) != _OWNER_KEYS:
            return None
        boot, namespace = data["bootId"], data["pidNamespace"]
        pid, start = data["pid"], data["startTicks"]
        if not (isinstance(boot, str) and isinstance(namespace, str)):
            return None
        if not all(type(n) is int and n >= 0 for n in (pid, start)):
            return None
        return cls(boot, namespace, pid, start)


def process_owner(pid: int) -> RunOwner | None:
    """A live process as a RunOwner, read from /proc; None when there is no such process (or no
    /proc: then no run folder records an owner, and none is ever swept)."""
    state = process_state(pid)
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
        namespace = os.readlink("/proc/self/ns/pid")
    except (OSError, ValueError):
        return None
    if state is None or state.state == "Z":  # a zombie has ended; only its exit status is left
        return None
    return RunOwner(boot, namespace, pid, state.start_ticks)


def _owner_gone(recorded: RunOwner, here: RunOwner) -> bool:
    """True only when the recorded owner has surely ended; not knowing is never gone."""
    if recorded.pid_namespace != here.pid_namespace:
        return False  # another container's pids cannot be looked up from here
    if recorded.boot_id != here.boot_id:
        return True  # that boot is over, with every process of it
    current = process_owner(recorded.pid)
    return current is None or current.start_ticks != recorded.start_ticks


def _recorded_owner(folder: Path) -> RunOwner | None:
    marker = folder / OWNER_FILE
    try:
        info = marker.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_OWNER_BYTES:
            return None
        return RunOwner.from_json(json.loads(marker.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def _orphaned(folder: Path, here: RunOwner) -> bool:
    try:
        info = folder.lstat()
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        return False
    recorded = _recorded_owner(folder)
    return recorded is not None and _owner_gone(recorded, here)


def sweep_orphaned_runs(temp_dir: Path) -> tuple[Path, ...]:
    """Remove the run folders in ``temp_dir`` whose owner has ended; returns them."""
    here = process_owner(os.getpid())
    if here is None:
        return ()
    try:
        candidates = sorted(temp_dir.glob(f"{WORK_PREFIX}*"))
    except OSError:
        return ()
    removed = [folder for folder in candidates if _orphaned(folder, here)]
    for folder in removed:
        shutil.rmtree(folder, ignore_errors=True)
    return tuple(removed)


def new_work_dir(temp_dir: Path | None = None) -> Path:
    """A fresh run folder in ``temp_dir`` (the default temporary directory without one),
    marked as this process's."""
    work = Path(tempfile.mkdtemp(prefix=WORK_PREFIX, dir=temp_dir))
    owner = process_owner(os.getpid())
    if owner is not None:
        (work / OWNER_FILE).write_text(json.dumps(owner.to_json()), encoding="utf-8")
    return work


def run_adapters(config: RunConfig) -> RunResult:
    preparations: list[Preparation] = []
    receipts: list[TrajectoryReceipt] = []
    replay_receipts: list[TrajectoryReceipt] = []
    executor = BoundedExecutor()
    temp_dir = Path(tempfile.gettempdir())
    sweep_orphaned_runs(temp_dir)
    work = new_work_dir(temp_dir)
    try:
        config.progress.begin(planned_pairs(config))
        for adapter_id in config.schedule.adapter_ids:
            if _runs_any(config, adapter_id, "scored"):
                scored = _run_adapter(config, adapter_id, work, executor)
                preparations.append(scored.preparation)
                receipts.extend(scored.receipts)
            if adapter_id in config.replay_adapters and _runs_any(config, adapter_id, "replay"):
                config.progress.note(f"{adapter_id} replay from a fresh preparation")
                # The replay never reuses a cached index: it proves preparation is stable.
                again = _run_adapter(config, adapter_id, work, executor, pass_="replay")
                replay_receipts.extend(again.receipts)
    finally:
        config.progress.close()
        executor.close()
        shutil.rmtree(work, ignore_errors=True)
    return combine_parts(preparations, receipts, replay_receipts)
