"""``baselines/README.md``: the committed lanes' figures, read from their ``report.json``.

A figure quoted by hand goes stale the day a lane is re-staged; this page is rendered from the
reports themselves (success, agent calls and model-visible bytes per adapter and cohort, the
promotion gate, the ranking tier's metrics), so it is as current as the baselines it sits
beside. Only the prose around the figures is written here, and the oracle ceiling's cost (it is
a measurement of a fixture, never a committed lane: ``ORACLE_CEILING``). A real model's lane
(``REAL_MODELS``) adds its attribution, which needs the oracle of the fixture it ran on: read
from the checkout's ``fixtures/``, and left out when that is not the report's fixture.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentic.contract.codes import CODES
from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file
from agentic.contract.json_access import (
    array_at,
    int_at,
    member,
    object_at,
    objects_at,
    str_at,
)
from agentic.contract.report import BenchmarkReport, Promotion
from agentic.contract.schemas import parse_and_load
from agentic.contract.strict_json import JsonObject, parse_strict
from agentic.docgen import recording, verdict
from agentic.docgen.harness_failures import (
    TARGET_SHARE,
    HarnessFailures,
    report_harness_failures,
)
from agentic.docgen.markdown import HEADER_NOTE, code, grouped, table
from agentic.fixture.loader import load_fixture
from agentic.report.attribution_table import (
    ATTRIBUTION_HEADER,
    ATTRIBUTION_LEGEND,
    ReportAttribution,
    attribution_rows,
    discordance_text,
    report_attribution,
)
from agentic.report.markdown import PAIRWISE_LOSS, promotion_uncertainty
from agentic.report.stats import ALPHA
from agentic.scoring.attribution import discordance
from agentic.scoring.task_facts import TaskFacts, task_facts

PAGE = "baselines/README.md"
REPORT = "report.json"
# Where lane reports sit, relative to baselines/: a lane's folder is its name.
LANE_PATTERNS = (f"*/{REPORT}", f"optional/*/{REPORT}", f"backends/*/{REPORT}")
RANKING_PATTERN = "ranking/*/ranking.json"

AUTHORITATIVE = "fixture-agent"
BUNDLED_BESIDE = ("optional/qmd-lex",)  # more adapters of the fixture agent on the same fixture
BLIND = "sqlite-docs"
LOCAL_MODEL = "optional/local-model"
OBSERVATIONS = "observations.json"
FAILURE = "failure "  # a primary cause that is a receipt's failure code (docgen/verdict.py)
BACKENDS = "backends/"
NO_BASELINE = "oracle ceiling (not a baseline)"


@dataclass(frozen=True)
class Ceiling:
    """What the oracle ceiling costs on one fixture, per cohort: measured with
    ``agentic run --fixture F --adapter oracle --promote none`` (it succeeds on every task, as
    ``agentic fixture check`` proves for each fixture)."""

    agent_calls: int
    visible_bytes: int


ORACLE_CEILING: Mapping[str, Ceiling] = {
    # fixtures/agentic-retrieval
    "4c14ff8de7667a9b77ed4c161647fc59e5b31eb4d616f06481bb45dd64ca95b7": Ceiling(32, 22_383),
    # fixtures/sqlite-docs
    "c3dd96680ec2a4701f895c478433b9200289b9adc32b6bebd8105001f57677a3": Ceiling(45, 40_765),
}


@dataclass(frozen=True)
class Cohort:
    """One adapter in one lifecycle: its pairs, their successes, calls and visible bytes."""

    adapter: str
    lifecycle: str
    pairs: int
    successes: int
    agent_calls: int
    visible_bytes: int


@dataclass(frozen=True)
class Lane:
    """The figures of one committed lane report."""

    folder: str  # relative to baselines/
    agent_id: str
    fixture: str  # its fingerprint
    tasks: int
    pairs: int
    exclusions: int
    trials: int
    cohorts: tuple[Cohort, ...]
    promotion: Promotion | None

    def adapters(self) -> list[str]:
        return sorted({cohort.adapter for cohort in self.cohorts})

    def of(self, adapter: str) -> list[Cohort]:
        return [cohort for cohort in self.cohorts if cohort.adapter == adapter]

    def cohorts_agree(self) -> bool:
        """True when every adapter's cold and warm cohorts gave the same figures."""
        return all(len({_figures(c) for c in self.of(adapter)}) == 1 for adapter in self.adapters())


