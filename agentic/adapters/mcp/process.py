"""One MCP server child process: isolated environment, spawn, bounded pipes, whole-tree kill.

The child starts in a new session, so its pid is also its process-group id and one ``killpg``
reaches every descendant it spawned. Its stderr is drained continuously into a bounded tail (a
full stderr pipe would block the child mid-write and look like a hang), and its stdout is split
into protocol lines with a byte cap, so a runaway or hostile server cannot exhaust memory.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from anyio.abc import ByteReceiveStream, Process

from agentic.adapters.errors import AdapterError
from agentic.adapters.sandbox import SandboxError, View, bound_door, isolation, wrap
from agentic.contract.credentials import NO_SECRETS, Secrets, clip_tail
from agentic.contract.errors import AgenticError
from agentic.processes import SESSION_ENV, become_subreaper, kill_tree, reap_adopted

# Environment variables a server may inherit: enough to find executables and decode text;
# nothing that points at the user's own configuration, caches or credentials.
PASSTHROUGH_ENV: tuple[str, ...] = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT")
# Offline switches for model hubs and package managers a product might consult.
OFFLINE_ENV: tuple[tuple[str, str], ...] = (
    ("HF_HUB_OFFLINE", "1"),
    ("TRANSFORMERS_OFFLINE", "1"),
    ("NO_UPDATE_NOTIFIER", "1"),
    ("PYTHONDONTWRITEBYTECODE", "1"),
)
_READ_CHUNK = 65536
STDERR_TAIL_CHARS = 400
_EXIT_POLL_S = 0.01


def _marker() -> str:
    return secrets.token_hex(8)


@dataclass(frozen=True)
class ChildSpec:
    """Everything needed to start one server process; ``env`` is complete, not merged.

    ``view`` is what the child may see under the sandbox (None: a child the kit trusts, never
    sandboxed); ``marker`` tags the child's environment so its orphans can be found."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: Path
    view: View | None = None
    marker: str = field(default_factory=_marker)

    def command(self, door_fd: int | None = None) -> tuple[str, ...]:
        """The argv to execute: wrapped in the sandbox when there is a view and one is used
        (``door_fd``: a relayed server's bound socket, see ``sandbox.bound_door``). Called right
        before the spawn, it also makes this process a subreaper, so whatever the child
        detaches is re-parented here (``agentic/processes.py``)."""
        become_subreaper()
        try:
            return wrap(self.argv, self.cwd, self.view, isolation(), door_fd)
        except SandboxError as exc:
            raise OSError(str(exc)) from None

    def environment(self) -> dict[str, str]:
        return {**self.env, SESSION_ENV: self.marker}


