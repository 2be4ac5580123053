"""The harness's own process tree: it adopts what its backends leave behind and ends it.

A backend that double-forks a helper which calls ``setsid()`` escapes its process group; without
help the helper is re-parented to init and outlives the run. ``become_subreaper`` (Linux
``PR_SET_CHILD_SUBREAPER``) makes such orphans the harness's children instead; ``reap_adopted``
kills and reaps them. A backend child is spawned only after ``become_subreaper`` (see
``ChildSpec.command``), so nothing it detaches escapes. Every backend child carries
``SESSION_ENV`` in its environment (its session's marker), which the harness's own children (a
``git`` probe, a model server a test started) never carry: a closing session reaps only its own
marked orphans, and only the finished ``agentic`` command reaps every child left.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

SESSION_ENV = "AGENTIC_BACKEND_SESSION"
_PR_SET_CHILD_SUBREAPER = 36
# Field 22 of /proc/PID/stat (starttime), counted after the command name as here.
_STARTTIME_FIELD = 19
# How long a kill waits for the descendants it killed to die and be re-parented here.
_REAP_WAIT_S = 1.0
_REAP_POLL_S = 0.005


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); False elsewhere.
    Idempotent and cheap: called before every backend spawn."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # only a process that spawns backends pays for it

    with suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    return False


def dying_with_parent(argv: Sequence[str]) -> tuple[str, ...]:
    """``argv`` run so that it gets SIGKILL when the process that starts it ends, however it
    ends (SIGKILL included): util-linux's ``setpriv --pdeathsig`` sets the signal and execs it,
    so the pid is the command's own. Unchanged where ``setpriv`` is missing."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return tuple(argv)
    return (setpriv, "--pdeathsig", "KILL", "--", *argv)


def descendants(pid: int) -> tuple[int, ...]:
    """Every live process below ``pid`` in the process tree, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry, parent in _parents():
        children.setdefault(parent, []).append(entry)
    found: list[int] = []
    stack = list(children.get(pid, ()))
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(children.get(current, ()))
    return tuple(found)


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid``'s group and every descendant, whatever session or group it moved to;
    then reap the descendants that were re-parented to this process as they died (``pid``
    itself is its spawner's to reap)."""
    states = {child: process_state(child) for child in descendants(pid)}
    below = {child: state.start_ticks for child, state in states.items() if state is not None}
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    for child in (pid, *below):
        with suppress(ProcessLookupError, PermissionError):
            os.kill(child, signal.SIGKILL)
    _reap_killed(below)


def _reap_killed(killed: dict[int, int]) -> None:
    """Reap those of ``killed`` (pid: start ticks) that end up this subreaper's zombies, within
    _REAP_WAIT_S. They must be reaped here: a zombie's environment cannot be read, so
    ``reap_adopted`` cannot tell it is a backend's (under the sandbox, every pair's
    namespace init would be left ``<defunct>``). A pid now held by another process (its start
    differs) or already gone is left alone."""
    me = os.getpid()
    deadline = time.monotonic() + _REAP_WAIT_S
    pending = dict(killed)
    while pending and time.monotonic() < deadline:
        for child, start in list(pending.items()):
            state = process_state(child)
            # Gone, its pid reused by another process, or reaped just now.
            gone = state is None or state.start_ticks != start
            if gone or (state is not None and state.parent == me and _reaped(child)):
                del pending[child]
        if pending:
            time.sleep(_REAP_POLL_S)


def _reaped(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True  # reaped by someone else meanwhile
    return done == pid


def reap_adopted(
    marker: str | None = None, spared: frozenset[int] = frozenset(), *, every_child: bool = False
) -> tuple[int, ...]:
    """Kill and reap the orphans this process adopted as subreaper, with their descendants.

    With ``marker``, only the children whose environment carries ``SESSION_ENV=marker`` (one
    session's leftovers); without it, every child carrying any marker (for a command that has
    finished all its work); with ``every_child``, every child at all, marked or not (an orphan
    may scrub its environment; only a process whose own work is over may ask for this).
    Whatever the choice, a dead sandbox's namespace init is reaped too (``_sandbox_remains``).
    ``spared``: children a ``Popen`` still owns and reaps itself."""
    me = os.getpid()
    adopted = [pid for pid, parent in _parents() if parent == me and pid not in spared]
    if not every_child:
        wanted = f"{SESSION_ENV}={marker}" if marker is not None else f"{SESSION_ENV}="
        adopted = [
            pid
            for pid in adopted
            if _carries(pid, wanted, exact=marker is not None) or _sandbox_remains(pid)
        ]
    for pid in adopted:
        kill_tree(pid)
        with suppress(ChildProcessError, OSError):
            os.waitpid(pid, 0)
    return tuple(adopted)


def _sandbox_remains(pid: int) -> bool:
    """Whether ``pid`` is the dead first process of a bubblewrap sandbox, re-parented here when
    the sandbox's outer process exited first. A zombie's environment cannot be read, so its
    marker cannot tell whose it was; but the kit never spawns a process into a new PID
    namespace itself, so a zombie child that is a namespace's init (pid 1 inside) is one of
    these, and no spawner of this process waits for it."""
    state = process_state(pid)
    if state is None or state.state != "Z":
        return False
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("NSpid:"):
            levels = line.split()[1:]
            return len(levels) > 1 and levels[-1] == "1"
    return False


def _carries(pid: int, entry: str, *, exact: bool) -> bool:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    wanted = entry.encode()
    return wanted in environ if exact else any(item.startswith(wanted) for item in environ)


def _parents() -> list[tuple[int, int]]:
    pairs = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        parent = _parent_of(int(entry))
        if parent is not None:
            pairs.append((int(entry), parent))
    return pairs


@dataclass(frozen=True)
class ProcessState:
    """What /proc tells of a process: its state letter (``Z`` for a zombie), its parent and its
    start time in clock ticks after boot (which, with the pid, names it even once the pid is
    reused)."""

    state: str
    parent: int
    start_ticks: int


def process_state(pid: int) -> ProcessState | None:
    """The process's state from /proc, or None when there is no such process (or no /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # The command name is in parentheses and may itself hold spaces or parentheses.
    fields = stat[stat.rfind(")") + 2 :].split()
    if len(fields) <= _STARTTIME_FIELD:
        return None
    return ProcessState(fields[0], int(fields[1]), int(fields[_STARTTIME_FIELD]))


def _parent_of(pid: int) -> int | None:
    state = process_state(pid)
    return state.parent if state is not None else None
