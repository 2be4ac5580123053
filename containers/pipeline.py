"""``nox -s container``: build the image twice, rerun the lanes inside, compare, clean up.

Steps, each failing closed with one line (exit 2):
1. an engine: podman with a private store (installed from Debian's packages when missing and we
   are root), or docker when asked for; a probe proves it actually runs;
2. a base: the Dockerfile's digest-pinned default, or (``--base debootstrap``, the default here,
   where no registry is reachable) one built from Debian packages and cached as a tarball;
3. two builds of the same context: the second must produce the same image id (every layer
   reused), and both are timed;
4. the authoritative lane on the host and inside the image (no network, output bind-mounted):
   same exit code and ``resultsFingerprint``; for the bundled fixture both runs are
   ``agentic verify`` against the committed baseline (mounted read-only into the image), else
   ``agentic run``; the report inside must carry the build's git commit and dirty flag;
5. the smoke lanes this kit has (qmd-lex, local-model) inside the image: they must complete;
   where a committed baseline exists (bundled fixture) ``agentic verify`` holds them to it:
   qmd-lex reruns to its ``resultsFingerprint``, and the local-model subset's receipts must
   equal the committed lane's receipts of the same pairs (``--smoke``; not compared, and said
   so, when the image's llama.cpp build differs from the committed lane's);
6. the committed LLM lane (bundled fixture): its committed cache and agent config are mounted
   read-only and rerun from inside the image (no network, no endpoint, no key); every receipt
   must equal the committed baseline's (``baselines/optional/openai-smollm2``);
7. figures (build cold/warm, image size, lane wall time inside vs host) to
   ``.cache/container/last-run/summary.json`` beside the copied-out artifacts.
Whatever the outcome, every container, image, store and scratch folder it created is removed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, NoReturn

from containers import base as debian_base
from containers import engine as eng
from containers.errors import ContainerError, last_line

# Named lanes of the kit's catalog (`agentic run --lane NAME`); each lane's folder under
# baselines/ is its name.
AUTHORITATIVE_LANE = "fixture-agent"
QMD_LEX_LANE = "optional/qmd-lex"
LOCAL_MODEL_LANE = "optional/local-model"
VERIFIABLE_LANES = (AUTHORITATIVE_LANE, QMD_LEX_LANE, LOCAL_MODEL_LANE)
BASELINES = Path("baselines")
# A recorded openai-chat lane: its baseline, the cache it reruns from and the agent config.
LLM_LANE = "optional/openai-smollm2"
LLM_CACHE = BASELINES / "llm-cache" / "smollm2-endpoint"
LLM_CONFIG = Path("examples/agents/llama-server.toml")
IMAGE_LLM = "/llm"
BASELINE_FILES = ("canonical.json", "report.json")  # what `agentic verify` reads of a lane
CACHE = Path(".cache/container")
LAST_RUN = "last-run"
IMAGE_REPOSITORY = "localhost/agentic-kit"
CA_BUNDLE_CANDIDATES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt")
BUILD_TIMEOUT_S = 3600.0
LANE_TIMEOUT_S = 1800.0
GIT_TIMEOUT_S = 30.0
IMAGE_OUT = "/out"
IMAGE_FIXTURE = "/fixture"
IMAGE_BASELINES = "/baselines"
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}

BaseChoice = Literal["debootstrap", "pinned"]


@dataclass(frozen=True)
class Options:
    fixture: Path | None
    base: BaseChoice
    keep_store: bool


@dataclass(frozen=True)
class Rerun:
    """One rerun of a lane, or of a subset of one: ``agentic verify ARGS`` against the committed
    baselines when ``verify`` (exit 1: it did not reproduce them), else ``agentic run ARGS``,
    which only has to complete. ``args`` exclude --fixture, --baselines, --out, --summary and
    --quiet."""

    name: str
    args: tuple[str, ...]
    verify: bool = False


@dataclass(frozen=True)
class RerunResult:
    exit_code: int
    seconds: float
    out: Path

    def canonical(self) -> dict[str, Any]:
        return read_json(self.out / "canonical.json")

    def report(self) -> dict[str, Any]:
        return read_json(self.out / "report.json")

    def verdict(self) -> dict[str, Any] | None:
        """What `agentic verify --summary` wrote of the lane; None for a run (or a verify that
        stopped with exit 2 before judging)."""
        path = summary_path(self.out)
        if not path.is_file():
            return None
        lanes = read_json(path).get("lanes")
        if not isinstance(lanes, list) or len(lanes) != 1 or not isinstance(lanes[0], dict):
            raise ContainerError("report_unreadable", f"{path}: not the summary of one lane")
        verdict: dict[str, Any] = lanes[0]
        return verdict


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ContainerError("invalid_option", message)


def parse_options(argv: Sequence[str]) -> Options:
    parser = _Parser(prog="python -m containers", description=__doc__)
    parser.add_argument(
        "--fixture", type=Path, default=None, help="run this fixture, not the bundled one"
    )
    parser.add_argument("--base", choices=("debootstrap", "pinned"), default="debootstrap")
    parser.add_argument(
        "--keep-store", action="store_true", help="keep podman's store in .cache/container/store"
    )
    args = parser.parse_args(list(argv))
    fixture: Path | None = args.fixture
    if fixture is not None and not fixture.is_dir():
        raise ContainerError("invalid_option", f"--fixture {fixture}: not a folder")
    return Options(
        fixture=None if fixture is None else fixture.resolve(),
        base=args.base,
        keep_store=args.keep_store,
    )


# --- small pure helpers -------------------------------------------------------------------------


def read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise ContainerError("report_unreadable", f"{path}: {exc}") from None
    if not isinstance(value, dict):
        raise ContainerError("report_unreadable", f"{path}: not a JSON object")
    return value


def results_fingerprint(canonical: Mapping[str, Any], source: str) -> str:
    value = canonical.get("resultsFingerprint")
    if not isinstance(value, str):
        raise ContainerError("report_unreadable", f"{source}: no resultsFingerprint")
    return value


def require_same(label: str, expected: str, actual: str, code: str) -> None:
    if expected != actual:
        raise ContainerError(code, f"{label}: expected {expected}, the image gave {actual}")


def build_metadata(commit: str | None, dirty: bool | None) -> dict[str, str]:
    """Build arguments recorded in the image; both or neither (environment.py reads them)."""
    if commit is None or dirty is None:
        return {}
    return {"AGENTIC_BUILD_COMMIT": commit, "AGENTIC_BUILD_DIRTY": "true" if dirty else "false"}


def check_provenance(report: Mapping[str, Any], commit: str | None, dirty: bool | None) -> None:
    """The report written inside the image names the commit the image was built from."""
    if commit is None:
        return
    git = report.get("environment", {}).get("git", {})
    recorded = (git.get("commit"), git.get("dirty"))
    if recorded != (commit, dirty):
        raise ContainerError(
            "provenance_mismatch",
            f"report inside the image records git {recorded}, the build was {(commit, dirty)}",
        )


def image_tag(commit: str | None) -> str:
    return f"{IMAGE_REPOSITORY}:{commit[:12] if commit else 'dev'}"


def ca_bundle(environ: Mapping[str, str]) -> Path | None:
    """The host's CA bundle, passed to the build as a secret (a TLS-intercepting proxy needs it)."""
    for candidate in (environ.get("SSL_CERT_FILE", ""), *CA_BUNDLE_CANDIDATES):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def committed_lanes(root: Path, fixture: Path | None) -> frozenset[str]:
    """The lanes with a committed baseline to verify against: none for another fixture (the
    baselines measured the bundled one)."""
    if fixture is not None:
        return frozenset()
    return frozenset(
        lane
        for lane in VERIFIABLE_LANES
        if all((root / BASELINES / lane / name).is_file() for name in BASELINE_FILES)
    )


