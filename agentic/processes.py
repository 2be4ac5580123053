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
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path

SESSION_ENV = "AGENTIC_BACKEND_SESSION"
_PR_SET_CHILD_SUBREAPER = 36


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
    """SIGKILL ``pid``'s group and every descendant, whatever session or group it moved to."""
    below = descendants(pid)
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    for child in (pid, *below):
        with suppress(ProcessLookupError, PermissionError):
            os.kill(child, signal.SIGKILL)


def reap_adopted(
    marker: str | None = None, spared: frozenset[int] = frozenset(), *, every_child: bool = False
) -> tuple[int, ...]:
    """Kill and reap the orphans this process adopted as subreaper, with their descendants.

    With ``marker``, only the children whose environment carries ``SESSION_ENV=marker`` (one
    session's leftovers); without it, every child carrying any marker (for a command that has
    finished all its work); with ``every_child``, every child at all, marked or not (an orphan
    may scrub its environment; only a process whose own work is over may ask for this).
    ``spared``: children a ``Popen`` still owns and reaps itself."""
    me = os.getpid()
    adopted = [pid for pid, parent in _parents() if parent == me and pid not in spared]
    if not every_child:
        wanted = f"{SESSION_ENV}={marker}" if marker is not None else f"{SESSION_ENV}="
        adopted = [pid for pid in adopted if _carries(pid, wanted, exact=marker is not None)]
    for pid in adopted:
        kill_tree(pid)
        with suppress(ChildProcessError, OSError):
            os.waitpid(pid, 0)
    return tuple(adopted)


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


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # The command name is in parentheses and may itself hold spaces or parentheses.
    fields = stat[stat.rfind(")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None
