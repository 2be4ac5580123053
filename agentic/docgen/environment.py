"""Every environment variable the kit reads or sets, with the module that does it and why.

The reference page prints this table. ``tests/test_reference_doc.py`` scans ``agentic/`` and
``containers/`` for every ``AGENTIC_*`` name and every variable read by a literal name (in
``environ.get``, ``getenv``, ``environ[...]`` or a ``*_ENV`` constant) and requires each to be
here, and each entry to occur in the module it names, so a new variable cannot go undocumented
and a removed one cannot stay documented. The meanings are Markdown for the reference page,
which lives in ``docs/``: their links are relative to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agentic.adapters.sandbox import ISOLATION_CHOICES
from agentic.contract.files import DEFAULT_MAX_INPUT_BYTES
from agentic.locks import MAX_THREADS, OFFLINE_ENVIRONMENT

# read: the kit reads it from its environment. set: the kit sets it for a child (never read).
# passed: the kit passes it on to a backend child, whose environment is otherwise scrubbed.
Use = Literal["read", "set", "passed"]


@dataclass(frozen=True)
class Variable:
    """One variable: its name, how the kit uses it, the module that does, what it changes."""

    name: str
    use: Use
    module: str  # a path from the repository root
    meaning: str


_MIB = 1024 * 1024

VARIABLES: tuple[Variable, ...] = (
    Variable(
        "AGENTIC_BACKEND_SESSION",
        "set",
        "agentic/processes.py",
        "The marker the kit puts in every backend child's environment: closing a session kills "
        "and reaps the orphans that carry its marker. Never set it yourself.",
    ),
    Variable(
        "AGENTIC_BUILD_COMMIT",
        "read",
        "agentic/report/environment.py",
        "The git commit a report records as `environment.git.commit` where no `.git` folder "
        "exists; the image bakes it in from the build argument of the same name.",
    ),
    Variable(
        "AGENTIC_BUILD_DIRTY",
        "read",
        "agentic/report/environment.py",
        "With `AGENTIC_BUILD_COMMIT`: `true` or `false`, the dirty flag the report records; "
        "anything else records it as unknown.",
    ),
    Variable(
        "AGENTIC_CONTAINER_ENGINE",
        "read",
        "containers/engine.py",
        "`docker` makes `nox -s container` use Docker (and `DOCKER_HOST`) instead of podman.",
    ),
    Variable(
        "AGENTIC_DEBIAN_MIRROR",
        "read",
        "containers/base.py",
        "The Debian mirror `nox -s container` builds its base image from with debootstrap "
        "(default `http://deb.debian.org/debian`).",
    ),
    Variable(
        "AGENTIC_GNO_EXECUTABLE",
        "read",
        "agentic/adapters/mcp/gno.py",
        "The `gno` executable of the `gno-mcp` adapter (default: the first `gno` on `PATH`).",
    ),
    Variable(
        "AGENTIC_ISOLATION",
        "read",
        "agentic/adapters/sandbox.py",
        f"How backend children are sandboxed: {', '.join(ISOLATION_CHOICES)}. `auto` (the "
        "default) uses bubblewrap when `bwrap` works here; `bubblewrap` requires it (a lane "
        "with a process backend refuses to start without it; CI sets this); `none` never "
        "uses it ([Sandbox](backends.md#sandbox)).",
    ),
    Variable(
        "AGENTIC_KEY_FILE",
        "read",
        "agentic/lane/journal.py",
        "The run key that seals journals and shards, as `--key-file` gives it (default: a key "
        "the kit creates in the state dir; [the run's key](scaling.md#the-runs-key)).",
    ),
    Variable(
        "AGENTIC_MAX_INPUT_BYTES",
        "read",
        "agentic/contract/files.py",
        f"The input cap: a larger input file is refused before it is read (default "
        f"{DEFAULT_MAX_INPUT_BYTES} bytes, {DEFAULT_MAX_INPUT_BYTES // _MIB} MiB).",
    ),
    Variable(
        "AGENTIC_MODEL_PATH",
        "read",
        "agentic/locks.py",
        "The local model's GGUF file (default: the file in the installed package the lock "
        "names). It must be the exact pinned file: size and sha256 are checked before it loads.",
    ),
    Variable(
        "AGENTIC_MODEL_THREADS",
        "read",
        "agentic/locks.py",
        f"llama.cpp threads of the local model, 1 to {MAX_THREADS} (default: the lock's). "
        "Threads change speed, not results.",
    ),
    Variable(
        "AGENTIC_QMD_HOME",
        "read",
        "agentic/adapters/qmd/install.py",
        "Where `agentic qmd setup` installs Node 22 and qmd, and where the qmd adapters find "
        "them (default: `.cache/qmd` in the checkout).",
    ),
    Variable(
        "HOME",
        "read",
        "agentic/lane/journal.py",
        "The state dir's fallback (`~/.local/state`) when `XDG_STATE_HOME` is unset or relative. "
        "Backend children get a HOME of their own under their run root.",
    ),
    Variable(
        "LANG",
        "passed",
        "agentic/adapters/mcp/process.py",
        "Passed on to backend children.",
    ),
    Variable(
        "LC_ALL",
        "passed",
        "agentic/adapters/mcp/process.py",
        "Passed on to backend children.",
    ),
    Variable(
        "PATH",
        "passed",
        "agentic/adapters/mcp/process.py",
        "Passed on to backend children (the qmd adapters put their Node first).",
    ),
    Variable(
        "QMD_MODEL_CACHE",
        "read",
        "agentic/adapters/qmd/models.py",
        "The folder with the three pinned GGUF models of the full `qmd` adapter (verified, "
        "read-only). Required by that adapter only; `qmd-lex` needs no model.",
    ),
    Variable(
        "RAY_ADDRESS",
        "read",
        "agentic/lane/executors/ray_tasks.py",
        "The Ray cluster of `--executor ray` when `--ray-address` is not given (else a cluster "
        "started on this machine).",
    ),
    Variable(
        "SSL_CERT_FILE",
        "read",
        "containers/pipeline.py",
        "The host's CA bundle, which `nox -s container` passes to the image build as a secret "
        "(never baked into a layer) for pip and npm behind a TLS-intercepting proxy; else the "
        "first of the usual system bundles that exists.",
    ),
    Variable(
        "SYSTEMROOT",
        "passed",
        "agentic/adapters/mcp/process.py",
        "Passed on to backend children.",
    ),
    Variable(
        "TZ",
        "passed",
        "agentic/adapters/mcp/process.py",
        "Passed on to backend children.",
    ),
    Variable(
        "XDG_STATE_HOME",
        "read",
        "agentic/lane/journal.py",
        "The state dir: run keys live in `$XDG_STATE_HOME/agentic/keys/` (an absolute path; "
        "else `~/.local/state/agentic/keys/`).",
    ),
    *(
        Variable(
            name,
            "set",
            "agentic/locks.py",
            f"Set to `{value}` before a local model loads, so no model library reaches the "
            "network.",
        )
        for name, value in sorted(OFFLINE_ENVIRONMENT.items())
    ),
)

# Read by the kit under a name a config gives, not a fixed one.
CONFIGURED: tuple[tuple[str, str], ...] = (
    (
        "api_key_env",
        "an openai-chat agent config names the variable holding its endpoint's key "
        "(`OPENAI_API_KEY` in the examples); the key is never written "
        "([agents.md](agents.md#an-openai-compatible-endpoint))",
    ),
    (
        "env, secret_env",
        "a backend config sets its server's variables; those named in `secret_env` are never "
        "written or printed ([backends.md](backends.md#the-server-and-its-folders))",
    ),
)