def require_authoritative_baseline(committed: frozenset[str], fixture: Path | None) -> None:
    """The bundled fixture's run is held to its committed baseline: fail before any build."""
    if fixture is None and AUTHORITATIVE_LANE not in committed:
        raise ContainerError(
            "baseline_missing",
            f"{BASELINES / AUTHORITATIVE_LANE} has no committed baseline; run 'nox -s baseline'",
        )


def authoritative_lane(committed: frozenset[str]) -> Rerun:
    if AUTHORITATIVE_LANE in committed:
        return Rerun("authoritative", (AUTHORITATIVE_LANE,), verify=True)
    return Rerun("authoritative", ("--lane", AUTHORITATIVE_LANE))


def smoke_lanes(
    adapter_ids: Sequence[str],
    has_local_model: bool,
    first_task: str,
    committed: frozenset[str] = frozenset(),
) -> tuple[Rerun, ...]:
    """The smoke lanes this kit version has: real qmd over MCP (its optional lane), and the
    local model on one task, cold. Each verifies against its committed lane when there is one."""
    lanes: list[Rerun] = []
    if "qmd-lex" in adapter_ids:
        if QMD_LEX_LANE in committed:
            lanes.append(Rerun("qmd-lex", (QMD_LEX_LANE,), verify=True))
        else:
            lanes.append(Rerun("qmd-lex", ("--lane", QMD_LEX_LANE)))
    if has_local_model:
        subset = ("--adapter", "lexical", "--lifecycle", "cold", "--task", first_task)
        if LOCAL_MODEL_LANE in committed:
            # One run (the host's nox session checks repeatability); the image may build
            # llama.cpp with other CPU flags, whose text the committed receipts cannot hold.
            smoke = ("--smoke", *subset, "--repeats", "1", "--allow-other-build")
            lanes.append(Rerun("local-model", (LOCAL_MODEL_LANE, *smoke), verify=True))
        else:
            run = ("--agent", "local-model", *subset, "--promote", "none")
            lanes.append(Rerun("local-model", run))
    return tuple(lanes)


