"""A run's work folder: a fresh ``agentic-run-*`` folder of the temporary directory, removed when
the run ends.

A run killed with SIGKILL never gets to remove it, so the folder records its owner
(``OWNER_FILE``: pid, start time, boot and pid namespace) and every run first removes the
folders whose owner has ended (``sweep_orphaned_runs``). A folder without that marker, of
another user, or whose owner may still live (another pid namespace, say) is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agentic.processes import process_state

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
