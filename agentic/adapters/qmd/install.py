"""The qmd install: Node 22 and qmd from the npm registry, pinned by the committed npm lock.

Layout: ``<home>/install`` holds a copy of the committed ``package.json`` and
``package-lock.json`` plus the ``node_modules`` that ``npm ci`` built from them (with
``--ignore-scripts``: every native module qmd needs ships prebuilt inside its registry package,
so nothing runs or downloads at install time). ``<home>`` is ``$AGENTIC_QMD_HOME``, else
``.cache/qmd`` in the source checkout. A new install is built in a staging folder, verified, and
swapped in by rename, so a half-finished install is never taken for a complete one.

``verify_install`` is the preflight every qmd lane runs; error codes (ContractError):
``qmd_not_installed``, ``qmd_install_stale``, ``qmd_node_missing``, ``qmd_node_unsupported``,
``qmd_node_version_mismatch``, ``qmd_version_mismatch``, ``qmd_install_failed``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters.qmd.lockfile import QmdLock, check_npm_inputs
from agentic.adapters.qmd.proc import run_bounded
from agentic.contract.canonical import sha256_hex
from agentic.contract.errors import ContractError
from agentic.resources import locks_dir, repo_root

HOME_ENV = "AGENTIC_QMD_HOME"
INSTALL_DIR = "install"
VERSION_TIMEOUT_S = 15.0
_NODE_VERSION = re.compile(r"^v([0-9]+)\.([0-9]+)\.([0-9]+)$")


@dataclass(frozen=True)
class QmdInstall:
    """A verified install: run qmd as ``node entry ...``."""

    root: Path
    node: Path
    entry: Path
    node_version: str
    qmd_version: str

    def argv(self, *args: str) -> tuple[str, ...]:
        return (str(self.node), str(self.entry), *args)


def qmd_home(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    explicit = env.get(HOME_ENV, "")
    if explicit:
        return Path(explicit)
    root = repo_root()
    if root is None:
        raise ContractError("qmd_not_installed", f"set {HOME_ENV} to the qmd install folder")
    return root / ".cache" / "qmd"


def node_path(root: Path, lock: QmdLock) -> Path:
    return root / "node_modules" / lock.node.package / "bin" / "node"


def qmd_package_dir(root: Path, lock: QmdLock) -> Path:
    return root / "node_modules" / lock.qmd.package


def parse_node_version(text: str) -> tuple[int, int, int]:
    match = _NODE_VERSION.match(text.strip())
    if match is None:
        raise ContractError("qmd_node_unsupported", f"unrecognized node version {text.strip()!r}")
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def check_node(node: Path, lock: QmdLock) -> str:
    """The node binary's version, which must be the locked one (and at least the minimum)."""
    if not node.is_file():
        raise ContractError("qmd_node_missing", f"no node binary at {node}; run 'nox -s qmd-setup'")
    done = run_bounded(
        [str(node), "--version"],
        env={"PATH": os.defpath},
        cwd=node.parent,
        timeout_s=VERSION_TIMEOUT_S,
        code="qmd_node_missing",
    )
    if done.returncode != 0:
        raise ContractError("qmd_node_missing", f"{node} --version failed: {done.tail()}")
    version = done.stdout.strip()
    major, _, _ = parse_node_version(version)
    if major < lock.node.minimumMajor:
        raise ContractError(
            "qmd_node_unsupported",
            f"qmd needs node >= {lock.node.minimumMajor}, {node} is {version}",
        )
    if version != f"v{lock.node.version}":
        raise ContractError(
            "qmd_node_version_mismatch", f"{node} is {version}, the lock pins v{lock.node.version}"
        )
    return version


def check_qmd_package(root: Path, lock: QmdLock) -> tuple[str, Path]:
    """The installed qmd version (which must be the locked one) and its CLI entry point."""
    package_dir = qmd_package_dir(root, lock)
    try:
        manifest = json.loads((package_dir / "package.json").read_bytes())
    except (OSError, ValueError):
        raise ContractError(
            "qmd_not_installed", f"no {lock.qmd.package} in {root}; run 'nox -s qmd-setup'"
        ) from None
    version = manifest.get("version") if isinstance(manifest, dict) else None
    if version != lock.qmd.version:
        raise ContractError(
            "qmd_version_mismatch",
            f"{lock.qmd.package} is {version!r} in {root}, the lock pins {lock.qmd.version}",
        )
    entry = package_dir / lock.qmd.entry
    if not entry.is_file():
        raise ContractError("qmd_not_installed", f"{lock.qmd.package} has no {lock.qmd.entry}")
    return str(version), entry


def verify_install(lock: QmdLock, home: Path) -> QmdInstall:
    """Preflight: the install under ``home`` is the locked one, and its node and qmd run."""
    root = home / INSTALL_DIR
    installed_lock = root / "package-lock.json"
    if not installed_lock.is_file():
        raise ContractError(
            "qmd_not_installed", f"no qmd install in {home}; run 'nox -s qmd-setup'"
        )
    if sha256_hex(installed_lock.read_bytes()) != lock.npm.packageLock.sha256:
        raise ContractError(
            "qmd_install_stale",
            f"the install in {home} was built from another package-lock; run 'nox -s qmd-setup'",
        )
    node_version = check_node(node_path(root, lock), lock)
    qmd_version, entry = check_qmd_package(root, lock)
    return QmdInstall(
        root=root,
        node=node_path(root, lock),
        entry=entry,
        node_version=node_version,
        qmd_version=qmd_version,
    )


def install_from_lock(
    lock: QmdLock, home: Path, *, npm: str, timeout_s: float, environ: Mapping[str, str]
) -> QmdInstall:
    """Build ``<home>/install`` with ``npm ci`` from the committed lock, verify it, swap it in."""
    check_npm_inputs(lock)
    home.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".stage-", dir=home))
    try:
        for pin in (lock.npm.packageJson, lock.npm.packageLock):
            shutil.copyfile(locks_dir() / pin.path, stage / Path(pin.path).name)
        env = dict(environ)
        env.update(
            {
                "npm_config_cache": str(home / "npm-cache"),
                "npm_config_update_notifier": "false",
                "npm_config_fund": "false",
                "npm_config_audit": "false",
            }
        )
        done = run_bounded(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
            env=env,
            cwd=stage,
            timeout_s=timeout_s,
            code="qmd_install_failed",
        )
        if done.returncode != 0:
            raise ContractError("qmd_install_failed", f"npm ci failed: {done.tail()}")
        check_node(node_path(stage, lock), lock)
        check_qmd_package(stage, lock)
        _swap(stage, home / INSTALL_DIR)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return verify_install(lock, home)


def _swap(stage: Path, target: Path) -> None:
    """Replace ``target`` by ``stage``: two renames, the old tree removed afterwards."""
    previous = target.with_name(f".previous-{os.getpid()}")
    if target.exists():
        target.rename(previous)
    try:
        stage.rename(target)
    except OSError:
        if previous.exists():
            previous.rename(target)
        raise
    shutil.rmtree(previous, ignore_errors=True)