def summary_path(out: Path) -> Path:
    """Where `agentic verify --summary` writes beside a lane's output folder."""
    return out.parent / f"{out.name}.verify.json"


def lane_command(
    lane: Rerun, *, fixture: str | None, out: str, baselines: str | None = None
) -> list[str]:
    if lane.verify:
        if baselines is None:
            raise ContainerError("baseline_missing", f"{lane.name}: verify needs the baselines")
        summary = str(summary_path(Path(out)))
        return [
            "verify",
            *lane.args,
            "--baselines",
            baselines,
            "--out",
            out,
            "--summary",
            summary,
            "--quiet",
        ]
    fixture_args = ["--fixture", fixture] if fixture is not None else []
    return ["run", *lane.args, *fixture_args, "--out", out, "--quiet"]


# --- the kit on the host ------------------------------------------------------------------------


def host_git(root: Path) -> tuple[str | None, bool | None]:
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args],
                capture_output=True,
                text=True,
                timeout=GIT_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    head, status = git("rev-parse", "HEAD"), git("status", "--porcelain")
    if head is None or status is None:
        return None, None
    return head.strip(), bool(status.strip())


def kit_facts(fixture: Path | None) -> tuple[tuple[str, ...], bool, str]:
    """Adapter ids, whether the local-model agent exists, and the fixture's first task id."""
    from agentic.catalog.load import builtin_catalog
    from agentic.fixture.loader import load_fixture
    from agentic.resources import default_fixture_dir

    loaded = load_fixture(fixture or default_fixture_dir())
    first = sorted(task.taskId for task in loaded.tasks)[0]
    catalog = builtin_catalog()
    has_local_model = "local-model" in catalog.agents and (
        importlib.util.find_spec("agentic.agents.local_model") is not None
    )
    return catalog.adapter_ids, has_local_model, first


def timed(action: Callable[[], int]) -> tuple[int, float]:
    started = time.monotonic()
    code = action()
    return code, time.monotonic() - started


