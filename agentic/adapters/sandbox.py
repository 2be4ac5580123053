"""What a backend child process may see: bubblewrap when it is there, the subreaper always.

A backend under test is untrusted code. Without a sandbox it can follow ``/proc/$PPID/cwd`` to
the harness's working directory and read the hidden oracles, or read the harness's environment.
Under bubblewrap a child sees only:

- the system runtime (``/usr``, ``/etc`` and the ``/bin``-style links) and the interpreter
  prefixes of this Python, read-only;
- the prefix of its own executable and the paths its profile names (``View.read_only``);
- its prepared root read-only and its run root writable (``View.writable``);
- a private ``/tmp``, ``/dev`` and ``/proc`` of its own PID namespace, so no harness process is
  visible; a network namespace of its own with only loopback, so it reaches no host service (a
  kit-started HTTP server is reached through a Unix socket relayed to its port, ``Relay``: the
  harness binds that socket in a folder of its own, never bound into the sandbox, and hands the
  relay the socket itself, so nothing inside can replace what the harness connects to);
- the scrubbed environment its profile built, nothing else.

No fixture is ever visible: every fixture the kit bundles or installs (``agentic/_data``) and
every fixture this process loaded (``fixture/hidden.py``) is masked with an empty tmpfs wherever
a bind would show it (a wheel install under ``/usr``, the ``agentic`` package, a config folder).
A command line that names ``/``, a folder holding a fixture, or a path inside one is refused
(``SandboxError``), since a server that needs to read a fixture is one the kit cannot score. The
harness's working directory is masked with an empty tmpfs whenever one of those binds would
contain it. ``AGENTIC_ISOLATION`` chooses: ``auto`` (the default: bubblewrap when it works here,
else none), ``bubblewrap`` (required: a child cannot start without it) or ``none``. ``auto``
without a working bubblewrap is said once on stderr by whatever starts backends
(``warn_unsandboxed``): losing the sandbox is never silent.

Without the sandbox the harness is still a child subreaper (``agentic/processes.py``): a
descendant that detaches with ``setsid()`` is re-parented to the harness instead of init, and is
ended when its session closes and when the command exits. Under the sandbox the PID namespace
ends every descendant with the sandbox's first process.
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agentic import resources
from agentic.contract.errors import AgenticError
from agentic.contract.report import Isolation
from agentic.fixture import hidden

ISOLATION_ENV = "AGENTIC_ISOLATION"
ISOLATION_CHOICES: tuple[str, ...] = ("auto", "bubblewrap", "none")
BWRAP = "bwrap"
# Read-only system runtime every child gets; the merged-/usr links are recreated as links.
SYSTEM_DIRS: tuple[str, ...] = ("/usr", "/etc", "/opt")
SYSTEM_LINKS: tuple[str, ...] = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
RELAY_SCRIPT = Path(__file__).resolve().parent / "netrelay.py"
_SHEBANG_BYTES = 512
INSTALL_HINT = "apt-get install bubblewrap"


class SandboxError(AgenticError):
    """The sandbox was required and cannot run here, or the setting is unknown."""


@dataclass(frozen=True)
class Relay:
    """How the harness reaches a sandboxed HTTP server: ``socket``, the path of a Unix socket in
    a folder only the harness sees, relayed to ``port`` inside the server's own network
    namespace (``netrelay.py``). The relay gets the bound socket as an inherited descriptor
    (``bound_door``), not its path."""

    socket: Path
    port: int


@contextmanager
def bound_door(relay: Relay | None) -> Iterator[int | None]:
    """The relay's socket bound at ``relay.socket`` but not listening, as a descriptor to pass
    to the sandboxed child (None without a relay). The relay listens on it once its server
    listens, so a connection is refused until then. The harness's own copy is closed on exit:
    once the relay ends, connecting is refused at once."""
    if relay is None:
        yield None
        return
    with suppress(FileNotFoundError):
        relay.socket.unlink()
    door = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        door.bind(str(relay.socket))
        yield door.fileno()
    finally:
        door.close()


@dataclass(frozen=True)
class View:
    """The paths one child may see besides the system runtime: ``read_only`` and ``writable``
    (bound at their own paths); ``relay``, for an HTTP server the harness must reach."""

    read_only: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()
    relay: Relay | None = None


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
    probe = [executable, *_namespace_flags(), *_system_binds(), "--", "/bin/true"]
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
            f"(Debian: {INSTALL_HINT})"
        )
    return "none"


def unsandboxed_warning(
    backends: Sequence[str], environ: Mapping[str, str] | None = None
) -> str | None:
    """The one line a run that starts ``backends`` prints when they will run unsandboxed
    because bubblewrap cannot run here (None when they are sandboxed, or ``none`` was asked
    for: a choice is not a loss). Without it a user would learn of the lost sandbox only from
    ``environment.isolation`` in a report, after an untrusted server could read the oracles."""
    env = os.environ if environ is None else environ
    try:
        requested = requested_isolation(env)
    except SandboxError:
        return None  # refused with its own message where the sandbox is decided
    if not backends or requested != "auto" or bubblewrap_works():
        return None
    why = (
        "bubblewrap is not installed"
        if shutil.which(BWRAP) is None
        else "bubblewrap cannot create namespaces here"
    )
    named = ", ".join(backends)
    noun = "backend" if len(backends) == 1 else "backends"
    verb = "runs" if len(backends) == 1 else "run"
    return (
        f"agentic: warning: {why}: {noun} {named} {verb} unsandboxed "
        f"({ISOLATION_ENV}=bubblewrap refuses instead; install: {INSTALL_HINT})"
    )


def warn_unsandboxed(backends: Sequence[str]) -> None:
    """Print ``unsandboxed_warning`` on stderr, if there is one: once per run, command or check
    that starts ``backends`` (each start of each is not repeated: one line says it all)."""
    warning = unsandboxed_warning(backends)
    if warning is not None:
        print(warning, file=sys.stderr, flush=True)


def wrap(
    argv: Sequence[str],
    cwd: Path,
    view: View | None,
    mode: Isolation,
    door_fd: int | None = None,
) -> tuple[str, ...]:
    """``argv`` as it must be spawned: unchanged without a view or sandbox, else under bwrap.
    A view with a relay needs ``door_fd``, the descriptor of ``bound_door``."""
    if view is None or mode == "none":
        return tuple(argv)
    if view.relay is not None and door_fd is None:
        raise SandboxError("a relayed server is started with its door's descriptor")
    found = shutil.which(argv[0])
    if found is None:
        # Fail as an unsandboxed spawn would, instead of as a server that exits at once.
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
    executable = shutil.which(BWRAP) or BWRAP
    concealed = hidden_roots()
    _refuse_named(Path(found), argv[1:], concealed)
    read_only = _read_only(Path(found), argv[1:], view)
    writable = _existing_unique(view.writable)
    _refuse_inside(read_only + writable, concealed)
    return (
        executable,
        *_namespace_flags(),
        *_system_binds(),
        *_mounts(read_only, writable),
        *_masks(read_only + writable, concealed),
        *(("--ro-bind", str(RELAY_SCRIPT), str(RELAY_SCRIPT)) if view.relay else ()),
        "--chdir",
        str(cwd),
        "--",
        *(_relayed(argv, view.relay, door_fd) if view.relay and door_fd is not None else argv),
    )


def _relayed(argv: Sequence[str], relay: Relay, door_fd: int) -> tuple[str, ...]:
    """The server's argv behind the relay that is its only door (``netrelay.py``)."""
    door = ("--listen-fd", str(door_fd), "--port", str(relay.port))
    return (sys.executable, str(RELAY_SCRIPT), *door, "--", *argv)


