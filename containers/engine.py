"""Container engines: which one, how to make it usable here, and the exact commands we send it.

Two engines speak the same command line for everything we need: podman (preferred; Debian
packages it) and docker (used when podman is absent, or when ``AGENTIC_CONTAINER_ENGINE=docker``;
it honours ``DOCKER_HOST``). Builds go through the CLI rather than an API client because build
secrets and cache mounts are CLI-side features of both (BuildKit, buildah).

podman runs against a private store (``--root``/``--tmpdir`` under one folder, ``--runroot`` in a
short temporary folder) with its own containers.conf, so everything it creates, images, layers,
build caches and state, lives in those folders and goes away with ``system reset`` and a
delete. The conf carries the two fixes these machines need: runc instead of crun (crun refuses
a mixed cgroup setup) and default ulimits within the hard limits (no CAP_SYS_RESOURCE to raise
them)."""

from __future__ import annotations

import hashlib
import resource
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from containers.errors import ContainerError, last_line

EngineKind = Literal["podman", "docker"]
ENGINE_ENV = "AGENTIC_CONTAINER_ENGINE"
ENGINES: tuple[EngineKind, ...] = ("podman", "docker")
# The Debian package that provides each tool the pipeline may need.
DEBIAN_PACKAGES: Mapping[str, str] = {
    "podman": "podman",
    "runc": "runc",
    "debootstrap": "debootstrap",
}
NPROC_DEFAULT = 32768
NOFILE_DEFAULT = 1048576
PROBE_TIMEOUT_S = 120.0
INSTALL_TIMEOUT_S = 900.0

Which = Callable[[str], str | None]


@dataclass(frozen=True)
class Engine:
    kind: EngineKind
    program: str
    global_args: tuple[str, ...]
    env: Mapping[str, str]

    def argv(self, *args: str) -> list[str]:
        return [self.program, *self.global_args, *args]


@dataclass(frozen=True)
class PodmanStore:
    """Everything podman writes for this pipeline: one folder, plus the runtime state folder,
    which must be short (podman refuses a runroot path over 50 characters: it holds sockets)."""

    folder: Path
    runroot: Path

    @property
    def root(self) -> Path:
        return self.folder / "storage"

    @property
    def tmp(self) -> Path:
        return self.folder / "tmp"

    @property
    def conf(self) -> Path:
        return self.folder / "containers.conf"


def kept_runroot(store: Path) -> Path:
    """The runroot of a store kept between runs. libpod records the runroot in the store's
    database and refuses another one later, so it must be the same path every run: short (under
    /tmp), and derived from the store's path."""
    digest = hashlib.sha256(str(store.resolve()).encode("utf-8")).hexdigest()[:12]
    return Path("/tmp") / f"agentic-podman-{digest}"


def requested_engine(environ: Mapping[str, str]) -> EngineKind | None:
    value = environ.get(ENGINE_ENV, "")
    if not value:
        return None
    for kind in ENGINES:
        if value == kind:
            return kind
    raise ContainerError(
        "engine_unknown", f"{ENGINE_ENV}={value!r}: expected one of {', '.join(ENGINES)}"
    )


def missing_tools(tools: Sequence[str], which: Which) -> tuple[str, ...]:
    return tuple(tool for tool in tools if which(tool) is None)


def ensure_tools(
    tools: Sequence[str],
    *,
    which: Which,
    euid: int,
    environ: Mapping[str, str],
    timeout_s: float = INSTALL_TIMEOUT_S,
) -> None:
    """Install missing tools from Debian's packages when we may (root, apt-get); else refuse."""
    missing = missing_tools(tools, which)
    if not missing:
        return
    packages = [DEBIAN_PACKAGES[tool] for tool in missing]
    if euid != 0 or which("apt-get") is None:
        raise ContainerError(
            "engine_missing",
            f"{', '.join(missing)} not found; install them (Debian: apt-get install -y "
            f"{' '.join(packages)}) or set {ENGINE_ENV}=docker with a running Docker engine",
        )
    env = {**environ, "DEBIAN_FRONTEND": "noninteractive"}
    for step in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *packages]):
        run_captured(step, env=env, timeout_s=timeout_s, code="engine_install_failed")


def choose_engine(requested: EngineKind | None, which: Which) -> tuple[EngineKind, str]:
    """The requested engine's program, else the first engine found."""
    for kind in (requested,) if requested else ENGINES:
        program = which(kind)
        if program is not None:
            return kind, program
    wanted = requested or " or ".join(ENGINES)
    raise ContainerError(
        "engine_missing", f"no container engine found ({wanted}); install podman or docker"
    )


def _soft_within(hard: int, default: int) -> int:
    return default if hard == resource.RLIM_INFINITY else min(hard, default)


def containers_conf(nofile_hard: int, nproc_hard: int) -> str:
    """podman's configuration for this machine: runc, cgroupfs, file events, ulimits that fit."""
    nofile = _soft_within(nofile_hard, NOFILE_DEFAULT)
    nproc = _soft_within(nproc_hard, NPROC_DEFAULT)
    return (
        "[containers]\n"
        f'default_ulimits = ["nofile={nofile}:{nofile}", "nproc={nproc}:{nproc}"]\n'
        "\n"
        "[engine]\n"
        'runtime = "runc"\n'
        'cgroup_manager = "cgroupfs"\n'
        'events_logger = "file"\n'
    )