def run_host_lane(
    lane: Rerun, fixture: Path | None, out: Path, environ: Mapping[str, str], root: Path
) -> RerunResult:
    command = lane_command(
        lane,
        fixture=None if fixture is None else str(fixture),
        out=str(out),
        baselines=str(root / BASELINES),
    )
    argv = [sys.executable, "-m", "agentic", *command]
    env = {**environ, **OFFLINE}
    code, seconds = timed(
        lambda: eng.run_streamed(
            argv,
            env=env,
            timeout_s=LANE_TIMEOUT_S,
            code="host_lane_failed",
            discard_stdout=not lane.verify,  # a run prints its report.md; verify its verdicts
        )
    )
    return RerunResult(exit_code=code, seconds=seconds, out=out)


# --- the image ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Session:
    engine: eng.Engine
    root: Path
    scratch: Path
    user: tuple[str, ...]


def capture(session: Session, args: Sequence[str], code: str) -> str:
    done = eng.run_captured(
        session.engine.argv(*args), env=session.engine.env, timeout_s=BUILD_TIMEOUT_S, code=code
    )
    return done.stdout.strip()


def build(session: Session, tag: str, build_args: Mapping[str, str], secret: Path | None) -> float:
    argv = session.engine.argv(
        *eng.build_args(
            kind=session.engine.kind,
            tag=tag,
            dockerfile=session.root / "Dockerfile",
            context=session.root,
            build_args=build_args,
            secret=secret,
        )
    )
    code, seconds = timed(
        lambda: eng.run_streamed(
            argv, env=session.engine.env, timeout_s=BUILD_TIMEOUT_S, code="build_failed"
        )
    )
    if code != 0:
        raise ContainerError("build_failed", f"{session.engine.kind} build exited {code}")
    return seconds


def run_image_lane(
    session: Session,
    stack: ExitStack,
    image: str,
    lane: Rerun,
    inputs: tuple[Path | None, Path | None],
    *,
    extra_mounts: Sequence[eng.Mount] = (),
) -> RerunResult:
    """``inputs``: the staged fixture (None: the bundled one) and the staged baselines."""
    fixture, baselines = inputs
    out = Path(tempfile.mkdtemp(prefix=f"out-{lane.name}-", dir=session.scratch))
    if not session.user:
        out.chmod(0o777)  # the image's own user (uid 10001) writes the report here
    mounts = [eng.Mount(out, IMAGE_OUT, read_only=False), *extra_mounts]
    if fixture is not None:
        mounts.append(eng.Mount(fixture, IMAGE_FIXTURE, read_only=True))
    if lane.verify and baselines is not None:
        mounts.append(eng.Mount(baselines, IMAGE_BASELINES, read_only=True))
    name = f"agentic-{lane.name}-{os.getpid()}"
    command = lane_command(
        lane,
        fixture=None if fixture is None else IMAGE_FIXTURE,
        out=f"{IMAGE_OUT}/{lane.name}",
        baselines=IMAGE_BASELINES,
    )
    argv = session.engine.argv(
        *eng.run_args(image=image, name=name, mounts=mounts, user=session.user, command=command)
    )
    stack.callback(remove_quietly, session.engine, eng.remove_container_args(name))
    code, seconds = timed(
        lambda: eng.run_streamed(
            argv,
            env=session.engine.env,
            timeout_s=LANE_TIMEOUT_S,
            code="image_lane_failed",
            discard_stdout=not lane.verify,
        )
    )
    return RerunResult(exit_code=code, seconds=seconds, out=out / lane.name)


def remove_quietly(engine: eng.Engine, args: Sequence[str]) -> None:
    """Cleanup that must not hide the error that got us here; a leftover is reported, not raised."""
    try:
        done = subprocess.run(
            engine.argv(*args),
            env=dict(engine.env),
            capture_output=True,
            text=True,
            timeout=eng.PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"container: cleanup '{' '.join(args[:2])}' failed: {exc}", file=sys.stderr)
        return
    if done.returncode != 0 and "no such" not in done.stderr.lower():
        print(
            f"container: cleanup '{' '.join(args[:2])}': {last_line(done.stderr)}", file=sys.stderr
        )