def _figures(cohort: Cohort) -> tuple[int, int, int, int]:
    return (cohort.pairs, cohort.successes, cohort.agent_calls, cohort.visible_bytes)


# -- reading -----------------------------------------------------------------------------------


def _document(path: Path, source: str) -> JsonObject:
    """A committed report read as every input is: a regular file in the cap, strict JSON."""
    return _document_of(read_input_file(path, code="invalid_report"), source)


def _document_of(data: bytes, source: str) -> JsonObject:
    document = parse_strict(data, source=source)
    if not isinstance(document, dict):
        raise ContractError("invalid_report", f"{source}: not a JSON object")
    return document


def _cohorts(document: JsonObject) -> tuple[Cohort, ...]:
    tally: dict[tuple[str, str], list[int]] = {}
    for receipt in objects_at(document, "receipts"):
        canonical = object_at(receipt, "canonical")
        cohort = (str_at(canonical, "adapterId"), str_at(canonical, "lifecycle"))
        row = tally.setdefault(cohort, [0, 0, 0, 0])
        row[0] += 1
        row[2] += int_at(canonical, "agentCalls")
        row[3] += int_at(canonical, "modelVisibleUtf8Bytes")
    for record in objects_at(document, "scores"):
        cohort = (str_at(record, "adapterId"), str_at(record, "lifecycle"))
        tally[cohort][1] += int_at(record, "score", "success")
    return tuple(Cohort(a, lc, *row) for (a, lc), row in sorted(tally.items()))


def read_lane(baselines: Path, path: Path) -> Lane:
    """The figures of the lane report at ``path``."""
    folder = path.parent.relative_to(baselines).as_posix()
    document = _document(path, f"baselines/{folder}/{REPORT}")
    promotion = document.get("promotion")
    return Lane(
        folder=folder,
        agent_id=str_at(document, "environment", "agentId"),
        fixture=str_at(document, "fixtureFingerprint"),
        tasks=len({str_at(record, "taskId") for record in objects_at(document, "scores")}),
        pairs=int_at(document, "attemptedPairs"),
        exclusions=len(array_at(document, "exclusions")),
        trials=len(array_at(document, "environment", "trials")),
        cohorts=_cohorts(document),
        promotion=None if promotion is None else Promotion.model_validate(promotion),
    )


def read_lanes(baselines: Path) -> dict[str, Lane]:
    """Every committed lane report, by folder."""
    paths = sorted({path for pattern in LANE_PATTERNS for path in baselines.glob(pattern)})
    lanes = [read_lane(baselines, path) for path in paths]
    return {lane.folder: lane for lane in sorted(lanes, key=lambda lane: lane.folder)}


@dataclass(frozen=True)
class LaneInfo:
    """What the catalog says of a lane: its fixture folder and its promotion gate's pair
    (candidate adapter, baseline adapter)."""

    fixture: str
    promote: tuple[str, str] | None
    agent_config: str | None = None  # an endpoint agent's config, relative to the checkout


def catalog_lanes() -> dict[str, LaneInfo]:
    """The named lanes of this checkout (built-ins and shipped servers, never plugins, which
    differ from machine to machine)."""
    from agentic.catalog.load import load_catalog

    lanes = load_catalog(plugins=False).lanes
    return {
        name: LaneInfo(lane.fixture, lane.promote, lane.agent_config)
        for name, lane in sorted(lanes.items())
    }


# -- figures as text ---------------------------------------------------------------------------


def _agreeing(values: Sequence[tuple[str, str]]) -> str:
    """One value when every lifecycle gave it, else each lifecycle's."""
    if len({value for _, value in values}) == 1:
        return values[0][1]
    return ", ".join(f"{lifecycle} {value}" for lifecycle, value in values)


def success(lane: Lane, adapter: str) -> str:
    return _agreeing([(c.lifecycle, f"{c.successes}/{c.pairs}") for c in lane.of(adapter)])


def calls(lane: Lane, adapter: str) -> str:
    return _agreeing([(c.lifecycle, grouped(c.agent_calls)) for c in lane.of(adapter)])


