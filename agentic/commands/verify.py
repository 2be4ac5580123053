"""``agentic verify LANE [LANE ...]``: do the committed lane baselines still describe this code?

Rerun (the default): each named lane is rerun, into a temporary folder or ``--out``; its
``resultsFingerprint`` must equal the committed ``<baselines>/<lane>/canonical.json``'s, and the
committed report is re-scored with the current scorer (what ``agentic score`` does). Each lane
runs on its own fixture (``LaneEntry.fixture``) unless ``--fixture`` names one, and with
``--jobs``, ``--executor``, ``--ray-address`` and ``--retries`` as ``agentic run`` takes them
(the report is the same bytes for each). ``--shards N`` runs the lane as N shards, one after
another, and merges them (``agentic run --shard K/N`` then ``agentic merge``): the merged
report must reproduce the baseline as well.

Smoke (``--smoke``, one lane): a subset of the lane (``--adapter``, ``--task``, ``--lifecycle``)
is run ``--repeats`` times (default 2). Every run's report must validate, all runs must give one
``resultsFingerprint``, and each receipt must equal the committed lane's receipt of the same
pair (what ``agentic compare --receipts`` checks): a long lane is checked in minutes.
``--allow-other-build`` skips that receipt comparison, and says so, when the run's model
fingerprint (which names the llama.cpp build) is not one the committed lane holds.

One verdict line per lane on stdout (differing pairs are listed above it; nothing with
``--quiet``). Exit 0 when every
lane reproduces its baseline, 1 when one does not, 2 on bad input: an unknown lane, a missing
baseline, a lane that could not run or hit a harness error. ``--summary FILE`` writes the
verdicts as JSON for tools (the container pipeline reads it).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agentic.adapters.deadlines import PREPARE_TIMEOUT_S
from agentic.commands.argtypes import (
    add_executor_options,
    add_jobs_option,
    add_prepare_timeout_option,
    add_quiet_option,
    baselines_root,
    csv_items,
    execution,
    positive_int,
    print_result,
    progress_printer,
)
from agentic.contract.errors import EXIT_GATE_FAILED, EXIT_OK, ContractError
from agentic.contract.json_access import as_array, str_at
from agentic.contract.strict_json import JsonObject
from agentic.runner.progress import QUIET, Progress

if TYPE_CHECKING:
    from agentic.catalog.entries import LaneEntry
    from agentic.catalog.table import Catalog
    from agentic.commands.argtypes import Subparsers
    from agentic.commands.regression import LoadedReport
    from agentic.contract.report import BenchmarkReport
    from agentic.lane import Execution, LaneRequest

DEFAULT_REPEATS = 2
SMOKE_ONLY = ("adapter", "task", "lifecycle", "repeats", "allow_other_build")
OTHER_BUILD = (
    "the run's model fingerprint (its llama.cpp build) is not one the committed lane holds"
)


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "verify", help="rerun named lanes and require their committed baselines"
    )
    parser.add_argument("lanes", nargs="+", metavar="LANE", help="named lanes, e.g. fixture-agent")
    parser.add_argument("--baselines", type=Path, help="baselines root (default: the checkout's)")
    parser.add_argument(
        "--fixture", type=Path, help="the fixture the baselines measured (default: each lane's own)"
    )
    parser.add_argument("--out", type=Path, help="keep the run here (smoke: DIR, DIR-2, ...)")
    parser.add_argument("--summary", type=Path, help="write the verdicts as JSON")
    add_jobs_option(parser)
    add_executor_options(parser)
    parser.add_argument(
        "--shards",
        type=positive_int,
        default=1,
        metavar="N",
        help="rerun each lane as N shards, merged into its report (not with --smoke)",
    )
    add_prepare_timeout_option(parser)
    add_quiet_option(parser)
    smoke = parser.add_argument_group("smoke", "a short subset of one lane, run repeatedly")
    smoke.add_argument("--smoke", action="store_true", help="run a subset, compare receipts")
    smoke.add_argument("--adapter", type=csv_items, help="adapters of the lane")
    smoke.add_argument("--task", type=csv_items, help="comma-separated task ids")
    smoke.add_argument("--lifecycle", type=csv_items, help="cold, warm or both")
    smoke.add_argument("--repeats", type=positive_int, help=f"runs (default {DEFAULT_REPEATS})")
    smoke.add_argument(
        "--allow-other-build",
        action="store_true",
        help="skip the receipt comparison when the model build differs from the committed one",
    )
    parser.set_defaults(func=handle)


@dataclass(frozen=True)
class Committed:
    """A named lane and its committed baseline folder (``canonical.json`` + ``report.json``)."""

    lane: LaneEntry
    folder: Path
    results_fingerprint: str

    @property
    def report(self) -> Path:
        return self.folder / "report.json"


@dataclass(frozen=True)
class Verdict:
    lane: str
    mode: Literal["rerun", "smoke"]
    results_fingerprint: str
    baseline: str
    problems: tuple[str, ...] = ()
    details: tuple[str, ...] = ()  # the pairs behind a problem, printed above the verdict
    committed_fingerprint: str | None = None
    rescored: tuple[int, int] | None = None  # (pairs, changed)
    runs: int = 1
    shards: int = 1  # a rerun as that many shards, merged
    receipts_compared: int | None = None
    receipts_not_compared: str | None = None

    @property
    def passed(self) -> bool:
        return not self.problems

    def line(self) -> str:
        if self.problems:
            return f"{self.lane}: FAIL: {'; '.join(self.problems)}"
        if self.mode == "rerun":
            assert self.rescored is not None
            merged = f" ({self.shards} shards merged)" if self.shards > 1 else ""
            return (
                f"{self.lane}: ok: resultsFingerprint {self.results_fingerprint}{merged} equals "
                f"{self.baseline}'s; re-scored {self.rescored[0]} pairs, none changed"
            )
        receipts = (
            f"receipts not compared: {self.receipts_not_compared}"
            if self.receipts_not_compared is not None
            else f"{self.receipts_compared}/{self.receipts_compared} receipts equal "
            f"{self.baseline}'s"
        )
        runs = f"{self.runs} run{'s' if self.runs > 1 else ''}"
        return (
            f"{self.lane}: ok: resultsFingerprint {self.results_fingerprint} in {runs}; {receipts}"
        )

    def to_json(self) -> JsonObject:
        return {
            "lane": self.lane,
            "mode": self.mode,
            "passed": self.passed,
            "baseline": self.baseline,
            "resultsFingerprint": self.results_fingerprint,
            "committedFingerprint": self.committed_fingerprint,
            "problems": list(self.problems),
            "details": list(self.details),
            "rescoredPairs": None if self.rescored is None else self.rescored[0],
            "rescoreChanged": None if self.rescored is None else self.rescored[1],
            "runs": self.runs,
            "shards": self.shards,
            "receiptsCompared": self.receipts_compared,
            "receiptsNotCompared": self.receipts_not_compared,
        }


@dataclass(frozen=True)
class Plan:
    """How the lanes of one invocation run."""

    fixture_override: Path | None  # --fixture; otherwise each lane's own fixture
    catalog: Catalog
    out: Path | None
    execution: Execution
    progress: Progress = QUIET
    shards: int = 1  # more than one: the rerun runs as that many shards, then merged
    prepare_timeout_s: float = PREPARE_TIMEOUT_S

    def fixture_dir(self, lane: LaneEntry) -> Path:
        return self.fixture_override or lane.checked_fixture_dir()


# --- input ------------------------------------------------------------------------------------


def read_results_fingerprint(path: Path) -> str:
    from agentic.contract.files import read_input_file
    from agentic.contract.strict_json import parse_strict

    document = parse_strict(read_input_file(path, code="invalid_report"), source=str(path))
    value = document.get("resultsFingerprint") if isinstance(document, dict) else None
    if not isinstance(value, str):
        raise ContractError("invalid_report", f"{path}: no resultsFingerprint")
    return value


def committed_baseline(catalog: Catalog, root: Path, name: str) -> Committed:
    lane = catalog.lane(name)  # an unknown lane lists the known ones
    folder = root / lane.folder
    for artifact in ("canonical.json", "report.json"):
        if not (folder / artifact).is_file():
            raise ContractError(
                "baseline_missing",
                f"{name}: no committed {artifact} in {folder}; write the baseline with "
                f"`agentic run --lane {name} --write`",
            )
    return Committed(lane, folder, read_results_fingerprint(folder / "canonical.json"))


def check_options(args: argparse.Namespace) -> None:
    """Smoke options without --smoke would be silently ignored: refuse them instead."""
    given = [f"--{name.replace('_', '-')}" for name in SMOKE_ONLY if getattr(args, name)]
    if given and not args.smoke:
        raise ContractError("invalid_cli_option", f"{', '.join(given)}: only with --smoke")
    if args.smoke and len(args.lanes) != 1:
        raise ContractError("invalid_cli_option", "--smoke verifies one lane")
    if args.smoke and args.shards > 1:
        raise ContractError("invalid_cli_option", "--shards: not with --smoke")
    if args.out is not None and len(args.lanes) != 1:
        raise ContractError("invalid_cli_option", "--out keeps the run of one lane")


def smoke_adapters(lane: LaneEntry, given: Sequence[str] | None) -> tuple[str, ...]:
    """A smoke run's adapters: a subset of the lane's, or the committed lane has no such pairs."""
    if given is None:
        return lane.adapters
    for adapter_id in given:
        if adapter_id not in lane.adapters:
            raise ContractError(
                "invalid_cli_option",
                f"--adapter {adapter_id}: not an adapter of lane {lane.name} "
                f"({', '.join(lane.adapters)})",
            )
    return tuple(given)


# --- running ----------------------------------------------------------------------------------


def first_harness_error(report: BenchmarkReport) -> str | None:
    for receipt in report.receipts:
        if receipt.canonical.failure.class_ == "harness_error":
            return next(iter(receipt.observations.diagnostics), "(no diagnostic)")
    return None


def run_into(request: LaneRequest, name: str, progress: Progress) -> Path:
    """Run a lane into ``request.out``. A run that measured nothing (an adapter that could not
    be prepared, a harness error) is an error, never a fingerprint mismatch."""
    from agentic.lane import execute_lane

    assert request.out is not None
    outcome = execute_lane(request, progress=progress)
    if outcome.failure is not None:
        raise ContractError("lane_failed", f"{name}: {outcome.failure}")
    harness_error = first_harness_error(outcome.report)
    if harness_error is not None:
        raise ContractError(
            "lane_harness_error", f"{name}: the run hit a harness error: {harness_error}"
        )
    return request.out


def lane_request(plan: Plan, lane: LaneEntry) -> LaneRequest:
    """The request ``agentic run --lane NAME`` makes (an endpoint lane reuses its cache)."""
    from agentic.catalog.source import CatalogSource
    from agentic.lane import LaneRequest

    return LaneRequest(
        fixture_dir=plan.fixture_dir(lane),
        catalog_source=CatalogSource.for_lane(lane),
        execution=plan.execution,
        lifecycles=lane.lifecycles,
        prepare_timeout_s=plan.prepare_timeout_s,
        **lane.run_settings(),
    )


def run_sharded(request: LaneRequest, count: int, name: str, progress: Progress) -> Path:
    """Run a lane as ``count`` shards, one after another, and merge them into ``request.out``
    (what ``agentic run --shard K/N`` for each K and then ``agentic merge`` do)."""
    from agentic.commands.merge import merge_into
    from agentic.runner.pairs import Shard

    assert request.out is not None
    with tempfile.TemporaryDirectory(prefix="agentic-verify-shards-") as scratch:
        folders = [Path(scratch, f"shard-{index}") for index in range(1, count + 1)]
        for index, folder in enumerate(folders, start=1):
            progress.note(f"verify: {name} shard {index}/{count}")
            run_into(replace(request, out=folder, shard=Shard(index, count)), name, progress)
        outcome = merge_into(
            folders, request.fixture_dir, request.out, force=False, progress=progress
        )
    if outcome.failure is not None or outcome.harness_error is not None:
        raise ContractError("lane_failed", f"{name}: {outcome.failure or outcome.harness_error}")
    return request.out


def rerun(plan: Plan, committed: Committed, rescored: tuple[int, list[str]]) -> Verdict:
    """``rescored``: the committed report re-scored by the current scorer (pairs, changes)."""
    lane = committed.lane
    plan.progress.note(f"verify: rerunning {lane.name}")
    with tempfile.TemporaryDirectory(prefix="agentic-verify-") as scratch:
        request = replace(lane_request(plan, lane), out=plan.out or Path(scratch) / "run")
        if plan.shards > 1:
            out = run_sharded(request, plan.shards, lane.name, plan.progress)
        else:
            out = run_into(request, lane.name, plan.progress)
        fresh = read_results_fingerprint(out / "canonical.json")
    expected = committed.results_fingerprint
    problems = []
    if fresh != expected:
        problems.append(
            f"resultsFingerprint differs from {committed.folder}: rerun {fresh}, "
            f"committed {expected}"
        )
    pairs, changed = rescored
    if changed:
        problems.append(f"re-scoring {committed.report} changed {len(changed)} of {pairs} pairs")
    return Verdict(
        lane=lane.name,
        mode="rerun",
        results_fingerprint=fresh,
        baseline=str(committed.folder),
        problems=tuple(problems),
        details=tuple(changed),
        committed_fingerprint=expected,
        rescored=(pairs, len(changed)),
        shards=plan.shards,
    )


def valid_report(path: Path) -> None:
    """What ``agentic validate report`` checks: schema, model and the stored fingerprints."""
    from agentic.contract.files import read_input_file
    from agentic.contract.schemas import parse_and_load
    from agentic.report.assemble import check_fingerprints

    report = parse_and_load("benchmark-report", read_input_file(path), source=str(path))
    check_fingerprints(report, str(path))


def model_fingerprints(document: JsonObject) -> set[str]:
    from agentic.commands.regression import canonical_receipts

    return {
        str_at(canonical, "fingerprints", "model") for canonical in canonical_receipts(document)
    }


def receipts_against(
    base: LoadedReport, fresh: Path, allow_other_build: bool
) -> tuple[int | None, str | None, list[str]]:
    """(pairs compared, why not compared, differing pairs) of a run against the committed lane.
    Model text is specific to the llama.cpp build, so another build cannot reproduce it."""
    from agentic.commands.regression import load_report, receipt_differences

    new = load_report(fresh)
    if allow_other_build and not model_fingerprints(new.document) <= model_fingerprints(
        base.document
    ):
        return None, OTHER_BUILD, []
    return len(as_array(new.document["receipts"], "receipts")), None, receipt_differences(base, new)


def smoke_folders(out: Path | None, scratch: Path, repeats: int) -> list[Path]:
    """Where each smoke run goes: ``--out`` keeps them all (runs after the first beside it, so
    runs that disagree can be diffed), else a temporary folder."""
    if out is None:
        return [scratch / f"run-{index}" for index in range(1, repeats + 1)]
    return [out, *(out.with_name(f"{out.name}-{index}") for index in range(2, repeats + 1))]


def smoke(
    plan: Plan, committed: Committed, base: LoadedReport, args: argparse.Namespace
) -> Verdict:
    """``base``: the committed lane's report, loaded."""
    from agentic.contract.receipt import LIFECYCLES

    lane = committed.lane
    request = replace(
        lane_request(plan, lane),
        adapters=smoke_adapters(lane, args.adapter),
        tasks=args.task,
        lifecycles=tuple(args.lifecycle or LIFECYCLES),
        promote=None,  # a subset's promotion would gate something the lane never committed
        replay=False,
    )
    repeats: int = args.repeats or DEFAULT_REPEATS
    with tempfile.TemporaryDirectory(prefix="agentic-verify-") as scratch:
        folders = smoke_folders(plan.out, Path(scratch), repeats)
        fingerprints = []
        for index, folder in enumerate(folders, start=1):
            plan.progress.note(f"verify: {lane.name} smoke run {index}/{repeats}")
            run_into(replace(request, out=folder), lane.name, plan.progress)
            valid_report(folder / "report.json")
            fingerprints.append(read_results_fingerprint(folder / "canonical.json"))
        compared, not_compared, differences = receipts_against(
            base, folders[0] / "report.json", args.allow_other_build
        )
    problems = []
    if len(set(fingerprints)) > 1:
        problems.append(f"not repeatable: resultsFingerprint {' != '.join(fingerprints)}")
    if differences:
        problems.append(f"{len(differences)} of {compared} receipts differ from {committed.report}")
    return Verdict(
        lane=lane.name,
        mode="smoke",
        results_fingerprint=fingerprints[0],
        baseline=str(committed.folder),
        problems=tuple(problems),
        details=tuple(differences),
        runs=repeats,
        receipts_compared=compared,
        receipts_not_compared=not_compared,
    )