def delete_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    if folder.exists():
        print(f"container: could not delete {folder}", file=sys.stderr)


# --- steps --------------------------------------------------------------------------------------


def open_engine(
    options: Options, environ: Mapping[str, str], stack: ExitStack, root: Path
) -> Session:
    requested = eng.requested_engine(environ)
    tools = ["debootstrap"] if options.base == "debootstrap" else []
    if requested != "docker":
        tools = ["podman", "runc", *tools]
    eng.ensure_tools(tools, which=shutil.which, euid=os.geteuid(), environ=environ)
    kind, program = eng.choose_engine(requested, shutil.which)
    cache = root / CACHE
    cache.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="run-", dir=cache))
    stack.callback(delete_folder, scratch)
    if kind == "podman":
        # Under /tmp, not the scratch folder: a checkout's path can exceed podman's runroot limit.
        if options.keep_store:
            store = cache / "store"
            runroot = eng.kept_runroot(store)
            runroot.mkdir(mode=0o700, exist_ok=True)
        else:
            store = scratch / "podman"
            runroot = Path(tempfile.mkdtemp(prefix="agentic-podman-", dir="/tmp"))
        stack.callback(delete_folder, runroot)
        engine = eng.podman_engine(program, eng.PodmanStore(store, runroot), environ)
        if not options.keep_store:
            stack.callback(remove_quietly, engine, eng.reset_args())
    else:
        engine = eng.docker_engine(program, environ)
    user = tuple(eng.user_args(kind, os.geteuid(), os.getegid()))
    return Session(engine=engine, root=root, scratch=scratch, user=user)


def prepare_base(
    session: Session,
    options: Options,
    stack: ExitStack,
    environ: Mapping[str, str],
    figures: dict[str, Any],
) -> dict[str, str]:
    """The BASE_IMAGE build argument: none for the pinned default, else the imported local base."""
    if options.base == "pinned":
        figures["base"] = {"kind": "pinned"}
        return {}
    arch = capture_plain(["dpkg", "--print-architecture"], environ)
    spec = debian_base.base_spec(environ, arch)
    cache = session.root / CACHE
    tarball = debian_base.cached_tarball(spec, cache)
    built_seconds: float | None = None
    if tarball is None:
        started = time.monotonic()
        tarball = debian_base.build_tarball(spec, cache, environ)
        built_seconds = round(time.monotonic() - started, 1)
    image = spec.image()
    if session.engine.kind == "docker":
        stack.callback(remove_quietly, session.engine, eng.remove_image_args([image]))
    started = time.monotonic()
    capture(session, eng.import_args(tarball, image), "base_import_failed")
    figures["base"] = {
        "kind": "debootstrap",
        "image": image,
        "tarball": tarball.name,
        "tarballBytes": tarball.stat().st_size,
        "tarballBuildSeconds": built_seconds,  # None: taken from the cache
        "importSeconds": round(time.monotonic() - started, 1),
    }
    return {"BASE_IMAGE": image}


def capture_plain(argv: Sequence[str], environ: Mapping[str, str]) -> str:
    done = eng.run_captured(argv, env=environ, timeout_s=GIT_TIMEOUT_S, code="host_tool_failed")
    return done.stdout.strip()


def build_twice(
    session: Session,
    stack: ExitStack,
    build_args: Mapping[str, str],
    tag: str,
    figures: dict[str, Any],
) -> None:
    """Cold then warm build of the same context; the warm one must reuse every layer."""
    if session.engine.kind == "docker":
        stack.callback(remove_quietly, session.engine, eng.remove_image_args([tag]))
    secret = ca_bundle(session.engine.env)
    cold = build(session, tag, build_args, secret)
    first = capture(session, eng.inspect_args(tag, "Id"), "inspect_failed")
    warm = build(session, tag, build_args, secret)
    second = capture(session, eng.inspect_args(tag, "Id"), "inspect_failed")
    if first != second:
        raise ContainerError(
            "layer_reuse_failed", f"an unchanged rebuild gave image {second}, not {first}"
        )
    size = int(capture(session, eng.inspect_args(tag, "Size"), "inspect_failed"))
    figures["build"] = {
        "image": tag,
        "imageId": first,
        "coldSeconds": round(cold, 1),
        "warmSeconds": round(warm, 1),
        "imageSizeBytes": size,
    }


