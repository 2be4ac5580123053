"""The generation report (canonical JSON) and its text view with the mode decomposition.

Layout (``reportKind: "generation"``)::

    {schemaVersion, reportKind, fixtureFingerprint, fixtureVersion, goldensFingerprint,
     goldenCount, model: {id, fingerprint}, settings,
     modes: {<mode>: {overall: Summary, byTag: {tag: Summary}, unstable: [goldenId]}},
     decomposition: {oracle, e2e, noretrieval, oracleMinusE2e, e2eMinusNoretrieval},
     questions: [{goldenId, mode, tags, expectRefusal, contextError, sources, unstable,
                  answers: [{text, passed, correct, refused, refusalCorrect, leaked,
                             thinkTagLeak, numericClaims, groundedClaims, groundedness}]}]}

    Summary = {questions, stable, passRate, correctness, refusalCorrectness, leakageRate,
               thinkTagLeakRate, groundedness, groundedAnswers}

Every Summary rate is over stable questions only: per question the mean over its repeats, then
the mean over questions. ``groundedness`` is the mean over the stable questions' answers that
make a numeric claim (``groundedAnswers`` of them). Rates are null where nothing was measured.
The decomposition uses ``passRate``.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentic.contract.canonical import canonical_bytes
from agentic.contract.strict_json import JsonObject
from agentic.generation.runner import AskedQuestion, GenerationRun
from agentic.ranking.goldens import tier_report_header
from agentic.ranking.metrics import mean
from agentic.ranking.report import format_rate

SCHEMA_VERSION = "1.0"
REPORT_KIND = "generation"
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


def summarize(questions: Sequence[AskedQuestion]) -> JsonObject:
    stable = [q for q in questions if not q.unstable]
    summary: JsonObject = {"questions": len(questions), "stable": len(stable)}
    for name, flag in _ANSWER_FLAGS.items():
        summary[name] = mean([_question_rate(q, flag) for q in stable])
    grounded = [g for q in stable for a in q.answers if (g := a.score.groundedness) is not None]
    summary["groundedness"] = mean(grounded)
    summary["groundedAnswers"] = len(grounded)
    return summary


def mode_json(questions: Sequence[AskedQuestion]) -> JsonObject:
    tags = sorted({t for q in questions for t in q.golden.tags})
    return {
        "overall": summarize(questions),
        "byTag": {t: summarize([q for q in questions if t in q.golden.tags]) for t in tags},
        "unstable": [q.golden.id for q in questions if q.unstable],
    }


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def decomposition(modes: dict[str, JsonObject]) -> dict[str, float | None]:
    def rate(mode: str) -> float | None:
        found = modes.get(mode)
        return None if found is None else found["overall"]["passRate"]

    oracle, e2e, none = rate("oracle"), rate("e2e"), rate("noretrieval")
    return {
        "oracle": oracle,
        "e2e": e2e,
        "noretrieval": none,
        "oracleMinusE2e": _difference(oracle, e2e),
        "e2eMinusNoretrieval": _difference(e2e, none),
    }


def question_json(question: AskedQuestion) -> JsonObject:
    return {
        "goldenId": question.golden.id,
        "mode": question.mode,
        "tags": list(question.golden.tags),
        "expectRefusal": question.golden.expectRefusal,
        "contextError": question.context.error_code,
        "sources": [source.to_json() for source in question.context.sources],
        "unstable": question.unstable,
        "answers": [answer.to_json() for answer in question.answers],
    }


def report_json(run: GenerationRun) -> JsonObject:
    modes: dict[str, JsonObject] = {
        mode: mode_json([q for q in run.questions if q.mode == mode]) for mode in run.settings.modes
    }
    return {
        **tier_report_header(SCHEMA_VERSION, REPORT_KIND, run.fixture, run.goldens),
        "model": {"id": run.model_id, "fingerprint": run.model_fingerprint},
        "settings": run.settings.to_json(),
        "modes": modes,
        "decomposition": decomposition(modes),
        "questions": [question_json(q) for q in run.questions],
    }


def report_bytes(report: JsonObject) -> bytes:
    return canonical_bytes(report)


# --- text view -------------------------------------------------------------------------------


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


_COLUMNS = ("pass", "correct", "refusal", "leak", "think", "grounded")


def summary_cells(summary: JsonObject) -> list[str]:
    return [
        f"{summary['stable']}/{summary['questions']}",
        *(format_rate(summary[name]) for name in RATE_NAMES),
        format_rate(summary["groundedness"]),
    ]


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]


def decomposition_lines(parts: JsonObject) -> list[str]:
    return [
        "Decomposition (pass rate over stable questions):",
        f"  oracle               {format_rate(parts['oracle'])}   the model's ceiling with "
        "this prompt",
        f"  e2e                  {format_rate(parts['e2e'])}   the product experience",
        f"  noretrieval          {format_rate(parts['noretrieval'])}   the model's own knowledge",
        f"  oracle - e2e         {_signed(parts['oracleMinusE2e'])}   large: retrieval is not "
        "delivering what the model could use (ours to fix)",
        f"  e2e - noretrieval    {_signed(parts['e2eMinusNoretrieval'])}   near zero: retrieval is "
        "not contributing",
        "  A low oracle line means the model cannot use good context: run a larger model.",
    ]


def _failure_lines(questions: Sequence[JsonObject]) -> list[str]:
    lines = []
    for question in questions:
        failed = [a for a in question["answers"] if not a["passed"]]
        distinct: dict[str, JsonObject] = {}
        for answer in failed:
            distinct.setdefault(answer["text"], answer)
        for text, answer in distinct.items():
            count = sum(1 for a in failed if a["text"] == text)
            flat = " ".join(text.split())
            lines.append(
                f"  {question['mode']} {question['goldenId']} ({count}/{len(question['answers'])}):"
                f" correct={answer['correct']} refused={answer['refused']}"
                f" leaked={answer['leaked']}: {flat[:160]}"
            )
    return lines


def render_text(report: JsonObject, *, verbose: bool = False) -> str:
    settings = report["settings"]
    lines = [
        f"Generation tier: model {report['model']['id']} ({report['model']['fingerprint'][:12]}), "
        f"fixture {report['fixtureFingerprint'][:12]}, goldens {report['goldensFingerprint'][:12]}"
        f", repeats={settings['repeats']}, e2e adapter={settings['adapter']} k={settings['k']}",
        "",
    ]
    header = ["mode", "stable", *_COLUMNS]
    rows = [[mode, *summary_cells(m["overall"])] for mode, m in report["modes"].items()]
    lines += table(header, rows)
    for mode, data in report["modes"].items():
        unstable = ", ".join(data["unstable"]) or "none"
        lines.append(f"unstable in {mode} (excluded from gating): {unstable}")
    lines += ["", *decomposition_lines(report["decomposition"])]
    if verbose:
        lines += ["", "Failed answers (identical repeats shown once):"]
        lines += _failure_lines(report["questions"]) or ["  none"]
    return "\n".join(lines) + "\n"
