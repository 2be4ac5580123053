"""A base image from Debian packages, for machines that reach no container registry.

``debootstrap --variant=minbase`` builds a bookworm root with python3 (3.11), python3-venv and
ca-certificates from the Debian mirror; the tarball is cached under ``.cache/container/`` by a key
of everything that shaped it (suite, variant, packages, mirror, architecture), so a rebuild of
the same spec costs one ``import`` instead of two minutes. A fresh tarball is written beside its
final name and renamed into place, so an interrupted run never leaves a half tarball that a later
run would trust. The rootfs keeps apt's package lists: the image's build stages install their
compilers with apt from the same mirror.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from containers.engine import run_captured

DEFAULT_MIRROR = "http://deb.debian.org/debian"
MIRROR_ENV = "AGENTIC_DEBIAN_MIRROR"
BASE_REPOSITORY = "localhost/agentic-base"
DEBOOTSTRAP_TIMEOUT_S = 1200.0
TAR_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class BaseSpec:
    suite: str
    architecture: str
    mirror: str
    variant: str = "minbase"
    packages: tuple[str, ...] = ("python3", "python3-venv", "ca-certificates")

    def key(self) -> str:
        data = json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]

    def tarball_name(self) -> str:
        return f"debootstrap-{self.suite}-{self.architecture}-{self.key()}.tar"

    def image(self) -> str:
        return f"{BASE_REPOSITORY}:{self.suite}-{self.key()}"

    def debootstrap_args(self, rootfs: Path) -> list[str]:
        return [
            "debootstrap",
            f"--variant={self.variant}",
            f"--arch={self.architecture}",
            f"--include={','.join(self.packages)}",
            self.suite,
            str(rootfs),
            self.mirror,
        ]


def base_spec(environ: Mapping[str, str], architecture: str, suite: str = "bookworm") -> BaseSpec:
    mirror = environ.get(MIRROR_ENV) or DEFAULT_MIRROR
    return BaseSpec(suite=suite, architecture=architecture, mirror=mirror)


def cached_tarball(spec: BaseSpec, cache_dir: Path) -> Path | None:
    """The cached tarball for ``spec``, or None when it still has to be built."""
    path = cache_dir / spec.tarball_name()
    return path if path.is_file() else None


def build_tarball(spec: BaseSpec, cache_dir: Path, environ: Mapping[str, str]) -> Path:
    """debootstrap into a scratch folder, tar it beside the final name, rename it into place."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / spec.tarball_name()
    scratch = Path(tempfile.mkdtemp(prefix=".debootstrap-", dir=cache_dir))
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        rootfs = scratch / "rootfs"
        run_captured(
            spec.debootstrap_args(rootfs),
            env=environ,
            timeout_s=DEBOOTSTRAP_TIMEOUT_S,
            code="base_build_failed",
        )
        # The downloaded .debs are installed already; shipping them would only add ~100 MB.
        shutil.rmtree(rootfs / "var" / "cache" / "apt" / "archives", ignore_errors=True)
        (rootfs / "var" / "cache" / "apt" / "archives" / "partial").mkdir(parents=True)
        run_captured(
            ["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(partial), "."],
            env=environ,
            timeout_s=TAR_TIMEOUT_S,
            code="base_build_failed",
        )
        partial.replace(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        partial.unlink(missing_ok=True)
    return target
