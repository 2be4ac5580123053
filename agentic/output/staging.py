"""Writing the four report artifacts as one set, atomically.

All files are written and fsynced into a staging folder beside the target, which is then swapped
into place. Where the kernel supports it the swap is one ``renameat2(RENAME_EXCHANGE)``, so a
reader, or a kill at any instant, sees either the old complete set or the new one. Where it does
not, two renames are used and a leftover backup is restored on the next write.

One writer at a time: a writer holds an exclusive ``flock`` on a lock file beside the target
(``.agentic-lock-<name>``) from before its recovery until its swap is on disk, and a second writer
is refused with ``artifact_target_busy``. So whatever stage or backup the lock holder finds beside
the target was left by a writer that no longer holds the lock (it was killed), and recovery may
remove it. A write that fails while staging (a full disk, say) removes its own stage; the previous
set is never touched before the swap.

Under the lock, before anything is staged, the target must be missing, empty or a previous report
of the kit of the same identity (``output/folder.py``): anything else is refused and
left as it is, and another lane's report is replaced only with ``force``. The folder and files
swapped in have the permissions a plain ``mkdir`` and ``open`` give (0755 and 0644 under umask
022). A baseline rewrite whose results reproduce the committed ones (``keep_reproduced``) keeps
the committed artifacts byte for byte and only rewrites the companions (``report.html``).
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import secrets
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Literal

from agentic.contract.errors import ContractError
from agentic.contract.files import lock_exclusive, replace_atomically
from agentic.output.folder import (
    LANE_ARTIFACTS,
    LANE_COMPANIONS,
    PreviousReport,
    check_folder_path,
    check_replaceable,
    files_identity,
    is_temp,
    previous_report,
)

# The committed artifacts of a lane report, and the companions written beside them (never
# committed; a reproduced baseline rewrites only these). Both are defined in folder.py, which
# recognizes a previous report by its names.
ARTIFACT_NAMES: tuple[str, ...] = LANE_ARTIFACTS
COMPANION_NAMES: tuple[str, ...] = LANE_COMPANIONS
Written = Literal["written", "reproduced"]
STAGE_PREFIX = ".agentic-stage-"
LOCK_PREFIX = ".agentic-lock-"
BACKUP_SUFFIX = ".agentic-previous"
_STAGE_TOKEN_BYTES = 8  # the stage's random suffix: 16 lowercase hex digits
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths; False where the kernel or filesystem cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(a))


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    """Whether the open file (or directory) ``fd`` is still the one named ``path``."""
    try:
        current = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (opened.st_dev, opened.st_ino) == (current.st_dev, current.st_ino)


def _lock_once(lock: Path, target: Path) -> int | None:
    """The locked descriptor of ``lock``; None when the file was replaced before we locked it."""
    busy = ContractError("artifact_target_busy", f"{target} is being written by another process")
    fd = lock_exclusive(lock, busy)
    # The previous holder unlinks the file as it lets go; a lock on that unlinked file would
    # exclude nobody who opens the path afresh, so only the file still at the path counts.
    if _same_file(fd, lock):
        return fd
    os.close(fd)
    return None


def _lock_path(target: Path) -> Path:
    return target.with_name(LOCK_PREFIX + target.name)


def _acquire(target: Path) -> int:
    """The target's lock, held; refused (artifact_target_busy) while another writer holds it."""
    fd = None
    while fd is None:
        fd = _lock_once(_lock_path(target), target)
    return fd


def _release(target: Path, fd: int) -> None:
    # Unlinked while still held, so no lock file is left beside the output; a writer that opened
    # it meanwhile sees it is no longer at the path and takes the new one.
    _lock_path(target).unlink(missing_ok=True)
    os.close(fd)


def _stale_stages(target: Path) -> Iterator[Path]:
    """Stages of exactly this target: a similarly named target's stages never match."""
    shape = re.compile(
        re.escape(STAGE_PREFIX + target.name) + f"-[0-9a-f]{{{2 * _STAGE_TOKEN_BYTES}}}"
    )
    for path in target.parent.iterdir():
        if shape.fullmatch(path.name):
            yield path


def _recover(target: Path) -> None:
    """Called under the target's lock: undo a two-rename swap interrupted between its renames,
    and remove the stages of writers that were killed (a live writer would hold the lock)."""
    backup = target.with_name(target.name + BACKUP_SUFFIX)
    if backup.exists() and not target.exists():
        backup.rename(target)
    if backup.exists():
        shutil.rmtree(backup)
    for stale in _stale_stages(target):
        shutil.rmtree(stale, ignore_errors=True)


def _new_stage(target: Path) -> Path:
    token = secrets.token_hex(_STAGE_TOKEN_BYTES)
    staging = target.with_name(f"{STAGE_PREFIX}{target.name}-{token}")
    # A plain mkdir: the folder swapped in gets the permissions any new folder gets (0755 under
    # umask 022), as its files get those of a plain open (0644).
    staging.mkdir()
    return staging


