"""Regression comparison of two reports of the same fixture, and accepting one as a baseline.

Three kinds of report can be compared, each with its own metrics:

- ranking (``reportKind: "ranking"``): per adapter/variant, overall and per tag: recall, hitRate,
  mrr, ndcg, precision (higher is better) and nonEmptyRate on refusal goldens (lower is better);
- generation (``reportKind: "generation"``): per mode, overall and per tag, over stable questions
  (unstable ones are already excluded by the report): passRate, correctness, refusalCorrectness,
  groundedness (higher) and leakageRate, thinkTagLeakRate (lower);
- agentic lane (benchmark report): per adapter, successRate and scoredRate (higher) and the mean
  agent calls and model-visible bytes per scored pair (lower).

Tolerance: a rate regresses when it moves the wrong way by more than ``tolerance`` (absolute); a
cost (calls, bytes) when it grows by more than ``tolerance`` times its base value (relative).
A metric of BASE that NEW lacks is a failure too: a gate must not pass because a number vanished.

Noise (lane reports, informational): with a few dozen tasks one flipped task moves a rate past
any small tolerance, so beside the rule each (adapter, lifecycle) cohort gets a two-sided exact
McNemar test on its pairs scored in both runs (``agentic/report/stats.py``), and every pair
whose success flipped is listed. The gate and its exit code stay the tolerance rule's.

Refusals (exit 2): reports of different kinds, of different fixture fingerprints (they measured
different things; re-baseline instead), or of different goldens or settings (ranking,
generation) or agent and schedule (lane).

Accepting (``agentic compare --accept``) files a report as the baseline of its fixture:
``baselines/ranking/<fingerprint>/ranking.json`` or ``baselines/generation/<fingerprint>/
<model>.json``, so one fixture's baseline can never overwrite another's. Lane baselines are
written by ``agentic run --write``. (Promotion is something else: the contract's gate between
two adapters, ``scoring/promotion.py``.)
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar, get_args

from pydantic import ValidationError

from agentic.contract.base import first_error
from agentic.contract.canonical import canonical_bytes
from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file, replace_atomically
from agentic.contract.json_access import object_at, objects_at
from agentic.contract.report import PAIR_SORT_FIELDS, BenchmarkReport, NamesAPair, pair_sort_key
from agentic.contract.schemas import load_document
from agentic.contract.strict_json import JsonObject, parse_strict
from agentic.generation.schema import GenerationReport, GenerationSummary
from agentic.ranking.metrics import mean
from agentic.ranking.schema import RankingReport, RankingSummary
from agentic.report.assemble import check_fingerprints
from agentic.report.compare_page import ComparePage, FlipRow, MetricRow, pair_reasons
from agentic.report.stats import PairedDifference, paired_difference

ReportKind = Literal["ranking", "generation", "lane"]
Direction = Literal["higher", "lower"]
Scale = Literal["absolute", "relative"]
Status = Literal["regressed", "missing", "improved", "within", "unchanged", "new"]
FAILING: tuple[Status, ...] = ("regressed", "missing")
DEFAULT_TOLERANCE = 0.02
_Tier = TypeVar("_Tier", RankingReport, GenerationReport)
_Summary = TypeVar("_Summary", RankingSummary, GenerationSummary)

RANKING_METRICS: tuple[tuple[str, Direction], ...] = (
    ("recall", "higher"),
    ("hitRate", "higher"),
    ("mrr", "higher"),
    ("ndcg", "higher"),
    ("precision", "higher"),
    ("nonEmptyRate", "lower"),
)
GENERATION_METRICS: tuple[tuple[str, Direction], ...] = (
    ("passRate", "higher"),
    ("correctness", "higher"),
    ("refusalCorrectness", "higher"),
    ("groundedness", "higher"),
    ("leakageRate", "lower"),
    ("thinkTagLeakRate", "lower"),
)


@dataclass(frozen=True)
class Metric:
    value: float | None
    direction: Direction
    scale: Scale = "absolute"


@dataclass(frozen=True)
class PairOutcome:
    """One scored pair of a lane report: its identity in the contract's sort order (adapter,
    task, trial, lifecycle, seed, agent) and whether it succeeded."""

    key: tuple[str, ...]
    success: bool


@dataclass(frozen=True)
class LoadedReport:
    kind: ReportKind
    label: str
    fixture_fingerprint: str
    identity: JsonObject
    metrics: dict[str, Metric]
    document: JsonObject
    baseline_path: str | None  # relative to the baselines root; None: not accepted here
    outcomes: tuple[PairOutcome, ...] = ()  # lane reports: every scored pair
    lane: BenchmarkReport | None = None  # lane reports: the validated report itself


@dataclass(frozen=True)
class Change:
    key: str
    base: float | None
    new: float | None
    status: Status


# --- loading ----------------------------------------------------------------------------------


def _invalid(source: str, exc: ValidationError) -> ContractError:
    return ContractError("invalid_report", f"{source}: {first_error(exc)}")


def _validated(model: type[_Tier], document: JsonObject, source: str) -> _Tier:
    """``document`` read as a tier report, or ContractError(invalid_report) naming the first field
    the model refuses."""
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        raise _invalid(source, exc) from None


def _value(summary: RankingSummary | GenerationSummary, name: str) -> float | None:
    value = getattr(summary, name)
    return None if value is None else float(value)


def _summaries(
    prefix: str, overall: _Summary, by_tag: Mapping[str, _Summary]
) -> Iterator[tuple[str, _Summary]]:
    yield f"{prefix} overall", overall
    for tag in sorted(by_tag):
        yield f"{prefix} tag:{tag}", by_tag[tag]


def model_slug(model_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", model_id)


def _tier_report(
    kind: ReportKind,
    label: str,
    report: RankingReport | GenerationReport,
    *,
    metrics: dict[str, Metric],
    document: JsonObject,
    baseline_path: str,
) -> LoadedReport:
    """A tier report is comparable with another of the same goldens and settings."""
    return LoadedReport(
        kind=kind,
        label=label,
        fixture_fingerprint=report.fixtureFingerprint,
        identity={
            "goldensFingerprint": report.goldensFingerprint,
            "settings": report.settings.to_json(),
        },
        metrics=metrics,
        document=document,
        baseline_path=baseline_path,
    )


def ranking_report(document: JsonObject, source: str) -> LoadedReport:
    report = _validated(RankingReport, document, source)
    metrics: dict[str, Metric] = {}
    for run in report.runs:
        prefix = f"{run.adapterId}/{run.variant}"
        for scope, summary in _summaries(prefix, run.overall, run.byTag):
            for name, direction in RANKING_METRICS:
                metrics[f"{scope} {name}"] = Metric(_value(summary, name), direction)
    baseline = f"ranking/{report.fixtureFingerprint}/ranking.json"
    return _tier_report(
        "ranking", source, report, metrics=metrics, document=document, baseline_path=baseline
    )


def generation_report(document: JsonObject, source: str) -> LoadedReport:
    report = _validated(GenerationReport, document, source)
    metrics: dict[str, Metric] = {}
    for mode, data in sorted(report.modes.items()):
        for scope, summary in _summaries(mode, data.overall, data.byTag):
            for name, direction in GENERATION_METRICS:
                metrics[f"{scope} {name}"] = Metric(_value(summary, name), direction)
    slug = model_slug(report.model.id)
    label = f"{source} (model {report.model.id})"
    baseline = f"generation/{report.fixtureFingerprint}/{slug}.json"
    return _tier_report(
        "generation", label, report, metrics=metrics, document=document, baseline_path=baseline
    )


def _pair_key(record: NamesAPair) -> tuple[str, ...]:
    return pair_sort_key(record)


def _json_pair_key(receipt: JsonObject) -> tuple[str, ...]:
    return tuple(str(receipt[field]) for field in PAIR_SORT_FIELDS)


def canonical_receipts(document: JsonObject) -> list[JsonObject]:
    """The canonical partition of each receipt of a lane report's document, in its order."""
    return [object_at(receipt, "canonical") for receipt in objects_at(document, "receipts")]