@dataclass(frozen=True)
class Inputs:
    """What every lane reads: the (staged) fixture, None for the bundled one; the lanes with a
    committed baseline, and the world-readable copy of their folders the image mounts."""

    fixture: Path | None
    committed: frozenset[str]
    baselines: Path | None

    @property
    def for_image(self) -> tuple[Path | None, Path | None]:
        return self.fixture, self.baselines


def authoritative(
    session: Session,
    stack: ExitStack,
    *,
    tag: str,
    inputs: Inputs,
    metadata: tuple[str | None, bool | None],
    figures: dict[str, Any],
) -> None:
    lane = authoritative_lane(inputs.committed)
    host_out = Path(tempfile.mkdtemp(prefix="host-", dir=session.scratch)) / lane.name
    host = run_host_lane(lane, inputs.fixture, host_out, session.engine.env, session.root)
    inside = run_image_lane(session, stack, tag, lane, inputs.for_image)
    copy_out(session.root, inside.out, lane.name)
    if host.exit_code not in (0, 1) or inside.exit_code not in (0, 1):
        raise ContainerError(
            "lane_failed",
            f"authoritative lane exited {inside.exit_code} inside, {host.exit_code} on the host"
            f"{first_harness_error(inside.out / 'report.json')}",
        )
    host_fp = results_fingerprint(host.canonical(), "host run")
    inside_fp = results_fingerprint(inside.canonical(), "container run")
    require_same("resultsFingerprint vs the host run", host_fp, inside_fp, "fingerprint_mismatch")
    if inside.exit_code != host.exit_code:
        raise ContainerError(
            "lane_failed",
            f"authoritative lane exited {inside.exit_code} inside, {host.exit_code} on the host",
        )
    if lane.verify:
        require_verified(lane, inside)
    else:
        print("container: --fixture given: compared with the host run only", file=sys.stderr)
    check_provenance(inside.report(), *metadata)
    figures["lane"] = {
        "lane": AUTHORITATIVE_LANE,
        "exitCode": inside.exit_code,
        "hostSeconds": round(host.seconds, 2),
        "containerSeconds": round(inside.seconds, 2),
        "ratio": round(inside.seconds / host.seconds, 2),
        "resultsFingerprint": inside_fp,
        "baselineCompared": lane.verify,
    }


def require_verified(lane: Rerun, result: RerunResult) -> None:
    """`agentic verify`'s verdict on a lane, as the pipeline's one-line error when it failed."""
    verdict = result.verdict()
    if verdict is None:
        raise ContainerError("lane_failed", f"{lane.name}: agentic verify wrote no summary")
    if verdict.get("passed") is True:
        return
    code = "receipts_mismatch" if verdict.get("mode") == "smoke" else "fingerprint_mismatch"
    problems = [str(p) for p in verdict.get("problems") or ["not reproduced"]]
    details = verdict.get("details") or []
    first = f", first {details[0]}" if details else ""  # the pair to look at, on one line
    raise ContainerError(code, f"{lane.name}: {'; '.join(problems)}{first}")


def smoke_figures(lane: Rerun, result: RerunResult) -> dict[str, Any]:
    figures: dict[str, Any] = {
        "lane": lane.name,
        "exitCode": result.exit_code,
        "seconds": round(result.seconds, 2),
        "resultsFingerprint": results_fingerprint(result.canonical(), lane.name),
        "baselineCompared": lane.verify,
    }
    verdict = result.verdict() if lane.verify else None
    if verdict is not None and verdict.get("mode") == "smoke":
        figures["pairsCompared"] = verdict.get("receiptsCompared") is not None
        if verdict.get("receiptsNotCompared") is not None:
            figures["pairsNotCompared"] = verdict["receiptsNotCompared"]
    return figures