def _fill(staging: Path, files: Mapping[str, bytes]) -> None:
    for name, data in files.items():
        with open(staging / name, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    _fsync_dir(staging)


def _swap(staging: Path, target: Path) -> None:
    if not target.exists():
        staging.rename(target)
        return
    if _exchange(staging, target):
        shutil.rmtree(staging)  # now holds the previous set
        return
    backup = target.with_name(target.name + BACKUP_SUFFIX)
    target.rename(backup)
    try:
        staging.rename(target)
    except OSError:
        backup.rename(target)
        raise
    shutil.rmtree(backup)


def _reproduces(previous: PreviousReport | None, fingerprint: str | None) -> bool:
    """Whether ``previous`` is a complete lane report with results ``fingerprint``."""
    return (
        fingerprint is not None
        and previous is not None
        and previous.kind.name == "lane"
        and all(name in previous.names for name in ARTIFACT_NAMES)
        and previous.results_fingerprint == fingerprint
    )


def _write_companions(target: Path, files: Mapping[str, bytes]) -> None:
    """Keep the committed artifacts of ``target``; (re)write the companions among ``files``
    whose bytes differ. Our temp files left by a killed rewrite are removed (we hold the lock)."""
    names = frozenset(files)
    try:
        for path in target.iterdir():
            if is_temp(path.name):
                path.unlink(missing_ok=True)
        for name in COMPANION_NAMES:
            if name not in names:
                continue
            data = files[name]
            current = target / name
            if current.is_file() and current.read_bytes() == data:
                continue
            replace_atomically(target / name, data)
        _fsync_dir(target)
    except OSError as exc:
        raise ContractError("artifact_write_failed", f"cannot write into {target}: {exc}") from None


def _write_locked(
    target: Path, files: Mapping[str, bytes], *, force: bool, keep_reproduced: str | None
) -> Written:
    new = files_identity(files)
    check_folder_path(target)  # a link or a file is refused before recovery could touch it
    try:
        _recover(target)
    except OSError as exc:
        raise ContractError("artifact_write_failed", f"cannot stage {target}: {exc}") from None
    previous = previous_report(target)
    check_replaceable(target, previous, new, force=force)
    if _reproduces(previous, keep_reproduced):
        _write_companions(target, files)
        return "reproduced"
    try:
        staging = _new_stage(target)
    except OSError as exc:
        raise ContractError("artifact_write_failed", f"cannot stage {target}: {exc}") from None
    try:
        _fill(staging, files)
    except BaseException as exc:
        # A full disk (or an interrupt) mid-stage: the stage is ours to remove, nobody else's.
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise ContractError("artifact_write_failed", f"cannot stage {target}: {exc}") from None
        raise
    try:
        _swap(staging, target)
        _fsync_dir(target.parent)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise ContractError("artifact_write_failed", f"cannot replace {target}: {exc}") from None
    return "written"


def write_artifacts(
    target: Path,
    files: Mapping[str, bytes],
    *,
    force: bool = False,
    keep_reproduced: str | None = None,
) -> Written:
    """Replace ``target`` with exactly ``files``; on failure the previous set is untouched.

    Refused before anything is staged (ContractError): ``artifact_target_busy`` when another
    process is writing the same target; ``unsafe_output_path`` when the target is a link, a file
    or a folder holding anything but a previous report of the kit (never removed, even with
    ``force``); ``output_holds_another_report`` when it holds a previous report of another
    identity (another lane, kind or model) and ``force`` is not given.

    ``keep_reproduced``: a ``resultsFingerprint``. When the target already holds a complete lane
    report with exactly these results, its committed artifacts are kept byte for byte (mtime
    too), only the companions among ``files`` (``report.html``) are rewritten, and the result is
    ``"reproduced"``; otherwise everything is staged and swapped in (``"written"``).
    """
    target = target.absolute()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = _acquire(target)
    except OSError as exc:
        raise ContractError("artifact_write_failed", f"cannot lock {target}: {exc}") from None
    try:
        return _write_locked(target, files, force=force, keep_reproduced=keep_reproduced)
    finally:
        _release(target, fd)


def _read_once(folder: Path) -> dict[str, bytes] | None:
    """Read every file relative to one open directory, so all come from the same set.
    None when the folder was swapped away mid-read (its old files were being removed)."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return None
    try:
        present = set(os.listdir(dir_fd))
        missing = [name for name in ARTIFACT_NAMES if name not in present]
        if missing:
            if not _same_file(dir_fd, folder):
                return None  # swapped away and being removed: the new set is at the path
            raise ContractError("incomplete_artifact_set", f"{folder} lacks {', '.join(missing)}")
        result = {}
        for name in ARTIFACT_NAMES:
            fd = os.open(name, os.O_RDONLY, dir_fd=dir_fd)
            with os.fdopen(fd, "rb") as handle:
                result[name] = handle.read()
        return result
    except FileNotFoundError:
        return None
    finally:
        os.close(dir_fd)


def read_artifact_set(folder: Path, *, attempts: int = 50) -> dict[str, bytes]:
    """The complete set of one generation, or ContractError naming what is missing.

    A writer swaps whole folders, so reading relative to one directory handle yields one
    generation; a read that races the removal of the previous folder is simply retried.
    """
    for _ in range(attempts):
        result = _read_once(folder)
        if result is not None:
            return result
    raise ContractError("incomplete_artifact_set", f"{folder} is missing or keeps changing")
