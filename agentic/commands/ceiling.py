"""Why a task fails under the oracle ceiling: the explanations ``agentic fixture check`` prints.

The ceiling is the deterministic fixture agent reading exactly the oracle's required lines (the
``oracle`` adapter). Every task must succeed there, or the task (not a backend) is wrong. For a
task that fails, this module says why, claim by claim, in the terms a fixture author can fix:
a claim with no cue entry, cues that occur in none of its required lines, a value the agent
reads differently from the oracle's, evidence the agent never cites, a budget too small for the
oracle's own reads, a scope the agent never searches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from agentic.agents.cues import CueTable, parse_cue_table
from agentic.agents.fixture_agent import extract_value, select_lines
from agentic.agents.observed import Item
from agentic.catalog.agent_openers import CUES_FILE
from agentic.contract.envelope import ClaimValue
from agentic.contract.oracle import HiddenOracle, OracleClaim
from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import TaskScore
from agentic.contract.task import AgentTask
from agentic.contract.text import clip
from agentic.fixture.loader import Fixture
from agentic.fixture.spans import extract_span
from agentic.lane import LaneRequest, execute_lane
from agentic.scoring.normalizers import value_correct

_SHOWN = 120  # characters of a line quoted in an explanation
_CLAIM_VALUE: TypeAdapter[ClaimValue] = TypeAdapter(ClaimValue)


@dataclass(frozen=True)
class TaskDiagnosis:
    task_id: str
    reasons: tuple[str, ...]


def read_cue_table(fixture: Fixture, cues_path: Path | None) -> CueTable | None:
    path = cues_path or fixture.root / CUES_FILE
    return parse_cue_table(path.read_bytes()) if path.is_file() else None


def uncued_claims(task: AgentTask, table: CueTable | None) -> tuple[str, ...]:
    """The task's claims the fixture agent has no cues for (it refuses such a task)."""
    return tuple(c.claimKey for c in task.claims if table is None or table.get(c.claimKey) is None)


def diagnose_fixture(fixture: Fixture, cues_path: Path | None = None) -> list[TaskDiagnosis]:
    """Run the ceiling over every task the fixture agent can run, and explain each failure."""
    table = read_cue_table(fixture, cues_path)
    found: list[TaskDiagnosis] = []
    runnable: list[str] = []
    for task in fixture.tasks:
        missing = uncued_claims(task, table)
        if missing:
            reason = f"no cue entry for claim(s) {', '.join(missing)} in {CUES_FILE}"
            found.append(TaskDiagnosis(task.taskId, (reason + ": the fixture agent refuses it",)))
        else:
            runnable.append(task.taskId)
    if runnable and table is not None:
        outcome = execute_lane(
            LaneRequest(
                fixture_dir=fixture.root,
                cues_path=cues_path,
                adapters=("oracle",),
                tasks=tuple(runnable),
                lifecycles=("cold",),
                promote=None,
            )
        )
        receipts = {r.canonical.taskId: r for r in outcome.report.receipts}
        for record in outcome.report.scores:
            if record.score.success != 1:
                task = fixture.task(record.taskId)
                reasons = explain(task, fixture, table, record.score, receipts[record.taskId])
                found.append(TaskDiagnosis(record.taskId, reasons))
    return sorted(found, key=lambda d: d.task_id)


def _required_items(fixture: Fixture, oracle: HiddenOracle, key: str) -> tuple[Item, ...]:
    files = {f.uri: f for f in fixture.corpus_files(oracle.taskId)}
    items = []
    for claim in oracle.claims:
        if claim.claimKey != key:
            continue
        for evidence in claim.requiredEvidence:
            lines = files[evidence.uri].lines
            text = extract_span(lines, evidence.startLine, evidence.endLine) or ""
            items.append(
                Item(
                    evidence.uri,
                    evidence.sourceHash,
                    evidence.startLine,
                    evidence.endLine,
                    text,
                    evidence.spanHash,
                )
            )
    return tuple(items)


def _claim_reasons(task: AgentTask, fixture: Fixture, table: CueTable) -> list[str]:
    oracle = fixture.oracle(task.taskId)
    definitions = {c.claimKey: c for c in task.claims}
    reasons = []
    for claim in oracle.claims:
        cues = table.get(claim.claimKey)
        definition = definitions.get(claim.claimKey)
        if cues is None or definition is None:
            continue
        items = _required_items(fixture, oracle, claim.claimKey)
        lines = select_lines(task, cues, items)
        if not lines:
            shown = "; ".join(repr(clip(i.text, _SHOWN)) for i in items)
            reasons.append(
                f"claim {claim.claimKey}: none of its cues {list(cues.cues)} occurs in its "
                f"required line(s) {shown}"
            )
            continue
        value = extract_value(definition, cues, lines, task.brief.goal)
        quoted = repr(clip(lines[0].text, _SHOWN))
        if value is None:
            reasons.append(
                f"claim {claim.claimKey}: the cued line {quoted} yields no {definition.valueType}"
            )
        elif not _reads_as_expected(value, claim):
            reasons.append(
                f"claim {claim.claimKey}: the fixture agent reads {value['value']!r} from {quoted},"
                f" the oracle expects {claim.expectedValue.value!r}"
            )
        uncited = len(items) - len({line.item for line in lines})
        if uncited:
            reasons.append(
                f"claim {claim.claimKey}: {uncited} of its {len(items)} required lines hold no cue"
                " the agent selects, so they are never cited (cue each required line and set"
                ' select = "all" so every cued line is read)'
            )
    return reasons


def _reads_as_expected(value: Mapping[str, object], claim: OracleClaim) -> bool:
    try:
        actual = _CLAIM_VALUE.validate_python(value)
    except ValidationError:
        return False
    return value_correct(claim.expectedValue, actual, claim.normalizer.id)


def explain(
    task: AgentTask,
    fixture: Fixture,
    table: CueTable,
    score: TaskScore,
    receipt: TrajectoryReceipt,
) -> tuple[str, ...]:
    reasons = _claim_reasons(task, fixture, table)
    canonical = receipt.canonical
    oracle = fixture.oracle(task.taskId)
    if canonical.failure.code is not None:
        reasons.append(
            f"the pair failed: {canonical.failure.code} ({canonical.failure.redactedMessage})"
        )
    if score.unnecessaryRead:
        reasons.append(
            f"over budget: the ceiling used {len(canonical.calls)} call(s) and "
            f"{canonical.modelVisibleUtf8Bytes} bytes; the task allows "
            f"{oracle.completion.maxAgentCalls} and {oracle.completion.maxModelVisibleBytes}"
        )
    if not score.collectionCorrect:
        reasons.append(
            f"scope {oracle.expectedScope.collection} is never searched: the fixture agent "
            f"searches the task's first collection ({task.corpus.collections[0]})"
        )
    if oracle.completion.expectAbstention and not score.correctAbstention:
        reasons.append("an abstention task the agent did not abstain on: " + _gist(score))
    if not reasons:
        reasons.append(_gist(score))
    return tuple(reasons)


def _gist(score: TaskScore) -> str:
    parts: Sequence[tuple[str, tuple[str, ...]]] = (
        ("missing required", score.missingRequiredClaims),
        ("unsupported", score.unsupportedClaims),
        ("cites forbidden evidence", score.forbiddenEvidenceClaims),
        ("invalid output", score.invalidOutputs),
    )
    shown = [f"{label}: {', '.join(keys)}" for label, keys in parts if keys]
    return "; ".join(shown) or "the score is not a success"