def smoke(
    session: Session, stack: ExitStack, tag: str, inputs: Inputs, figures: dict[str, Any]
) -> None:
    adapter_ids, has_local_model, first_task = kit_facts(inputs.fixture)
    results: list[dict[str, Any]] = []
    figures["smoke"] = results
    for lane in smoke_lanes(adapter_ids, has_local_model, first_task, inputs.committed):
        result = run_image_lane(session, stack, tag, lane, inputs.for_image)
        copy_out(session.root, result.out, lane.name)
        # Exit 1 of a verify is a verdict (judged below); anything else is a lane that failed.
        if result.exit_code != 0 and not (lane.verify and result.exit_code == 1):
            reason = first_harness_error(result.out / "report.json")
            results.append({"lane": lane.name, "exitCode": result.exit_code})
            raise ContainerError(
                "smoke_lane_failed", f"{lane.name} exited {result.exit_code} inside{reason}"
            )
        results.append(smoke_figures(lane, result))
        if lane.verify:
            require_verified(lane, result)


def llm_lane_committed(root: Path, fixture: Path | None) -> bool:
    """Whether this checkout has the recorded LLM lane: its baseline, cache and config."""
    return (
        fixture is None
        and all((root / BASELINES / LLM_LANE / name).is_file() for name in BASELINE_FILES)
        and (root / LLM_CACHE).is_dir()
        and (root / LLM_CONFIG).is_file()
    )


def llm_rerun_lane(report: Mapping[str, Any]) -> Rerun:
    """The committed LLM lane's schedule (its pairs' tasks, adapters and lifecycles), rerun
    from the mounted cache with the mounted config."""
    receipts = [r["canonical"] for r in report["receipts"]]

    def joined(field: str) -> str:
        return ",".join(sorted({str(c[field]) for c in receipts}))

    args = (
        "--agent-config", f"{IMAGE_LLM}/agent.toml",
        "--llm-cache", f"{IMAGE_LLM}/cache", "--llm-cache-mode", "reuse",
        "--adapter", joined("adapterId"), "--lifecycle", joined("lifecycle"),
        "--task", joined("taskId"), "--promote", "none",
    )  # fmt: skip
    return Rerun("llm-rerun", args)


def stage_llm(root: Path, scratch: Path) -> Path:
    target = scratch / "llm"
    shutil.copytree(root / LLM_CACHE, target / "cache")
    shutil.copyfile(root / LLM_CONFIG, target / "agent.toml")
    make_readable(target)
    return target


def receipts_differences(base: Path, new: Path) -> list[str]:
    from agentic.commands.regression import load_report, receipt_differences

    return receipt_differences(load_report(base), load_report(new))


def llm_rerun(session: Session, stack: ExitStack, tag: str, figures: dict[str, Any]) -> None:
    baseline = session.root / BASELINES / LLM_LANE / "report.json"
    lane = llm_rerun_lane(read_json(baseline))
    staged = stage_llm(session.root, session.scratch)
    mount = eng.Mount(staged, IMAGE_LLM, read_only=True)
    result = run_image_lane(session, stack, tag, lane, (None, None), extra_mounts=(mount,))
    copy_out(session.root, result.out, lane.name)
    if result.exit_code != 0:
        raise ContainerError(
            "smoke_lane_failed", f"{lane.name} exited {result.exit_code} inside (LLM cache)"
        )
    differences = receipts_differences(baseline, result.out / "report.json")
    figures["llmRerun"] = {
        "lane": LLM_LANE,
        "seconds": round(result.seconds, 2),
        "pairs": len(read_json(baseline)["receipts"]),
        "receiptsDiffering": len(differences),
    }
    if differences:
        raise ContainerError("receipts_mismatch", f"{lane.name}: {differences[0]}")