def lane_metrics(report: BenchmarkReport) -> dict[str, Metric]:
    receipts = {_pair_key(r.canonical): r.canonical for r in report.receipts}
    metrics: dict[str, Metric] = {}
    for adapter in sorted({key[0] for key in receipts}):
        attempted = [key for key in receipts if key[0] == adapter]
        scored = [s for s in report.scores if s.adapterId == adapter and s.score.scored]
        pairs = [receipts[_pair_key(s)] for s in scored if _pair_key(s) in receipts]
        metrics[f"{adapter} successRate"] = Metric(
            mean([float(s.score.success) for s in scored]), "higher"
        )
        metrics[f"{adapter} scoredRate"] = Metric(len(scored) / len(attempted), "higher")
        metrics[f"{adapter} meanAgentCalls"] = Metric(
            mean([float(p.agentCalls) for p in pairs]), "lower", "relative"
        )
        metrics[f"{adapter} meanModelVisibleBytes"] = Metric(
            mean([float(p.modelVisibleUtf8Bytes) for p in pairs]), "lower", "relative"
        )
    return metrics


def lane_report(document: JsonObject, source: str) -> LoadedReport:
    report = load_document("benchmark-report", document, source=source)
    check_fingerprints(report, source)  # metrics below come from content its hash vouches for
    schedule = sorted(
        {(r.canonical.taskId, r.canonical.lifecycle, r.canonical.trialId) for r in report.receipts}
    )
    return LoadedReport(
        kind="lane",
        label=f"{source} (agent {report.environment.agentId})",
        fixture_fingerprint=report.fixtureFingerprint,
        identity={
            "agentId": report.environment.agentId,
            "schedule": [list(item) for item in schedule],
        },
        metrics=lane_metrics(report),
        document=document,
        baseline_path=None,
        outcomes=tuple(
            PairOutcome(_pair_key(s), bool(s.score.success))
            for s in report.scores
            if s.score.scored
        ),
        lane=report,
    )


