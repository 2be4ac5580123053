"""Writing one HTML page (report.html, a compare page) without destroying anything else.

A page is replaced only when the file at its path is absent or is itself a page of the kit (it
carries the generator mark in its head); a symlink, a folder or any other file there is refused
with ``unsafe_output_path``. The new page is written to a temporary file beside it, fsynced and
renamed over the old one (``contract.files.replace_atomically``), so a reader sees the old page
or the new one, never half of either.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agentic.contract.errors import ContractError
from agentic.contract.files import replace_atomically

GENERATOR = "agentic report.html"
MARK = f'<meta name="generator" content="{GENERATOR}">'.encode()
_HEAD_BYTES = 4096  # the mark sits in the head, within the first lines


def is_kit_page(path: Path) -> bool:
    """Whether ``path`` is a regular file (not a symlink) whose head carries the kit's mark."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(mode):
        return False
    with open(path, "rb") as handle:
        return MARK in handle.read(_HEAD_BYTES)


def check_page_target(path: Path) -> None:
    """Refuse, before any work, a path that holds something the kit did not write."""
    if not os.path.lexists(path) or is_kit_page(path):
        return
    raise ContractError(
        "unsafe_output_path",
        f"{path} exists and is not a page written by agentic; refusing to replace it",
    )


def write_page(path: Path, data: bytes) -> None:
    """Atomically replace ``path`` with ``data`` (0644 under the usual umask 022)."""
    check_page_target(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(path, data)
    except OSError as exc:
        raise ContractError("artifact_write_failed", f"cannot write {path}: {exc}") from None