def stage_baselines(root: Path, committed: frozenset[str], scratch: Path) -> Path | None:
    """A world-readable copy of the committed lanes' baseline files, for the image's user."""
    if not committed:
        return None
    target = scratch / "baselines"
    for lane in sorted(committed):
        folder = target / lane
        folder.mkdir(parents=True, exist_ok=True)
        for name in BASELINE_FILES:
            shutil.copyfile(root / BASELINES / lane / name, folder / name)
    make_readable(target)
    return target


def stage_fixture(fixture: Path, scratch: Path) -> Path:
    """A private, world-readable copy that both runs read: the image's user can read it whatever
    the source's modes (atomic writers leave 0600 files), and edits to the source during the run
    change neither run."""
    target = scratch / "fixture"
    shutil.copytree(fixture, target, symlinks=False)
    make_readable(target)
    return target


def make_readable(target: Path) -> None:
    for folder, _, files in os.walk(target):
        Path(folder).chmod(0o755)
        for name in files:
            (Path(folder) / name).chmod(0o644)


def first_harness_error(report_path: Path) -> str:
    """': <diagnostic>' of the report's first harness error, to say why a lane exited 2."""
    if not report_path.is_file():
        return ""
    for receipt in read_json(report_path).get("receipts", []):
        if receipt.get("canonical", {}).get("failure", {}).get("class") == "harness_error":
            diagnostics = receipt.get("observations", {}).get("diagnostics") or ["(no diagnostic)"]
            return f": {diagnostics[0]}"
    return ""


def copy_out(root: Path, source: Path, name: str) -> None:
    """Keep the image's artifacts for inspection after the scratch folder is gone."""
    target = root / CACHE / LAST_RUN / name
    shutil.rmtree(target, ignore_errors=True)
    if source.is_dir():
        shutil.copytree(source, target)


def write_summary(root: Path, figures: dict[str, Any]) -> Path:
    path = root / CACHE / LAST_RUN / "summary.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def run_pipeline(options: Options, environ: Mapping[str, str], root: Path) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    shutil.rmtree(root / CACHE / LAST_RUN, ignore_errors=True)
    try:
        run_steps(options, environ, root, figures)
    except ContainerError as exc:
        figures["error"] = str(exc)  # what was measured before the failure stays readable
        write_summary(root, figures)
        raise
    print(f"container: summary in {write_summary(root, figures)}")
    return figures


def run_steps(
    options: Options, environ: Mapping[str, str], root: Path, figures: dict[str, Any]
) -> None:
    committed = committed_lanes(root, options.fixture)
    with ExitStack() as stack:
        session = open_engine(options, environ, stack, root)
        require_authoritative_baseline(committed, options.fixture)  # before an hour of builds
        if options.fixture is not None:
            figures["fixture"] = str(options.fixture)
            options = replace(options, fixture=stage_fixture(options.fixture, session.scratch))
        inputs = Inputs(
            fixture=options.fixture,
            committed=committed,
            baselines=stage_baselines(root, committed, session.scratch),
        )
        figures["engine"] = f"{session.engine.kind} {eng.probe(session.engine)}"
        build_args = prepare_base(session, options, stack, environ, figures)
        commit, dirty = host_git(root)
        build_args.update(build_metadata(commit, dirty))
        tag = image_tag(commit)
        build_twice(session, stack, build_args, tag, figures)
        authoritative(
            session, stack, tag=tag, inputs=inputs, metadata=(commit, dirty), figures=figures
        )
        smoke(session, stack, tag, inputs, figures)
        if llm_lane_committed(root, options.fixture):
            llm_rerun(session, stack, tag, figures)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        options = parse_options(sys.argv[1:] if argv is None else argv)
        figures = run_pipeline(options, os.environ, Path.cwd())
    except ContainerError as exc:
        print(f"container: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(figures, indent=2, sort_keys=True))
    return 0
