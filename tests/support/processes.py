"""Processes seen through ``/proc`` (Linux), for tests that check what a run left behind.

A process group is "gone" when none of its members is alive; a zombie counts as gone, because it
runs nothing and is reaped by whoever inherits it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

_GONE_WITHIN_S = 10.0


def _stat_fields(pid_dir: Path) -> tuple[str, int, int] | None:
    """(state, parent, process group) of one /proc entry, or None when it vanished."""
    try:
        stat = (pid_dir / "stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1]), int(fields[2])


def live_group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(entry)
            if fields is not None and fields[2] == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def zombie_children() -> list[int]:
    """This process's children that have ended and are not reaped."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(entry)
            if fields is not None and fields[0] == "Z" and fields[1] == os.getpid():
                found.append(int(entry.name))
    return found


def process_alive(pid: int) -> bool:
    fields = _stat_fields(Path("/proc") / str(pid))
    return fields is not None and fields[0] != "Z"


def group_gone(pgid: int) -> bool:
    """Whether the group has no live member, allowing the kernel a moment to deliver SIGKILL."""
    deadline = time.monotonic() + _GONE_WITHIN_S
    while live_group_members(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def processes_mentioning(marker: str) -> list[int]:
    """Live processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found
