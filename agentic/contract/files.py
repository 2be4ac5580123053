"""Reading one input file the way every command must: a regular file, never blocking, within a cap.
The size cap is checked before a byte is parsed.

A FIFO or a device could block a plain ``open`` forever (no writer) or stream without end; a
directory raises an error that is not a clear message; a huge document would be parsed into
many times its size in memory. Here each is one ContractError line instead.

The cap defaults to ``DEFAULT_MAX_INPUT_BYTES`` (well above the largest committed report, about
16 MB) and may be changed with ``AGENTIC_MAX_INPUT_BYTES``.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import ContractError

DEFAULT_MAX_INPUT_BYTES = 256 * 1024 * 1024
MAX_INPUT_ENV = "AGENTIC_MAX_INPUT_BYTES"


def max_input_bytes(environ: Mapping[str, str] | None = None) -> int:
    value = (os.environ if environ is None else environ).get(MAX_INPUT_ENV)
    if value is None:
        return DEFAULT_MAX_INPUT_BYTES
    if not value.isdigit() or int(value) <= 0:
        raise ContractError(
            "invalid_cli_option", f"{MAX_INPUT_ENV}={value!r} is not a positive integer"
        )
    return int(value)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_input_file(
    path: Path, *, code: ErrorCodeName = "unreadable_file", max_bytes: int | None = None
) -> bytes:
    """The bytes of ``path``, a regular file of at most ``max_bytes`` (default: the cap)."""
    cap = max_input_bytes() if max_bytes is None else max_bytes
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; a regular file ignores it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ContractError(code, f"{path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ContractError(code, f"{path}: is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > cap:
            raise ContractError(
                "input_too_large",
                f"{path}: {info.st_size} bytes exceed the input cap of {cap} ({MAX_INPUT_ENV})",
            )
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise ContractError(code, f"{path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > cap:
        raise ContractError("input_too_large", f"{path}: grew past the input cap of {cap}")
    return data


# The temp file of ``replace_atomically``: a killed writer leaves one of this shape, which the
# report writers recognise as the kit's own leftover (output/folder.py).
TEMP_PREFIX = ".agentic-tmp-"
TEMP_TOKEN_BYTES = 8  # its random suffix: 16 lowercase hex digits


def replace_atomically(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old file or the new one, never half:
    a temp file beside it (``TEMP_PREFIX<name>-<hex>``), fsynced, renamed over it. The file gets
    the mode a plain ``open`` gives (0644 under umask 022). OSError is the caller's to map.

    ``durable=False`` skips the fsync: a killed process still leaves the old file or the new one
    (the rename is atomic and the data is in the page cache), but a power loss may leave the new
    name empty or cut short. For files written by the hundred whose loss costs only a rerun (the
    journal's entries), where an fsync each costs more than the work they record."""
    temp = path.with_name(f"{TEMP_PREFIX}{path.name}-{secrets.token_hex(TEMP_TOKEN_BYTES)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def lock_exclusive(path: Path, busy: ContractError, *, follow_links: bool = True) -> int:
    """Open (creating) ``path`` and hold an exclusive ``flock`` on it: the descriptor, which the
    caller closes to let go. Another holder means ``busy`` is raised at once, never a wait: a
    second writer of the same output is told, not queued."""
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    fd = os.open(path, flags, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise busy from None
    except BaseException:
        os.close(fd)
        raise
    return fd