def podman_engine(program: str, store: PodmanStore, environ: Mapping[str, str]) -> Engine:
    """podman bound to ``store``; writes the store's containers.conf and folders."""
    for folder in (store.root, store.runroot, store.tmp):
        folder.mkdir(parents=True, exist_ok=True)
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    nproc = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    store.conf.write_text(containers_conf(nofile, nproc), encoding="utf-8")
    # TMPDIR: buildah keeps cache mounts and context copies under it, so it belongs to the store.
    env = {**environ, "CONTAINERS_CONF": str(store.conf), "TMPDIR": str(store.tmp)}
    args = ("--root", str(store.root), "--runroot", str(store.runroot), "--tmpdir", str(store.tmp))
    return Engine(kind="podman", program=program, global_args=args, env=env)


def docker_engine(program: str, environ: Mapping[str, str]) -> Engine:
    # BuildKit is what understands build secrets and cache mounts.
    return Engine(
        kind="docker", program=program, global_args=(), env={**environ, "DOCKER_BUILDKIT": "1"}
    )


def probe_args(kind: EngineKind) -> list[str]:
    """A command that needs a working engine (not only a client) and prints its version."""
    if kind == "podman":
        return ["info", "--format", "{{.Version.Version}}"]
    return ["version", "--format", "{{.Server.Version}}"]


def probe(engine: Engine, timeout_s: float = PROBE_TIMEOUT_S) -> str:
    done = run_captured(
        engine.argv(*probe_args(engine.kind)),
        env=engine.env,
        timeout_s=timeout_s,
        code="engine_unavailable",
    )
    return done.stdout.strip()


# --- commands -----------------------------------------------------------------------------------


def build_args(
    *,
    kind: EngineKind,
    tag: str,
    dockerfile: Path,
    context: Path,
    build_args: Mapping[str, str],
    secret: Path | None,
) -> list[str]:
    """One build. Host networking: build steps reach the registries without a bridge network
    that we would have to create and remove. podman writes Docker-format images because the OCI
    format has no SHELL instruction (the Dockerfile's pipefail would be dropped)."""
    args = ["build", "--force-rm", "--network", "host", "--tag", tag, "--file", str(dockerfile)]
    if kind == "podman":
        args += ["--format", "docker", "--layers"]
    for name in sorted(build_args):
        args += ["--build-arg", f"{name}={build_args[name]}"]
    if secret is not None:
        args += ["--secret", f"id=ca,src={secret}"]
    return [*args, str(context)]


@dataclass(frozen=True)
class Mount:
    source: Path
    target: str
    read_only: bool

    def flag(self) -> str:
        for path in (str(self.source), self.target):
            if ":" in path or "," in path:
                raise ContainerError(
                    "mount_path_invalid", f"cannot bind-mount {path!r}: ':' or ','"
                )
        return f"{self.source}:{self.target}:{'ro' if self.read_only else 'rw'}"


def user_args(kind: EngineKind, euid: int, egid: int) -> list[str]:
    """Root keeps the image's own non-root user. Anyone else runs as themselves, so that the
    files written to a bind mount are theirs (rootless podman needs keep-id for that)."""
    if euid == 0:
        return []
    keep_id = ["--userns", "keep-id"] if kind == "podman" else []
    return [*keep_id, "--user", f"{euid}:{egid}"]


def run_args(
    *,
    image: str,
    name: str,
    mounts: Sequence[Mount],
    user: Sequence[str],
    command: Sequence[str],
) -> list[str]:
    """One lane inside the image, without any network: the kit needs none at run time."""
    args = ["run", "--rm", "--name", name, "--network", "none", *user]
    for mount in mounts:
        args += ["--volume", mount.flag()]
    return [*args, image, *command]


def inspect_args(image: str, field: str) -> list[str]:
    return ["image", "inspect", "--format", "{{." + field + "}}", image]


def import_args(tarball: Path, tag: str) -> list[str]:
    return ["import", str(tarball), tag]


def remove_image_args(images: Sequence[str]) -> list[str]:
    return ["rmi", "--force", *images]


def remove_container_args(name: str) -> list[str]:
    return ["rm", "--force", name]


def reset_args() -> list[str]:
    """podman only: delete every image, container, layer and cache of the private store."""
    return ["system", "reset", "--force"]


# --- processes ----------------------------------------------------------------------------------


def run_captured(
    argv: Sequence[str], *, env: Mapping[str, str], timeout_s: float, code: str
) -> subprocess.CompletedProcess[str]:
    """Run to completion with output captured; a failure is one line naming the command."""
    try:
        done = subprocess.run(
            list(argv),
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except FileNotFoundError:
        raise ContainerError(code, f"{argv[0]} not found") from None
    except subprocess.TimeoutExpired:
        raise ContainerError(
            code, f"{' '.join(argv[:3])} timed out after {timeout_s:.0f} s"
        ) from None
    if done.returncode != 0:
        raise ContainerError(
            code, f"{' '.join(argv[:3])} exited {done.returncode}: {last_line(done.stderr)}"
        )
    return done


def run_streamed(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    timeout_s: float,
    code: str,
    discard_stdout: bool = False,
) -> int:
    """Run with output passed through (long builds should show progress); returns the exit code.
    ``discard_stdout`` drops what a lane prints (its report.md, also written to its folder)."""
    stdout = subprocess.DEVNULL if discard_stdout else None
    try:
        done = subprocess.run(
            list(argv), env=dict(env), stdout=stdout, timeout=timeout_s, check=False
        )
        return done.returncode
    except FileNotFoundError:
        raise ContainerError(code, f"{argv[0]} not found") from None
    except subprocess.TimeoutExpired:
        raise ContainerError(
            code, f"{' '.join(argv[:3])} timed out after {timeout_s:.0f} s"
        ) from None