def isolated_environment(root: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A fresh HOME and XDG tree under ``root`` (created), PATH passed through, offline flags."""
    home = root / "home"
    dirs = {
        "HOME": home,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_STATE_HOME": home / ".local" / "state",
        "TMPDIR": root / "tmp",
    }
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    env = {key: os.environ[key] for key in PASSTHROUGH_ENV if key in os.environ}
    env.update({key: str(path) for key, path in dirs.items()})
    env.update(dict(OFFLINE_ENV))
    env.update(extra or {})
    return env


class StderrTail:
    """The last ``limit`` bytes a child wrote to stderr, readable from any thread, as text with
    ``secrets`` scrubbed (a server's stderr may echo the token it was given)."""

    def __init__(self, limit: int, secrets: Secrets = NO_SECRETS) -> None:
        self._limit = limit
        self._secrets = secrets
        self._data = bytearray()
        self._dropped = 0
        self._lock = threading.Lock()

    def append(self, chunk: bytes) -> None:
        with self._lock:
            self._data.extend(chunk)
            excess = len(self._data) - self._limit
            if excess > 0:
                del self._data[:excess]
                self._dropped += excess

    def text(self) -> str:
        with self._lock:
            body = self._secrets.scrub(self._data.decode("utf-8", errors="replace"))
            dropped = self._dropped
        if not dropped:
            return body
        # The kept bytes may begin with the end of a secret whose start was dropped: the
        # characters that could hold such an end go too.
        body = clip_tail(body, len(body) - max(self._secrets.reach - 1, 0))
        return f"[{dropped} earlier bytes dropped]\n{body}"


class FramingError(AgenticError):
    """The server broke the stdio framing: a non-JSON-RPC line or an oversized message."""


class LineReader:
    """Splits a byte stream into newline-terminated lines, refusing any line over ``cap`` bytes."""

    def __init__(self, stream: ByteReceiveStream, cap: int) -> None:
        self._stream = stream
        self._cap = cap
        self._buffer = bytearray()

    async def next_line(self) -> bytes | None:
        """The next line without its newline, or None at end of stream."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return self._checked(line)
            self._checked(self._buffer)
            try:
                chunk = await self._stream.receive(_READ_CHUNK)
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                return None
            self._buffer.extend(chunk)

    def _checked(self, line: bytes | bytearray) -> bytes:
        if len(line) > self._cap:
            raise FramingError(f"server message exceeds {self._cap} bytes")
        return bytes(line)


async def spawn(spec: ChildSpec) -> Process:
    """Start the child in its own session with all three pipes (and a relayed server's door)."""
    with bound_door(spec.view.relay if spec.view is not None else None) as door_fd:
        return await anyio.open_process(
            list(spec.command(door_fd)),
            env=spec.environment(),
            cwd=str(spec.cwd),
            start_new_session=True,
            pass_fds=() if door_fd is None else (door_fd,),
        )


async def drain_stderr(stream: ByteReceiveStream, tail: StderrTail) -> None:
    with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
        while True:
            tail.append(await stream.receive(_READ_CHUNK))


def kill_group(pid: int) -> None:
    """SIGKILL the child's whole process group and every descendant that left it (a helper that
    called ``setsid()``); a group already gone is fine."""
    kill_tree(pid)


def reap_orphans(spec: ChildSpec, pid: int) -> None:
    """End what the child left behind after it was reaped: descendants that detached and were
    re-parented to this (subreaper) process. They carry the child's marker."""
    reap_adopted(spec.marker, spared=frozenset({pid}))


async def wait_exit(process: Process, timeout_s: float) -> bool:
    """Whether the child was reaped within the timeout (polls returncode, never pipe EOF)."""
    with anyio.move_on_after(timeout_s):
        while process.returncode is None:
            await anyio.sleep(_EXIT_POLL_S)
    return process.returncode is not None


async def stop(process: Process, spec: ChildSpec, grace_s: float) -> None:
    """Close stdin, give the child ``grace_s`` to exit, then kill the group and reap the child.

    The group is killed even after a clean exit: a descendant may still hold it.
    """
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    await wait_exit(process, grace_s)
    await _finish(process, spec)


async def terminate(process: Process, spec: ChildSpec, grace_s: float) -> None:
    """SIGTERM the child's group, give it ``grace_s`` to exit, then kill the group and reap.

    For servers that do not stop when stdin closes (an HTTP server)."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    await wait_exit(process, grace_s)
    await _finish(process, spec)


async def _finish(process: Process, spec: ChildSpec) -> None:
    kill_group(process.pid)
    await wait_exit(process, 2.0)
    reap_orphans(spec, process.pid)
    # Close the pipes on this loop: a sandboxed server's pipes may outlive the reaped bwrap
    # process for a moment, and a transport left open is closed by the GC after the loop ended.
    with anyio.move_on_after(2.0), suppress(OSError, anyio.BrokenResourceError):
        await process.aclose()


@dataclass(frozen=True)
class Finished:
    """A bounded command's status and output (scrubbed of the secrets it was run with)."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def stderr_tail(self) -> str:
        return clip_tail(self.stderr.strip(), STDERR_TAIL_CHARS)

    def tail(self) -> str:
        """The end of stderr (else stdout) on one line, for an error message."""
        text = clip_tail(self.stderr.strip() or self.stdout.strip(), STDERR_TAIL_CHARS)
        return " ".join(text.split())


class ChildStartError(AgenticError):
    """A bounded command could not be started; the message is the OS's reason."""


class ChildTimeoutError(AgenticError):
    """A bounded command did not finish within its time (its group was killed)."""


def run_to_completion(
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: Path,
    timeout_s: float,
    *,
    view: View | None = None,
    secrets: Secrets = NO_SECRETS,
) -> Finished:
    """Run one command in its own process group and capture its output; kill the whole group on
    timeout and after exit, so no helper it spawned outlives it. ``view``: run it sandboxed (a
    backend's own step); ``secrets``: scrubbed from its output before anything is cut from it.
    Raises ChildStartError or ChildTimeoutError; callers word them in their own error type."""
    spec = ChildSpec(tuple(argv), env, cwd, view)
    try:
        child = subprocess.Popen(
            list(spec.command()),
            env=spec.environment(),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise ChildStartError(exc.strerror or str(exc)) from None
    with child:
        try:
            out, err = child.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            kill_group(child.pid)
            child.communicate()
            raise ChildTimeoutError(f"{timeout_s:g} s") from None
        finally:
            kill_group(child.pid)
    reap_orphans(spec, child.pid)
    return Finished(
        child.returncode,
        secrets.scrub(out.decode("utf-8", errors="replace")),
        secrets.scrub(err.decode("utf-8", errors="replace")),
    )


def run_bounded(
    argv: tuple[str, ...],
    env: Mapping[str, str],
    cwd: Path,
    timeout_s: float,
    *,
    label: str,
    view: View | None = None,
    secrets: Secrets = NO_SECRETS,
) -> Finished:
    """A preparation step, bounded (see ``run_to_completion``): failing to start is
    ``adapter_preparation_failed``, running out of time ``adapter_preparation_timeout``."""
    try:
        return run_to_completion(argv, env, cwd, timeout_s, view=view, secrets=secrets)
    except ChildStartError as exc:
        raise AdapterError(
            "adapter_preparation_failed", "harness_error", f"cannot run {argv[0]}: {exc}"
        ) from None
    except ChildTimeoutError:
        raise AdapterError(
            "adapter_preparation_timeout",
            "harness_error",
            f"{label} exceeded {timeout_s:g} s "
            "(--prepare-timeout-ms, or a backend config's prepare_timeout_s)",
        ) from None

    return True