def _namespace_flags() -> tuple[str, ...]:
    return ("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL")


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


def hidden_roots() -> tuple[Path, ...]:
    """Folders no backend child may see: the kit's own fixtures and every fixture this process
    loaded, as real paths (so a bind that reaches one through a link is still masked)."""
    roots = [*resources.bundled_fixture_dirs(), *hidden.known_roots()]
    return _existing_unique([Path(os.path.realpath(root)) for root in roots])


def _refuse_named(executable: Path, arguments: Sequence[str], concealed: Sequence[Path]) -> None:
    """A command line may not name ``/`` or anything that holds, or lies in, a fixture: its
    folder would be bound whole and the fixture's oracles read through it."""
    for folder in [executable.parent, *_named_folders(arguments)]:
        real = Path(os.path.realpath(folder))
        if real == Path("/"):
            raise SandboxError(f"the command line names {folder}, the whole file system")
        for root in concealed:
            if _overlaps(real, root):
                raise SandboxError(
                    f"the command line names {folder}, which overlaps the fixture {root}; "
                    "a backend may not see a fixture's folder"
                )


def _refuse_inside(binds: Sequence[Path], concealed: Sequence[Path]) -> None:
    """A bind inside a fixture cannot be masked without hiding the bind itself."""
    for path in binds:
        real = Path(os.path.realpath(path))
        for root in concealed:
            if _inside(real, root):
                raise SandboxError(
                    f"{path} lies inside the fixture {root}, which a backend may not see"
                )


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _overlaps(path: Path, root: Path) -> bool:
    return _inside(path, root) or path in root.parents