def visible_bytes(lane: Lane, adapter: str) -> str:
    return _agreeing([(c.lifecycle, grouped(c.visible_bytes)) for c in lane.of(adapter)])


def short(fingerprint: str) -> str:
    return f"{fingerprint[:8]}…"


def _link(folder: str) -> str:
    return f"[{folder}/]({folder}/)"


def _cohort_note(lane: Lane) -> str:
    if lane.cohorts_agree():
        return "the same in the cold and the warm cohort"
    return "cold and warm cohorts differ, each shown"


def _lane_header(lane: Lane) -> str:
    return (
        f"fixture `{short(lane.fixture)}`, {lane.tasks} tasks, {lane.pairs} pairs, "
        f"{lane.exclusions} exclusions"
    )


def _pair_losses(promotion: Promotion) -> tuple[int, int]:
    """The pairs the candidate lost against the baseline adapter, and the tasks they belong to."""
    lost = [f[len(PAIRWISE_LOSS) :] for f in promotion.failures if f.startswith(PAIRWISE_LOSS)]
    return len(lost), len({pair.split("\0", 1)[0] for pair in lost})


def promotion_text(lane: Lane, pair: tuple[str, str] | None) -> str:
    """The gate's verdict and metrics in one paragraph, as report.md states them."""
    promotion = lane.promotion
    if promotion is None or pair is None:
        return ""
    candidate, baseline_adapter = pair
    m = promotion.metrics
    verdict = "PASS" if promotion.passed else "FAIL"

    def number(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    text = (
        f"Promotion `{candidate}` vs `{baseline_adapter}`: **{verdict}** over "
        f"{promotion.pairCount} pairs "
        f"(call reduction {number(m.agentCallReduction)}, byte reduction "
        f"{number(m.contextByteReduction)}, claim linkage {number(m.claimLinkageRate)}, "
        f"unsupported substantive claims {m.baselineUnsupportedClaims} -> "
        f"{m.candidateUnsupportedClaims})."
    )
    unmet = [f for f in promotion.failures if not f.startswith(PAIRWISE_LOSS)]
    if unmet:
        text += " Unmet: " + ", ".join(code(f) for f in unmet) + "."
    pairs, tasks = _pair_losses(promotion)
    if pairs:
        text += (
            f" {pairs} pairs ({tasks} tasks) pass with `{baseline_adapter}` but not with "
            f"`{candidate}`."
        )
    return text + " " + promotion_uncertainty(promotion)


# -- sections ----------------------------------------------------------------------------------


def _lanes_section(lanes: Mapping[str, Lane], info: Mapping[str, LaneInfo]) -> list[str]:
    names = {lane.fixture: info[f].fixture for f, lane in lanes.items() if f in info}
    rows = []
    for folder, lane in lanes.items():
        fixture = names.get(lane.fixture, "")
        gate = ""
        pair = info[folder].promote if folder in info else None
        if lane.promotion is not None and pair is not None:
            gate = f"{pair[0]} vs {pair[1]}: {'PASS' if lane.promotion.passed else 'FAIL'}"
        rows.append(
            [
                _link(folder),
                code(lane.agent_id),
                f"{fixture} `{short(lane.fixture)}`".strip(),
                str(lane.tasks),
                str(lane.trials),
                str(lane.pairs),
                str(lane.exclusions),
                "; ".join(f"{a} {success(lane, a)}" for a in lane.adapters()),
                gate,
            ]
        )
    header = ["lane", "agent", "fixture", "tasks", "trials", "pairs", "excluded", "success"]
    return [
        "## Every committed lane",
        "",
        "Success is per cohort (cold and warm, when both gave the same; else each). A lane that "
        "is not in `agentic catalog` (`optional/openai-smollm2`) is held by its own session "
        "(`nox -s openai-smoke`).",
        "",
        table([*header, "promotion"], rows, numeric=(3, 4, 5, 6)),
        "",
    ]


def _ceiling_row(lane: Lane, label: str = NO_BASELINE) -> list[str] | None:
    ceiling = ORACLE_CEILING.get(lane.fixture)
    if ceiling is None:
        return None
    return [
        label,
        f"{lane.tasks}/{lane.tasks}",
        grouped(ceiling.agent_calls),
        grouped(ceiling.visible_bytes),
    ]


def _adapter_row(lane: Lane, adapter: str, label: str) -> list[str]:
    return [label, success(lane, adapter), calls(lane, adapter), visible_bytes(lane, adapter)]


def _beside(lanes: Mapping[str, Lane], main: Lane) -> list[tuple[str, Lane]]:
    """The committed lanes of ``BUNDLED_BESIDE`` that ran on ``main``'s fixture, by folder."""
    found = [(folder, lanes.get(folder)) for folder in BUNDLED_BESIDE]
    return [
        (folder, lane)
        for folder, lane in found
        if lane is not None and lane.fixture == main.fixture
    ]


def _gate_lines(
    lane: Lane, info: Mapping[str, LaneInfo], name: str, reading: list[str]
) -> list[str]:
    """Lane ``name``'s promotion verdict and the paragraph that reads it; none without a gate."""
    gate = promotion_text(lane, info[name].promote if name in info else None)
    return [gate, "", *reading, ""] if gate else []


def _glance_section(lanes: Mapping[str, Lane], info: Mapping[str, LaneInfo]) -> list[str]:
    main = lanes.get(AUTHORITATIVE)
    if main is None:
        return []
    rows = [_adapter_row(main, a, a) for a in main.adapters()]
    for folder, beside in _beside(lanes, main):
        rows += [_adapter_row(beside, a, f"{a} (`{folder}/`)") for a in beside.adapters()]
    ceiling = _ceiling_row(main)
    if ceiling is not None:
        rows.append(ceiling)
    lines = [
        "## The committed baseline at a glance",
        "",
        f"{_link(AUTHORITATIVE)} ({_lane_header(main)}), {_cohort_note(main)}:",
        "",
        table(["adapter", "success", "agent calls", "model-visible bytes"], rows, (1, 2, 3)),
        "",
    ]
    local = lanes.get(LOCAL_MODEL)
    if local is not None:
        figures = ", ".join(f"{a} {success(local, a)}" for a in local.adapters())
        per_cohort = local.pairs // max(1, len({c.lifecycle for c in local.cohorts}))
        per_adapter = per_cohort // max(1, len(local.adapters()))
        lines += [
            f"The local-model lane ({_link(LOCAL_MODEL)}, SmolLM2-135M-Instruct Q4_1 through "
            f"llama.cpp, {local.trials} seeded trials per pair, {per_adapter} pairs per cohort) "
            f"shows what a real, tiny model does with the same backends: {figures}, "
            f"{_cohort_note(local)}.",
            "",
        ]
    return lines + _gate_lines(main, info, AUTHORITATIVE, _BUNDLED_BIAS)


_BUNDLED_BIAS = [
    "The fixture's README ([fixtures/agentic-retrieval/](../fixtures/agentic-retrieval/README.md))"
    " explains the traps behind these numbers, and a known bias: its documents were written with "
    "the capsule's selection rule in view.",
]


def _blind_section(lanes: Mapping[str, Lane], info: Mapping[str, LaneInfo]) -> list[str]:
    blind, main = lanes.get(BLIND), lanes.get(AUTHORITATIVE)
    if blind is None or main is None:
        return []
    bundled = {a: success(main, a) for a in main.adapters()}
    for _folder, beside in _beside(lanes, main):
        bundled.update({a: success(beside, a) for a in beside.adapters()})
    rows = [
        [a, bundled.get(a, ""), success(blind, a), calls(blind, a), visible_bytes(blind, a)]
        for a in blind.adapters()
    ]
    main_ceiling, blind_ceiling = _ceiling_row(main), _ceiling_row(blind)
    if main_ceiling is not None and blind_ceiling is not None:
        rows.append([NO_BASELINE, main_ceiling[1], *blind_ceiling[1:]])
    header = ["adapter", "bundled fixture", BLIND, f"{BLIND} agent calls", f"{BLIND} bytes"]
    lines = [
        "## Beside it: the blind fixture over the SQLite documentation",
        "",
        f"{_link(BLIND)} (`agentic run --lane {BLIND}`; {_lane_header(blind)}, "
        f"{_cohort_note(blind)}) is the counterweight: 766 real pages, {blind.tasks} tasks written "
        "before "
        "any lane ran, nothing in it written for this kit "
        "([fixtures/sqlite-docs/](../fixtures/sqlite-docs/README.md)). Bytes are model-visible "
        "bytes.",
        "",
        table(header, rows, numeric=(1, 2, 3, 4)),
        "",
    ]
    return lines + _gate_lines(blind, info, BLIND, _BLIND_READING)


_BLIND_READING = [
    "The capsule's lead in success holds on documents nobody tuned, but its promotion fails "
    "there: its one-call bundles fill the 80 KB budget where the fixture agent reads a few ranged "
    "lines, its call reduction stays under 0.25, and some of its claims are unsupported where "
    "mcp-reference's are not. qmd's own lexical search (qmd-lex) more than doubles the kit's "
    "line-level lexical adapter here. Every adapter abstains correctly on the five "
    "missing-evidence tasks.",
]


@dataclass(frozen=True)
class RealModel:
    """A lane of a real model: its folder (its catalog name), the scripted lane on the same
    fixture it sits beside, the model, and its recorded answers (relative to baselines/)."""

    lane: str
    beside: str
    model: str
    cache: str


QWEN = "Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)"
# Each is left out of the page until its report.json is committed.
REAL_MODELS: tuple[RealModel, ...] = (
    RealModel("optional/qwen-bundled", AUTHORITATIVE, QWEN, "llm-cache/qwen-bundled"),
    RealModel("optional/qwen-sqlite", BLIND, QWEN, "llm-cache/qwen-sqlite"),
)


def _real_models_section(
    baselines: Path, lanes: Mapping[str, Lane], info: Mapping[str, LaneInfo]
) -> list[str]:
    sections = [
        line
        for real in REAL_MODELS
        if real.lane in lanes
        for line in _real_model_section(baselines, lanes, real, info)
    ]
    if not sections:
        return []
    models = sorted({real.model for real in REAL_MODELS if real.lane in lanes})
    return [
        "## A real model",
        "",
        f"Each lane below runs {' and '.join(models)} through llama-cpp-python's "
        "OpenAI-compatible server with the `openai-chat` agent, beside the scripted fixture "
        "agent's lane on the same fixture; each says which protocol its agent config sets "
        "([docs/agents.md](../docs/agents.md)). `agentic verify LANE` reruns it from its "
        "recorded answers with no model.",
        "",
        *sections,
    ]


def _real_model_section(
    baselines: Path, lanes: Mapping[str, Lane], real: RealModel, info: Mapping[str, LaneInfo]
) -> list[str]:
    lane, beside = lanes[real.lane], lanes.get(real.beside)
    source = f"baselines/{real.lane}/{REPORT}"
    data = read_input_file(baselines / real.lane / REPORT, code="invalid_report")
    document = _document_of(data, source)
    report = parse_and_load("benchmark-report", data, source=source)
    by_task = verdict.outcomes(document)
    model = verdict.successes(by_task)
    scripted: list[verdict.AdapterSuccess] = []
    if beside is not None and beside.fixture == lane.fixture:
        beside_document = _document(
            baselines / real.beside / REPORT, f"baselines/{real.beside}/{REPORT}"
        )
        scripted = verdict.successes(verdict.outcomes(beside_document))
    by_adapter = {row.adapter: row for row in scripted}
    rows = [
        [
            row.adapter,
            f"{row.successes}/{row.pairs}",
            row.interval.text(),
            _success_text(by_adapter[row.adapter]) if row.adapter in by_adapter else "",
        ]
        for row in model
    ]
    fixture = info[real.lane].fixture if real.lane in info else ""
    header = ["adapter", "success", "95% Wilson", f"the fixture agent ({real.beside}, cold)"]
    return [
        f"### {real.lane} on {fixture or short(lane.fixture)}",
        "",
        f"{_link(real.lane)}: {real.model}, {_protocol_text(info.get(real.lane))}, beside "
        f"{_link(real.beside)} ({_lane_header(lane)}, cold, {_trials(lane.trials)}). Success "
        "per adapter, beside the fixture agent's on the same tasks:",
        "",
        table(header, rows, numeric=(1,)),
        "",
        *_pairs_text(verdict.adapter_pairs(by_task)),
        *_agreement_text(verdict.rank_agreement(model, scripted)),
        *attribution_text(report, _facts(baselines, fixture, report.fixtureFingerprint)),
        *harness_text(report_harness_failures(report)),
        *_causes_text(verdict.failure_causes(document)),
        *_recording_text(baselines, real),
    ]


PROTOCOLS = {
    "rendered": "the rendered protocol (numbered lines, reads sized to the budgets, a grammar "
    "per turn)",
    "functions": "the functions protocol (the contract's tools as OpenAI functions)",
}


def _protocol_text(lane: LaneInfo | None) -> str:
    """Which protocol the lane's agent config sets, read from the checkout's config file."""
    from agentic.agents.chat_config import load_agent_config
    from agentic.resources import repo_root

    root = repo_root()
    if lane is None or lane.agent_config is None or root is None:
        return "an openai-chat agent"
    protocol = load_agent_config(root / lane.agent_config).protocol
    return f"{PROTOCOLS[protocol]}, `{lane.agent_config}`"


def _facts(baselines: Path, fixture: str, fingerprint: str) -> Mapping[str, TaskFacts] | None:
    """The facts of the checkout's ``fixtures/<fixture>``; None when it is missing or is not
    the fixture the report ran on."""
    folder = baselines.parent / "fixtures" / fixture
    if not fixture or not (folder / "manifest.json").is_file():
        return None
    loaded = load_fixture(folder)
    return task_facts(loaded) if loaded.snapshot.fingerprint == fingerprint else None


def harness_text(failures: HarnessFailures) -> list[str]:
    """The pairs the harness failed, by code, against the target they are held to."""
    met = "met" if failures.within_target else "not met"
    causes = "; ".join(f"{code(cause)} {count}" for cause, count in failures.causes)
    return [
        f"Failures the harness causes: {failures.count} of {failures.pairs} pairs "
        f"({failures.share:.0%}; the target is at most {TARGET_SHARE:.0%}: {met})"
        f"{': ' + causes if causes else ''}. These pairs ended on the agent's own mechanics "
        "(the sizing of a request or a result, the shape of a reply, a call the grammar should "
        "not admit, an invalid final envelope), not on retrieval or on the model's judgement "
        "(the codes: `agentic/docgen/harness_failures.py`).",
        "",
    ]


def attribution_text(
    report: BenchmarkReport, facts: Mapping[str, TaskFacts] | None, lifecycle: str = "cold"
) -> list[str]:
    """Attribution per adapter of ``lifecycle`` (report.md's table, one lifecycle), and the exact
    McNemar test between adapters on evidence delivered."""
    found = report_attribution(report, facts)
    if found is None:
        return [
            "No attribution: the checkout's fixture is not the one this report ran on.",
            "",
        ]
    cohorts = {key: pairs for key, pairs in found.cohorts.items() if key[1] == lifecycle}
    column = ATTRIBUTION_HEADER.index("lifecycle")
    rows = [
        [*row[:column], *row[column + 1 :]]
        for row in attribution_rows(ReportAttribution(found.by_pair, cohorts))
    ]
    header = [*ATTRIBUTION_HEADER[:column], *ATTRIBUTION_HEADER[column + 1 :]]
    adapters = {adapter: pairs for (adapter, _), pairs in cohorts.items()}
    tests = [
        f"- {first} vs {second}: "
        + discordance_text(
            "evidenceDelivered",
            first,
            second,
            discordance(adapters[first], adapters[second], "evidenceDelivered"),
        )
        + "."
        for first, second in itertools.combinations(sorted(adapters), 2)
    ]
    lines = [
        f"Attribution ({lifecycle}). {ATTRIBUTION_LEGEND}",
        "",
        table(header, rows, numeric=(1, 2, 5, 6, 7)),
        "",
    ]
    if tests:
        lines += [
            "Evidence delivered between every two adapters, over the pairs both ran "
            f"(two-sided exact McNemar, alpha {ALPHA:g}):",
            "",
            *tests,
            "",
        ]
    return lines


def _recording_text(baselines: Path, real: RealModel) -> list[str]:
    observations = _document(
        baselines / real.lane / OBSERVATIONS, f"baselines/{real.lane}/{OBSERVATIONS}"
    )
    cache = baselines / real.cache
    pairs = recording.recorded_pairs(objects_at(observations, "receipts"), cache)
    speed = recording.recording_speed(pairs)
    answers, size = recording.cache_bytes(cache)
    stored = f"its {answers} recorded answers take {size / 1e6:.1f} MB ({code(real.cache)})"
    if not speed.seconds:
        return [f"No pair's recording time is known (none was recorded in one go); {stored}.", ""]
    return [
        f"Recording it on a 2-core machine with no accelerator took a median of "
        f"{speed.median:.0f} s per pair (slowest {max(speed.seconds):.0f} s), over the "
        f"{len(speed.seconds)} of {speed.pairs} pairs known to be recorded in one go (the "
        "others resumed mid-pair, answered from the cache whole, or their notes name too few "
        "of their answers; "
        f"{code('python benchmarks/bench.py recorded')}); {stored}.{_tokens_text(speed)}",
        "",
    ]


def _tokens_text(speed: recording.RecordingSpeed) -> str:
    if speed.median_tokens is None:
        return ""
    prompt, completion = speed.median_tokens
    return (
        f" The time goes on reading, not writing: the median such pair sent {prompt:,.0f} "
        "prompt tokens (its requests together; the server evaluates what each adds to the "
        f"last) and got {completion:,.0f} back."
    )


def _trials(count: int) -> str:
    return "one trial" if count == 1 else f"{count} trials"


def _success_text(row: verdict.AdapterSuccess) -> str:
    return f"{row.successes}/{row.pairs} {row.interval.text()}"


def _pairs_text(pairs: Sequence[verdict.AdapterPair]) -> list[str]:
    rows = [
        [
            f"{pair.first} vs {pair.second}",
            str(pair.units),
            str(pair.difference.worse),
            str(pair.difference.better),
            f"{pair.difference.p_value:.3g}",
            "beyond noise" if pair.difference.beyond_noise else "within noise",
        ]
        for pair in pairs
    ]
    header = ["adapters", "tasks", "only the first passes", "only the second passes", "p", ""]
    return [
        "Between every two adapters, the exact McNemar test on the tasks one passes and the other "
        "fails (two-sided, alpha 0.05):",
        "",
        table(header, rows, numeric=(1, 2, 3, 4)),
        "",
    ]


def _agreement_text(agreements: Sequence[verdict.RankAgreement]) -> list[str]:
    if not agreements:
        return []
    told = {
        order: [a for a in agreements if a.order == order] for order in ("agree", "disagree", "tie")
    }

    def listed(items: Sequence[verdict.RankAgreement]) -> str:
        return ", ".join(
            f"{a.first} {a.model} {a.second} (fixture agent: {a.scripted})" for a in items
        )

    text = (
        f"Ranking: of {len(agreements)} pairs of adapters, the model and the fixture agent order "
        f"{len(told['agree'])} alike and {len(told['disagree'])} oppositely"
    )
    if told["disagree"]:
        text += f" ({listed(told['disagree'])})"
    if told["tie"]:
        text += f"; {len(told['tie'])} tied in one ranking or both ({listed(told['tie'])})"
    return [text + ".", ""]


def _causes_text(causes: Mapping[str, Counter[str]]) -> list[str]:
    rows = [
        [
            adapter,
            str(sum(counted.values())),
            "; ".join(f"{cause} {count}" for cause, count in _by_count(counted)),
        ]
        for adapter, counted in causes.items()
    ]
    if not rows:
        return []
    return [
        "What went wrong, by the first cause of each failed pair (report.md names it per task):",
        "",
        table(["adapter", "failed", "causes"], rows, numeric=(1,)),
        "",
        *_glossary(sorted({cause for counted in causes.values() for cause in counted})),
    ]


def _glossary(causes: Sequence[str]) -> list[str]:
    """What each failure code among ``causes`` means, from the code table."""
    named = [cause.removeprefix(FAILURE) for cause in causes if cause.startswith(FAILURE)]
    lines = [f"- {code(name)}: {CODES[name].meaning}" for name in named if name in CODES]
    return [*lines, ""] if lines else []


def _by_count(counted: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counted.items(), key=lambda item: (-item[1], item[0]))


def _servers_section(lanes: Mapping[str, Lane], info: Mapping[str, LaneInfo]) -> list[str]:
    rows = []
    for folder, lane in lanes.items():
        if not folder.startswith(BACKENDS):
            continue
        server = folder[len(BACKENDS) :]
        pair = info[folder].promote if folder in info else None
        verdict = "" if lane.promotion is None else ("PASS" if lane.promotion.passed else "FAIL")
        others = [a for a in lane.adapters() if a != server]
        rows.append(
            [
                _link(folder),
                success(lane, server),
                "; ".join(f"{a} {success(lane, a)}" for a in others),
                calls(lane, server),
                visible_bytes(lane, server),
                f"vs {pair[1]}: {verdict}" if pair is not None and verdict else verdict,
            ]
        )
    if not rows:
        return []
    header = ["server", "success", "beside it", "agent calls", "model-visible bytes", "promotion"]
    return [
        "## The shipped MCP servers",
        "",
        "Real servers from PyPI (and qmd from npm), each run by its backend config alone "
        "([docs/backends.md](../docs/backends.md#shipped-servers)), beside `lexical` on the "
        "bundled fixture with the fixture agent.",
        "",
        table(header, rows, numeric=(1, 3, 4)),
        "",
    ]


def _ranking_section(baselines: Path) -> list[str]:
    lines: list[str] = []
    for path in sorted(baselines.glob(RANKING_PATTERN)):
        folder = path.parent.relative_to(baselines).as_posix()
        document = _document(path, f"baselines/{folder}/{path.name}")
        k = member(document, "settings", "k")
        runs = objects_at(document, "runs")
        rows = [
            [
                str_at(run, "adapterId")
                + ("" if run["variant"] == "default" else f" ({run['variant']})"),
                str(member(run, "overall", "queries")),
                str(member(run, "overall", "refusalQueries")),
                *(f"{member(run, 'overall', name):.3f}" for name in _RANKING_METRICS),
            ]
            for run in sorted(
                runs, key=lambda run: (str_at(run, "adapterId"), str_at(run, "variant"))
            )
        ]
        header = ["adapter", "queries", "refusals", f"recall@{k}", "hit rate", "MRR"]
        fixture = short(str_at(document, "fixtureFingerprint"))
        lines += [
            f"[{folder[:16]}…/]({folder}/) (fixture `{fixture}`, "
            f"{document['goldenCount']} goldens, k = {k}):",
            "",
            table([*header, f"nDCG@{k}", f"precision@{k}"], rows, numeric=tuple(range(1, 8))),
            "",
        ]
    if not lines:
        return []
    return [
        "## The ranking tier",
        "",
        "Retrieval alone against the fixture's goldens (`agentic ranking --gate` compares a run "
        "with it; [docs/reports.md](../docs/reports.md#three-tiers)).",
        "",
        *lines,
    ]


_RANKING_METRICS = ("recall", "hitRate", "mrr", "ndcg", "precision")


def render_baselines(baselines: Path) -> str:
    """The whole page, from the reports under ``baselines``."""
    lanes = read_lanes(baselines)
    info = catalog_lanes()
    lines = [
        HEADER_NOTE,
        "",
        "# Committed baselines",
        "",
        "Each lane's folder holds the four files a run writes (`report.json`, `canonical.json`, "
        "`observations.json`, `report.md`; [docs/reports.md](../docs/reports.md)). "
        "`agentic verify LANE` reruns a lane and requires its committed `resultsFingerprint`. "
        "`llm-cache/` holds recorded endpoint answers that rerun an LLM lane with no endpoint "
        "([docs/agents.md](../docs/agents.md)); `ranking/<fixture fingerprint>/` holds the "
        "ranking tier's baseline.",
        "",
        "This page is generated from those reports: regenerate it with `python -m agentic.docgen`"
        " after staging a lane; `tests/test_baselines_readme.py` fails while it is stale.",
        "",
        *_glance_section(lanes, info),
        *_blind_section(lanes, info),
        *_real_models_section(baselines, lanes, info),
        *_servers_section(lanes, info),
        *_lanes_section(lanes, info),
        *_ranking_section(baselines),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"