def load_report(path: Path) -> LoadedReport:
    """Strict JSON, then the report's closed model; the kind is read from the document."""
    data = read_input_file(path, code="invalid_report")
    source = str(path)
    document = parse_strict(data, source=source)
    if not isinstance(document, dict):
        raise ContractError("invalid_report", f"{source}: not a JSON object")
    if "benchmarkId" in document:
        return lane_report(document, source)
    kind = document.get("reportKind")
    if kind == "ranking":
        return ranking_report(document, source)
    if kind == "generation":
        return generation_report(document, source)
    raise ContractError("invalid_report", f"{source}: not a ranking, generation or lane report")


# --- comparing --------------------------------------------------------------------------------


def _first_difference(base: object, new: object, path: str) -> str | None:
    if isinstance(base, dict) and isinstance(new, dict):
        for key in sorted(set(base) | set(new)):
            found = _first_difference(base.get(key), new.get(key), f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(base, list) and isinstance(new, list) and len(base) == len(new):
        for index, (left, right) in enumerate(zip(base, new, strict=True)):
            found = _first_difference(left, right, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    return None if base == new else f"{path.lstrip('.')}: {base!r} vs {new!r}"


def receipt_differences(base: LoadedReport, new: LoadedReport) -> list[str]:
    """Each pair of NEW whose canonical receipt is not the one BASE holds for the same pair.

    NEW may run a subset of BASE's schedule (a short rerun of a long committed lane); a pair BASE
    never ran cannot be checked and makes the reports incomparable."""
    if base.kind != "lane" or new.kind != "lane":
        raise ContractError("report_kind_mismatch", "--receipts compares two lane reports")
    _check_same_fixture(base, new)
    held = {_json_pair_key(canonical): canonical for canonical in canonical_receipts(base.document)}
    differences = []
    for canonical in canonical_receipts(new.document):
        key = _json_pair_key(canonical)
        label = "/".join(key[:4])
        if key not in held:
            raise ContractError("pair_not_in_base", f"{label} is not a pair of {base.label}")
        found = _first_difference(held[key], canonical, "")
        if found is not None:
            differences.append(f"{label}: {found}")
    return differences


def _check_same_fixture(base: LoadedReport, new: LoadedReport) -> None:
    """Reports of two fixtures are a refusal (exit 2), never a regression."""
    if base.fixture_fingerprint != new.fixture_fingerprint:
        raise ContractError(
            "fixture_fingerprint_mismatch",
            f"BASE measured fixture {base.fixture_fingerprint[:12]}, NEW measured "
            f"{new.fixture_fingerprint[:12]}: different corpora, re-baseline instead",
        )


def check_comparable(base: LoadedReport, new: LoadedReport) -> None:
    if base.kind != new.kind:
        raise ContractError(
            "report_kind_mismatch", f"cannot compare a {base.kind} report with a {new.kind} report"
        )
    _check_same_fixture(base, new)
    difference = _first_difference(base.identity, new.identity, "")
    if difference is not None:
        raise ContractError(
            "report_incomparable", f"the reports measured differently: {difference}"
        )


def judge(base: Metric, new: Metric | None, tolerance: float) -> Status:
    if new is None or (new.value is None and base.value is not None):
        return "missing"
    if base.value is None:
        return "unchanged" if new.value is None else "new"
    assert new.value is not None
    worse = base.value - new.value if base.direction == "higher" else new.value - base.value
    allowed = tolerance if base.scale == "absolute" else tolerance * abs(base.value)
    if worse > allowed:
        return "regressed"
    if worse < 0:
        return "improved"
    return "within" if worse > 0 else "unchanged"


def compare_reports(base: LoadedReport, new: LoadedReport, tolerance: float) -> list[Change]:
    """Every metric of BASE judged against NEW, then NEW's metrics that BASE lacks."""
    check_comparable(base, new)
    changes = []
    for key in sorted(base.metrics):
        metric = base.metrics[key]
        other = new.metrics.get(key)
        status = judge(metric, other, tolerance)
        changes.append(Change(key, metric.value, None if other is None else other.value, status))
    for key in sorted(set(new.metrics) - set(base.metrics)):
        changes.append(Change(key, None, new.metrics[key].value, "new"))
    return changes


def failed(changes: list[Change]) -> bool:
    return any(c.status in FAILING for c in changes)


# --- noise (lane reports) ---------------------------------------------------------------------


@dataclass(frozen=True)
class Flip:
    """A pair scored in both runs whose success changed."""

    key: tuple[str, ...]
    before: bool
    after: bool

    def text(self, *, with_trial: bool) -> str:
        adapter, task, trial, lifecycle = self.key[:4]
        named = f"{task} {adapter} {lifecycle}" + (f" {trial}" if with_trial else "")
        return f"{named}: {_outcome(self.before)} -> {_outcome(self.after)}"


def _outcome(success: bool) -> str:
    return "pass" if success else "fail"


def flips(base: LoadedReport, new: LoadedReport) -> list[Flip]:
    """Pairs scored in both runs whose success differs, in pair order."""
    before = {o.key: o.success for o in base.outcomes}
    return [
        Flip(o.key, before[o.key], o.success)
        for o in sorted(new.outcomes, key=lambda o: o.key)
        if o.key in before and before[o.key] != o.success
    ]


def noise_tests(base: LoadedReport, new: LoadedReport) -> list[tuple[str, PairedDifference]]:
    """Per (adapter, lifecycle) cohort: the exact paired test over the pairs scored in both.

    Cohorts are tested apart: cold and warm of one task (or two trials of it) are not
    independent, and pooling them would count one flipped task twice."""
    before = {o.key: o.success for o in base.outcomes}
    counts: dict[tuple[str, str], list[int]] = {}
    for outcome in new.outcomes:
        if outcome.key not in before:
            continue
        tally = counts.setdefault((outcome.key[0], outcome.key[3]), [0, 0])
        if before[outcome.key] and not outcome.success:
            tally[0] += 1
        elif outcome.success and not before[outcome.key]:
            tally[1] += 1
    return [
        (f"{adapter} {lifecycle}", paired_difference(worse, better))
        for (adapter, lifecycle), (worse, better) in sorted(counts.items())
    ]


def render_noise(base: LoadedReport, new: LoadedReport) -> list[str]:
    tests = noise_tests(base, new)
    if not tests:
        return []
    lines = [
        "  Noise (informational; the gate is the tolerance rule): two-sided exact McNemar test "
        "on the pairs scored in both runs, per adapter and lifecycle",
    ]
    width = max(len(cohort) for cohort, _ in tests)
    lines += [f"    {cohort.ljust(width)}  {test.text()}" for cohort, test in tests]
    flipped = flips(base, new)
    with_trial = len({o.key[2] for o in new.outcomes}) > 1
    lines.append(
        f"  Flipped pairs: {len(flipped)}" + (" (task adapter lifecycle)" if flipped else "")
    )
    lines += [f"    {flip.text(with_trial=with_trial)}" for flip in flipped]
    return lines


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}".rstrip("0").rstrip(".")


def render_changes(
    base: LoadedReport, new: LoadedReport, changes: list[Change], tolerance: float
) -> str:
    lines = [
        f"Comparing {base.kind} reports of fixture {base.fixture_fingerprint[:12]} "
        f"(tolerance {tolerance:g}): BASE {base.label}; NEW {new.label}",
    ]
    shown = [c for c in changes if c.status != "unchanged"]
    width = max((len(c.key) for c in shown), default=0)
    for change in shown:
        delta = (
            ""
            if change.base is None or change.new is None
            else f"  ({change.new - change.base:+.4f})"
        )
        lines.append(
            f"  {change.status.upper():<9} {change.key.ljust(width)}  "
            f"{_number(change.base)} -> {_number(change.new)}{delta}"
        )
    if base.kind == "lane" and new.kind == "lane":
        lines += render_noise(base, new)
    counts = {s: sum(1 for c in changes if c.status == s) for s in get_args(Status)}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    verdict = "FAIL" if failed(changes) else "OK"
    lines.append(f"{verdict}: {len(changes)} metrics: {summary or 'none'}")
    return "\n".join(lines) + "\n"


def compare_page(
    base: LoadedReport, new: LoadedReport, changes: list[Change], tolerance: float
) -> ComparePage:
    """The rows of ``agentic compare --html``: the flipped pairs first (with why each failed in
    the run where it failed), then the noise tests and every metric."""
    reasons_before = pair_reasons(base.lane) if base.lane is not None else {}
    reasons_after = pair_reasons(new.lane) if new.lane is not None else {}
    flip_rows = []
    for flip in flips(base, new) if base.kind == new.kind == "lane" else []:
        adapter, task, trial, lifecycle = flip.key[:4]
        pair = (adapter, task, trial, lifecycle)
        flip_rows.append(
            FlipRow(
                task_id=task,
                adapter=adapter,
                lifecycle=lifecycle,
                trial=trial,
                before=_outcome(flip.before),
                after=_outcome(flip.after),
                before_reasons=reasons_before.get(pair, "-"),
                after_reasons=reasons_after.get(pair, "-"),
            )
        )
    metric_rows = tuple(
        MetricRow(
            key=c.key,
            base=_number(c.base),
            new=_number(c.new),
            delta="" if c.base is None or c.new is None else f"{c.new - c.base:+.4f}",
            status=c.status,
        )
        for c in changes
    )
    noise = (
        tuple((cohort, test.text()) for cohort, test in noise_tests(base, new))
        if base.kind == new.kind == "lane"
        else ()
    )
    return ComparePage(
        title=f"Compare {base.kind} reports of fixture {base.fixture_fingerprint[:12]}",
        base_label=base.label,
        new_label=new.label,
        verdict="FAIL" if failed(changes) else "OK",
        verdict_tone="fail" if failed(changes) else "pass",
        tolerance=f"{tolerance:g}",
        metrics=metric_rows,
        noise=noise,
        flips=tuple(flip_rows),
    )


# --- accepting a baseline ---------------------------------------------------------------------


def baseline_target(report: LoadedReport, root: Path) -> Path:
    if report.baseline_path is None:
        raise ContractError(
            "invalid_cli_option", "lane baselines are written by 'agentic run --write', not here"
        )
    return root / report.baseline_path


def write_baseline(report: LoadedReport, target: Path) -> None:
    """Canonical bytes of the report, written atomically (temp file + rename).

    Only a missing file or a regular one (a previous baseline) is replaced: a symlink, a folder
    or anything else at ``target`` is refused (unsafe_output_path) and left as it is. The file
    gets the mode a plain ``open`` gives (0644 under umask 022)."""
    data = canonical_bytes(report.document)
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise ContractError("baseline_write_failed", f"cannot write {target}: {exc}") from None
    if mode is not None and not stat.S_ISREG(mode):
        what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
        raise ContractError(
            "unsafe_output_path", f"{target} is {what}, not a baseline file; nothing was written"
        )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(target, data)
    except OSError as exc:
        raise ContractError("baseline_write_failed", f"cannot write {target}: {exc}") from None


def accept_first(report: LoadedReport, root: Path) -> Path:
    """Accept ``report`` as its fixture's first baseline; refuses when one exists (compare
    against it instead)."""
    target = baseline_target(report, root)
    if target.exists():
        raise ContractError(
            "baseline_exists", f"{target} exists: compare against it, or remove it to re-baseline"
        )
    write_baseline(report, target)
    return target