def _masks(binds: Sequence[Path], concealed: Sequence[Path]) -> tuple[str, ...]:
    """An empty tmpfs over every fixture a bind (or the system runtime) would show, at the path
    where the sandbox shows it; mounted after every bind, so nothing re-exposes it."""
    sources = [*(Path(p) for p in SYSTEM_DIRS), *binds]
    targets: dict[Path, None] = {}
    for source in sources:
        real = Path(os.path.realpath(source))
        for root in concealed:
            if real in root.parents:
                targets.setdefault(source / root.relative_to(real), None)
    args: list[str] = []
    for target in targets:
        args += ["--tmpfs", str(target)]
    return tuple(args)


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
    """What the command needs to start: ``bin/..`` of the command as found on PATH and of its
    real file (a venv, a pyenv install, a node install), the same for the interpreter a script's
    ``#!`` line names (a console script of a venv made with another Python), the base Python a
    venv's ``pyvenv.cfg`` names, and a pyenv root whose shim it is (the shim runs ``pyenv``)."""
    prefixes: list[Path] = []
    for program in _programs(found):
        for path in (program.absolute(), program.resolve()):
            prefixes.append(path.parent.parent if path.parent.name == "bin" else path.parent)
            prefixes += _venv_home(path)
        prefixes += _pyenv_root(program)
    return [prefix for prefix in prefixes if prefix != Path("/")]


def _programs(found: Path) -> list[Path]:
    """The executable and, for a script, the interpreter its ``#!`` line names (once: an
    interpreter that is itself a script is not followed further)."""
    interpreter = _shebang(found)
    if interpreter is None:
        return [found]
    located = (
        shutil.which(interpreter.name)
        if interpreter.name and not interpreter.is_absolute()
        else None
    )
    return [found, Path(located) if located else interpreter]


def _shebang(path: Path) -> Path | None:
    try:
        with open(path, "rb") as handle:
            head = handle.readline(_SHEBANG_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].decode("utf-8", errors="replace").split()
    if not words:
        return None
    # ``#!/usr/bin/env python3``: the program env would run is the interpreter.
    if Path(words[0]).name == "env" and len(words) > 1:
        return Path(words[-1])
    return Path(words[0])


def _venv_home(executable: Path) -> list[Path]:
    """The base installation of the venv ``executable`` belongs to (``home`` in pyvenv.cfg)."""
    config = executable.parent.parent / "pyvenv.cfg"
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            home = Path(value.strip())
            return [home.parent if home.name == "bin" else home]
    return []


def _pyenv_root(program: Path) -> list[Path]:
    """A pyenv shim (``<root>/shims/python3``) is a shell script that runs ``<root>/libexec/pyenv``:
    the whole root must be visible for it to find the interpreter it stands for."""
    root = program.absolute().parent.parent
    shim = program.absolute().parent.name == "shims"
    return [root] if shim and (root / "libexec" / "pyenv").exists() else []


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
