"""What a backend child process may see: bubblewrap when it is there, the subreaper always.

A backend under test is untrusted code. Without a sandbox it can follow ``/proc/$PPID/cwd`` to
the harness's working directory and read the hidden oracles, or read the harness's environment.
Under bubblewrap a child sees only:

- the system runtime (``/usr``, ``/etc`` and the ``/bin``-style links) and the interpreter
  prefixes of this Python, read-only;
- the prefix of its own executable and the paths its profile names (``View.read_only``);
- its prepared root read-only and its run root writable (``View.writable``);
- a private ``/tmp``, ``/dev`` and ``/proc`` of its own PID namespace, so no harness process is
  visible; no network unless the profile needs one (a kit-started HTTP server);
- the scrubbed environment its profile built, nothing else.

The harness's working directory is masked with an empty tmpfs whenever one of those binds would
contain it. ``AGENTIC_ISOLATION`` chooses: ``auto`` (the default: bubblewrap when it works here,
else none), ``bubblewrap`` (required: a child cannot start without it) or ``none``.

Without the sandbox the harness is still a child subreaper (``agentic/processes.py``): a
descendant that detaches with ``setsid()`` is re-parented to the harness instead of init, and is
ended when its session closes and when the command exits. Under the sandbox the PID namespace
ends every descendant with the sandbox's first process.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agentic.contract.report import Isolation

ISOLATION_ENV = "AGENTIC_ISOLATION"
ISOLATION_CHOICES: tuple[str, ...] = ("auto", "bubblewrap", "none")
BWRAP = "bwrap"
# Read-only system runtime every child gets; the merged-/usr links are recreated as links.
SYSTEM_DIRS: tuple[str, ...] = ("/usr", "/etc", "/opt")
SYSTEM_LINKS: tuple[str, ...] = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


class SandboxError(Exception):
    """The sandbox was required and cannot run here, or the setting is unknown."""


@dataclass(frozen=True)
class View:
    """The paths one child may see besides the system runtime: ``read_only`` and ``writable``
    (bound at their own paths), and whether it shares the harness's network."""

    read_only: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()
    network: bool = False


def requested_isolation(environ: Mapping[str, str]) -> str:
    value = environ.get(ISOLATION_ENV, "auto").strip() or "auto"
    if value not in ISOLATION_CHOICES:
        raise SandboxError(
            f"{ISOLATION_ENV}={value!r} is not one of {', '.join(ISOLATION_CHOICES)}"
        )
    return value


@cache
def bubblewrap_works() -> bool:
    """Whether ``bwrap`` runs a trivial sandbox here (it needs user namespaces, which some
    containers forbid). Probed once per process: the answer cannot change while it runs."""
    executable = shutil.which(BWRAP)
    if executable is None:
        return False
    probe = [executable, *_namespace_flags(network=False), *_system_binds(), "--", "/bin/true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def isolation(environ: Mapping[str, str] | None = None) -> Isolation:
    """The isolation backend children get in this process (see the module docstring)."""
    requested = requested_isolation(os.environ if environ is None else environ)
    if requested == "none":
        return "none"
    if bubblewrap_works():
        return "bubblewrap"
    if requested == "bubblewrap":
        raise SandboxError(
            f"{ISOLATION_ENV}=bubblewrap but bwrap is missing or cannot create namespaces here "
            "(Debian: apt-get install bubblewrap)"
        )
    return "none"


def wrap(argv: Sequence[str], cwd: Path, view: View | None, mode: Isolation) -> tuple[str, ...]:
    """``argv`` as it must be spawned: unchanged without a view or sandbox, else under bwrap."""
    if view is None or mode == "none":
        return tuple(argv)
    found = shutil.which(argv[0])
    if found is None:
        # Fail as an unsandboxed spawn would, instead of as a server that exits at once.
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
    executable = shutil.which(BWRAP) or BWRAP
    return (
        executable,
        *_namespace_flags(network=view.network),
        *_system_binds(),
        *_mounts(_read_only(Path(found), argv[1:], view), _existing_unique(view.writable)),
        "--chdir",
        str(cwd),
        "--",
        *argv,
    )


def _namespace_flags(*, network: bool) -> tuple[str, ...]:
    flags = ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if network:
        flags.append("--share-net")
    return tuple(flags)


def _system_binds() -> tuple[str, ...]:
    args: list[str] = []
    for name in SYSTEM_DIRS:
        args += ["--ro-bind-try", name, name]
    for name in SYSTEM_LINKS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    return (*args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")


def _read_only(executable: Path, arguments: Sequence[str], view: View) -> tuple[Path, ...]:
    """The interpreter prefixes, the executable's prefix, the folders the command line names,
    then the view's own paths."""
    paths = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)]
    paths += _executable_prefixes(executable)
    paths += _named_folders(arguments)
    paths += view.read_only
    return _existing_unique(paths)


def _named_folders(arguments: Sequence[str]) -> list[Path]:
    """An absolute path on the command line (a server script, a config file) is visible with
    the folder that holds it, so a server split over several files still starts."""
    folders = []
    for argument in arguments:
        path = Path(argument)
        if path.is_absolute() and path.exists():
            folders.append(path if path.is_dir() else path.parent)
    return folders


def _executable_prefixes(found: Path) -> list[Path]:
    """``bin/..`` of the command as found on PATH and of its real file: what a venv, a pyenv
    install or a node install needs beside the executable itself."""
    prefixes = []
    for path in (found.absolute(), found.resolve()):
        prefix = path.parent.parent if path.parent.name == "bin" else path.parent
        if prefix != Path("/"):
            prefixes.append(prefix)
    return prefixes


def _mounts(read_only: Sequence[Path], writable: Sequence[Path]) -> tuple[str, ...]:
    """The binds, with the harness's working directory masked by an empty tmpfs whenever a bind
    (or the system runtime) would contain it. Binds strictly inside it (a prepared root, the
    kit's package) are mounted after the mask, so only they show through."""
    cwd = Path.cwd()
    binds = [("--ro-bind", p) for p in read_only] + [("--bind", p) for p in writable]
    outer = [(flag, p) for flag, p in binds if cwd not in p.parents]
    inner = [(flag, p) for flag, p in binds if cwd in p.parents]
    covering = [Path(p) for p in SYSTEM_DIRS] + [p for _, p in outer]
    exposed = any(cwd == root or root in cwd.parents for root in covering)
    args: list[str] = []
    for flag, path in outer:
        args += [flag, str(path), str(path)]
    if exposed:
        args += ["--tmpfs", str(cwd)]
    for flag, path in inner:
        args += [flag, str(path), str(path)]
    return tuple(args)


def _existing_unique(paths: Sequence[Path]) -> tuple[Path, ...]:
    seen: dict[Path, None] = {}
    for path in paths:
        absolute = Path(os.path.abspath(path))
        if absolute.exists():
            seen.setdefault(absolute, None)
    return tuple(seen)
