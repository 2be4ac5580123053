"""A real OpenAI-compatible chat-completions endpoint: llama-cpp-python's own server
(``python -m llama_cpp.server``) over the pinned SmolLM2 GGUF, on 127.0.0.1 at a free port.

``start_server`` and ``RunningServer`` are plain code (no pytest), so a nox session or a benchmark
can start and stop the same server the tests use; ``start_pinned_server`` reads everything from
the agent-model lock (and lists the lock's ``agentId`` as the one model id). The pytest pieces
(``requires_openai_server``, the session fixture ``openai_server``) are at the bottom.

The server runs in its own session (so its own process group); ``stop`` signals the whole group,
waits a bounded time, SIGKILLs what is left, and only then reaps the leader, so the group id
cannot be taken by an unrelated process between the signal and the reap. The model is loaded
before the server binds its port, so the first ``GET /v1/models`` that answers 200 means ready.

Chat format: the lock's ``chatml`` maps to the server's ``chatml-function-calling`` handler, the
only built-in ChatML handler that honours ``tools`` with ``tool_choice: "auto"`` (plain ``chatml``
ignores tools unless a function is named). Without tools it renders the same ChatML turns. What
it does with tools, and where it falls short (no request ``seed``, ``"required"`` is a 500,
``role: tool`` results are not rendered, unanchored ``pattern`` silently disables the schema
grammar), is pinned by ``tests/agents/test_openai_server.py``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx2

from agentic.locks import OFFLINE_ENVIRONMENT, model_threads, preflight_agent_model
from agentic.processes import dying_with_parent
from agentic.resources import locks_dir

HOST = "127.0.0.1"
SERVER_MODULE = "llama_cpp.server"
# The lock names the prompt format; the server names the handler that renders it.
SERVER_CHAT_FORMATS: Mapping[str, str] = {"chatml": "chatml-function-calling"}
# What ``python -m llama_cpp.server`` needs beyond llama_cpp (its ``server`` extra).
SERVER_REQUIREMENTS = (
    "llama_cpp",
    "fastapi",
    "uvicorn",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)
STOP_TIMEOUT_S = 10.0
LOG_TAIL_BYTES = 4000
_POLL_S = 0.1


class ServerStartError(RuntimeError):
    """The server exited or did not answer ``GET /v1/models`` in time (message has the log)."""


def free_port(host: str = HOST) -> int:
    """A port nothing listens on right now (the kernel's pick for an ephemeral bind)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def server_importable() -> bool:
    """Whether ``python -m llama_cpp.server`` can start (without importing llama_cpp here)."""
    return all(importlib.util.find_spec(name) is not None for name in SERVER_REQUIREMENTS)


def server_command(
    model_path: Path,
    *,
    chat_format: str | None,
    n_ctx: int,
    threads: int,
    port: int,
    n_batch: int | None = None,
    model_alias: str | None = None,
    extra_args: Sequence[str] = (),
) -> list[str]:
    command = [
        sys.executable,
        "-m",
        SERVER_MODULE,
        "--model",
        str(model_path),
        "--host",
        HOST,
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
        # The server defaults to mlock (the in-process agent does not); a shared machine may
        # refuse to lock 100 MB, and locking changes nothing a test can observe.
        "--use_mlock",
        "False",
    ]
    # None: the model's own chat template from its GGUF (tools rendered as the model was taught).
    if chat_format is not None:
        command += ["--chat_format", chat_format]
    if n_batch is not None:
        command += ["--n_batch", str(n_batch), "--n_ubatch", str(n_batch)]
    if model_alias is not None:
        command += ["--model_alias", model_alias]
    return [*command, *extra_args]


def log_tail(path: Path, limit: int = LOG_TAIL_BYTES) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"<cannot read {path}: {exc.strerror}>"
    return data[-limit:].decode(errors="replace")


@dataclass(frozen=True)
class RunningServer:
    base_url: str
    """``http://127.0.0.1:PORT/v1``: what an OpenAI client takes as its base URL."""
    process: subprocess.Popen[bytes]
    log_path: Path
    port: int
    model_alias: str | None
    """The one id ``GET /v1/models`` lists (the model path when None)."""
    command: tuple[str, ...]
    startup_s: float
    """Seconds from spawn to the first ``GET /v1/models`` that answered 200."""

    @property
    def pgid(self) -> int:
        return self.process.pid  # a session leader's group id is its pid

    def log_tail(self, limit: int = LOG_TAIL_BYTES) -> str:
        return log_tail(self.log_path, limit)

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM the group, wait up to ``timeout_s``, SIGKILL what is left, reap. Idempotent."""
        if self.process.returncode is not None:
            return  # reaped already: the group id may belong to someone else now
        _signal_group(self.pgid, signal.SIGTERM)
        if not _exited_unreaped(self.process.pid, timeout_s):
            _signal_group(self.pgid, signal.SIGKILL)
            _exited_unreaped(self.process.pid, timeout_s)
        # The leader is a zombie (or still dying from SIGKILL) and keeps the group id reserved,
        # so this reaches only the server's own children that outlived it.
        _signal_group(self.pgid, signal.SIGKILL)
        self.process.wait(timeout=timeout_s)


def _signal_group(pgid: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signum)


def _exited_unreaped(pid: int, timeout_s: float) -> bool:
    """Whether ``pid`` exited within ``timeout_s``, leaving it unreaped (``WNOWAIT``)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True  # reaped elsewhere
        if info is not None:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def _wait_ready(server: RunningServer, deadline: float) -> None:
    url = f"{server.base_url}/models"
    # trust_env=False: a proxy from the environment must never see a loopback request.
    with httpx2.Client(trust_env=False) as client:
        while True:
            code = server.process.poll()
            if code is not None:
                raise ServerStartError(
                    f"{SERVER_MODULE} exited with {code} before answering {url}; log "
                    f"{server.log_path}:\n{server.log_tail()}"
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ServerStartError(
                    f"{SERVER_MODULE} did not answer {url} in time; log "
                    f"{server.log_path}:\n{server.log_tail()}"
                )
            try:
                if client.get(url, timeout=min(2.0, remaining)).status_code == 200:
                    return
            except httpx2.TransportError:
                pass
            time.sleep(_POLL_S)


def start_server(
    model_path: Path,
    *,
    chat_format: str | None,
    n_ctx: int,
    threads: int,
    port: int | None = None,
    startup_timeout_s: float = 120,
    n_batch: int | None = None,
    model_alias: str | None = None,
    log_path: Path | None = None,
    extra_args: Sequence[str] = (),
) -> RunningServer:
    """Spawn the server and return once ``GET /v1/models`` answers 200.

    On an early exit or a timeout the server is stopped and ``ServerStartError`` carries the
    tail of its log (stdout and stderr, interleaved, in ``log_path`` or a fresh temp file).
    """
    chosen = free_port() if port is None else port
    command = server_command(
        model_path,
        chat_format=chat_format,
        n_ctx=n_ctx,
        threads=threads,
        port=chosen,
        n_batch=n_batch,
        model_alias=model_alias,
        extra_args=extra_args,
    )
    if log_path is None:
        fd, name = tempfile.mkstemp(prefix=f"llama-server-{chosen}-", suffix=".log")
        os.close(fd)
        log_path = Path(name)
    env = {**os.environ, **OFFLINE_ENVIRONMENT}
    started = time.monotonic()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            # Ends with whatever started it, even a test runner killed with SIGKILL.
            dying_with_parent(command),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    server = RunningServer(
        base_url=f"http://{HOST}:{chosen}/v1",
        process=process,
        log_path=log_path,
        port=chosen,
        model_alias=model_alias,
        command=tuple(command),
        startup_s=0.0,
    )
    try:
        _wait_ready(server, started + startup_timeout_s)
    except BaseException:
        server.stop()
        raise
    return RunningServer(
        base_url=server.base_url,
        process=process,
        log_path=log_path,
        port=chosen,
        model_alias=model_alias,
        command=server.command,
        startup_s=time.monotonic() - started,
    )


def start_pinned_server(
    environ: Mapping[str, str] | None = None,
    *,
    port: int | None = None,
    startup_timeout_s: float = 120,
    log_path: Path | None = None,
) -> RunningServer:
    """The server over the verified pinned model, shaped by the agent-model lock (threads may be
    overridden by ``AGENTIC_MODEL_THREADS``, the model file by ``AGENTIC_MODEL_PATH``)."""
    env = os.environ if environ is None else environ
    checked = preflight_agent_model(locks_dir() / "agent-model.lock.json", env)
    lock = checked.lock
    return start_server(
        checked.model.path,
        chat_format=SERVER_CHAT_FORMATS[lock.chatFormat],
        n_ctx=lock.runtime.contextTokens,
        threads=model_threads(lock, env),
        n_batch=lock.runtime.batchTokens,
        model_alias=lock.agentId,
        port=port,
        startup_timeout_s=startup_timeout_s,
        log_path=log_path,
    )


# --- pytest -------------------------------------------------------------------------------------

import pytest  # noqa: E402  (kept apart so the code above runs without pytest)

from tests.support.processes import group_gone, live_group_members  # noqa: E402

requires_openai_server = pytest.mark.skipif(
    not server_importable(),
    reason="llama_cpp.server is not importable (install llama-cpp-python[server])",
)


@pytest.fixture(scope="session")
def openai_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """One server for the session over the pinned model. Skipped only when the server cannot
    be imported; a missing or corrupted model fails, like the local-model lane does."""
    if not server_importable():
        pytest.skip("llama_cpp.server is not importable (install llama-cpp-python[server])")
    log_path = tmp_path_factory.mktemp("openai-server") / "server.log"
    server = start_pinned_server(log_path=log_path)
    try:
        yield server
    finally:
        server.stop()
    if not group_gone(server.pgid):
        left = live_group_members(server.pgid)
        raise AssertionError(f"the server's process group outlived stop(): {left}")
