"""The generation report: built as the models of ``generation/schema.py`` (which document its
layout), written as their canonical JSON, and its text view with the mode decomposition."""

from __future__ import annotations

from collections.abc import Sequence

from agentic.contract.canonical import canonical_bytes
from agentic.generation.runner import AskedQuestion, GenerationRun
from agentic.generation.schema import (
    AnswerRecord,
    Decomposition,
    GenerationReport,
    GenerationSummary,
    Mode,
    ModelIdentity,
    ModeReport,
    QuestionRecord,
)
from agentic.ranking.metrics import mean
from agentic.ranking.report import format_rate, tier_header

RATE_NAMES: tuple[str, ...] = (
    "passRate",
    "correctness",
    "refusalCorrectness",
    "leakageRate",
    "thinkTagLeakRate",
)
_ANSWER_FLAGS = {
    "passRate": "passed",
    "correctness": "correct",
    "refusalCorrectness": "refusalCorrect",
    "leakageRate": "leaked",
    "thinkTagLeakRate": "thinkTagLeak",
}


def _question_rate(question: AskedQuestion, flag: str) -> float:
    values = [1.0 if getattr(a.score, flag) else 0.0 for a in question.answers]
    rate = mean(values)
    return 0.0 if rate is None else rate


def _rates(stable: Sequence[AskedQuestion]) -> dict[str, float | None]:
    return {name: mean([_question_rate(q, f) for q in stable]) for name, f in _ANSWER_FLAGS.items()}


def summarize(questions: Sequence[AskedQuestion]) -> GenerationSummary:
    stable = [q for q in questions if not q.unstable]
    grounded = [g for q in stable for a in q.answers if (g := a.score.groundedness) is not None]
    return GenerationSummary(
        questions=len(questions),
        stable=len(stable),
        **_rates(stable),
        groundedness=mean(grounded),
        groundedAnswers=len(grounded),
    )


def mode_report(questions: Sequence[AskedQuestion]) -> ModeReport:
    tags = sorted({t for q in questions for t in q.golden.tags})
    return ModeReport(
        overall=summarize(questions),
        byTag={t: summarize([q for q in questions if t in q.golden.tags]) for t in tags},
        unstable=tuple(q.golden.id for q in questions if q.unstable),
    )


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def decomposition(modes: dict[Mode, ModeReport]) -> Decomposition:
    def rate(mode: Mode) -> float | None:
        found = modes.get(mode)
        return None if found is None else found.overall.passRate

    oracle, e2e, none = rate("oracle"), rate("e2e"), rate("noretrieval")
    return Decomposition(
        oracle=oracle,
        e2e=e2e,
        noretrieval=none,
        oracleMinusE2e=_difference(oracle, e2e),
        e2eMinusNoretrieval=_difference(e2e, none),
    )


def question_record(question: AskedQuestion) -> QuestionRecord:
    return QuestionRecord(
        goldenId=question.golden.id,
        mode=question.mode,
        tags=question.golden.tags,
        expectRefusal=question.golden.expectRefusal,
        contextError=question.context.error_code,
        sources=tuple(source.to_model() for source in question.context.sources),
        unstable=question.unstable,
        answers=tuple(answer.to_model() for answer in question.answers),
    )


def build_report(run: GenerationRun) -> GenerationReport:
    modes = {
        mode: mode_report([q for q in run.questions if q.mode == mode])
        for mode in run.settings.modes
    }
    return GenerationReport(
        schemaVersion="1.0",
        reportKind="generation",
        **dict(tier_header(run.fixture, run.goldens)),
        model=ModelIdentity(id=run.model_id, fingerprint=run.model_fingerprint),
        settings=run.settings.to_model(),
        modes=modes,
        decomposition=decomposition(modes),
        questions=tuple(question_record(q) for q in run.questions),
    )


def report_bytes(report: GenerationReport) -> bytes:
    return canonical_bytes(report.to_json())


# --- text view -------------------------------------------------------------------------------


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


_COLUMNS = ("pass", "correct", "refusal", "leak", "think", "grounded")


def summary_cells(summary: GenerationSummary) -> list[str]:
    return [
        f"{summary.stable}/{summary.questions}",
        *(format_rate(getattr(summary, name)) for name in RATE_NAMES),
        format_rate(summary.groundedness),
    ]


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]


def decomposition_lines(parts: Decomposition) -> list[str]:
    return [
        "Decomposition (pass rate over stable questions):",
        f"  oracle               {format_rate(parts.oracle)}   the model's ceiling with "
        "this prompt",
        f"  e2e                  {format_rate(parts.e2e)}   the product experience",
        f"  noretrieval          {format_rate(parts.noretrieval)}   the model's own knowledge",
        f"  oracle - e2e         {_signed(parts.oracleMinusE2e)}   large: retrieval is not "
        "delivering what the model could use (ours to fix)",
        f"  e2e - noretrieval    {_signed(parts.e2eMinusNoretrieval)}   near zero: retrieval is "
        "not contributing",
        "  A low oracle line means the model cannot use good context: run a larger model.",
    ]


def _failure_lines(question: QuestionRecord) -> list[str]:
    """The question's failed answers, identical texts once with how many repeats gave them."""
    failed = [a for a in question.answers if not a.passed]
    distinct: dict[str, AnswerRecord] = {}
    for answer in failed:
        distinct.setdefault(answer.text, answer)
    lines = []
    for text, answer in distinct.items():
        count = sum(1 for a in failed if a.text == text)
        flat = " ".join(text.split())
        lines.append(
            f"  {question.mode} {question.goldenId} ({count}/{len(question.answers)}):"
            f" correct={answer.correct} refused={answer.refused}"
            f" leaked={answer.leaked}: {flat[:160]}"
        )
    return lines


def _title(report: GenerationReport) -> str:
    settings, model = report.settings, report.model
    return (
        f"Generation tier: model {model.id} ({model.fingerprint[:12]}), "
        f"fixture {report.fixtureFingerprint[:12]}, goldens {report.goldensFingerprint[:12]}"
        f", repeats={settings.repeats}, e2e adapter={settings.adapter} k={settings.k}"
    )


def render_text(report: GenerationReport, *, verbose: bool = False) -> str:
    lines = [_title(report), ""]
    header = ["mode", "stable", *_COLUMNS]
    rows = [[mode, *summary_cells(m.overall)] for mode, m in report.modes.items()]
    lines += table(header, rows)
    for mode, data in report.modes.items():
        unstable = ", ".join(data.unstable) or "none"
        lines.append(f"unstable in {mode} (excluded from gating): {unstable}")
    lines += ["", *decomposition_lines(report.decomposition)]
    if verbose:
        lines += ["", "Failed answers (identical repeats shown once):"]
        lines += [line for q in report.questions for line in _failure_lines(q)] or ["  none"]
    return "\n".join(lines) + "\n"