def reruns(plan: Plan, committed: Sequence[Committed]) -> Iterator[Verdict]:
    from agentic.commands.score import rescore

    # Re-scoring reads every committed report first: one this code cannot read is bad input,
    # found before the first (possibly long) rerun.
    rescored = [rescore(c.report, plan.fixture_dir(c.lane)) for c in committed]
    for lane, scores in zip(committed, rescored, strict=True):
        yield rerun(plan, lane, scores)


def smokes(
    plan: Plan, committed: Sequence[Committed], args: argparse.Namespace
) -> Iterator[Verdict]:
    from agentic.commands.regression import load_report

    for lane in committed:
        yield smoke(plan, lane, load_report(lane.report), args)  # read before the runs start


# --- the command ------------------------------------------------------------------------------


def write_summary(path: Path, verdicts: Sequence[Verdict]) -> None:
    document = {
        "passed": all(v.passed for v in verdicts),
        "lanes": [v.to_json() for v in verdicts],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def handle(args: argparse.Namespace) -> int:
    from agentic.catalog.load import load_catalog

    check_options(args)
    catalog = load_catalog()
    if args.fixture is None:  # a lane's fixture this kit lacks is named before its baseline
        for name in args.lanes:
            lane = catalog.lane(name)
            lane.checked_fixture_dir()
    root = baselines_root(args.baselines, code="baseline_missing", needs="verify")
    # Every lane and baseline is checked before the first (possibly long) rerun starts.
    committed = tuple(committed_baseline(catalog, root, name) for name in args.lanes)
    plan = Plan(
        fixture_override=args.fixture,
        catalog=catalog,
        out=args.out,
        execution=execution(args),
        progress=progress_printer(args.quiet),
        shards=args.shards,
        prepare_timeout_s=args.prepare_timeout_ms / 1000,
    )
    verdicts = []
    for verdict in smokes(plan, committed, args) if args.smoke else reruns(plan, committed):
        details = "".join(f"  {detail}\n" for detail in verdict.details)
        print_result(f"{details}{verdict.line()}\n", quiet=args.quiet)
        verdicts.append(verdict)
    if args.summary is not None:
        write_summary(args.summary, verdicts)
    return EXIT_OK if all(v.passed for v in verdicts) else EXIT_GATE_FAILED
