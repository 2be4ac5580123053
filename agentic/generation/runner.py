"""The generation tier: every golden, in every mode, answered ``repeats`` times and scored.

Modes (what the model is given):

- ``oracle``: the golden's own relevant documents, whole and verbatim, in the golden's order.
  Retrieval is perfect by construction, so a low score here is the model's ceiling.
- ``e2e``: the first k chunks a real adapter's ``search`` returned (the ranking tier's retrieval,
  same arguments): the product experience.
- ``noretrieval``: nothing, and a prompt that lets the model answer from memory: what it knows
  without retrieval.

Retrieval happens once per golden (it is deterministic); only generation repeats. A question
whose pass/fail differs between its repeats is unstable: it is listed, and every summary metric
is computed over the stable questions only, so run-to-run noise cannot gate. Each repeat gets the
same seed: what varies between repeats is the runtime, not the sampling.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import get_args

from agentic.adapters.deadlines import PREPARE_TIMEOUT_S
from agentic.catalog.table import Catalog
from agentic.contract.errors import ContractError
from agentic.fixture.loader import Fixture
from agentic.generation.metrics import AnswerScore, score_answer
from agentic.generation.model import GenerationModel, GenerationRequest, Message
from agentic.generation.schema import (
    AnswerRecord,
    GenerationSettingsModel,
    Mode,
    SourceRecord,
)
from agentic.ranking.goldens import Golden, GoldenSet, recorded_tags
from agentic.ranking.retrieval import Searcher, open_searcher
from agentic.runner.bounded import BoundedExecutor, OperationTimeoutError

MODES: tuple[Mode, ...] = get_args(Mode)
DEFAULT_SEED = 1101
# Every field of an answer's record but its text is the score's attribute of the same name.
_SCORE_FIELDS = tuple(name for name in AnswerRecord.model_fields if name != "text")


def parse_modes(names: Sequence[str]) -> tuple[Mode, ...]:
    """Mode names as given (order kept); an unknown one is ``invalid_cli_option``."""
    known: dict[str, Mode] = {mode: mode for mode in MODES}
    for name in names:
        if name not in known:
            raise ContractError("invalid_cli_option", f"unknown mode {name!r}; modes are {MODES}")
    return tuple(known[name] for name in names)


@dataclass(frozen=True)
class Source:
    """Where one injected passage came from."""

    uri: str
    start_line: int
    end_line: int

    def to_model(self) -> SourceRecord:
        return SourceRecord(uri=self.uri, startLine=self.start_line, endLine=self.end_line)


@dataclass(frozen=True)
class Context:
    passages: tuple[str, ...]
    sources: tuple[Source, ...]
    error_code: str | None = None

    @property
    def text(self) -> str:
        return "\n".join(self.passages)


@dataclass(frozen=True)
class GenerationSettings:
    modes: tuple[Mode, ...] = MODES
    repeats: int = 3
    adapter_id: str = "lexical"
    k: int = 5
    tags: tuple[str, ...] | None = None
    limit: int | None = None
    seed: int = DEFAULT_SEED
    timeout_s: float = 120.0
    # e2e's adapter preparation; like timeout_s, never in the report (it shapes no answer).
    prepare_timeout_s: float = PREPARE_TIMEOUT_S

    def to_model(self) -> GenerationSettingsModel:
        """The settings that shape answers (the timeouts do not, unless they fire)."""
        return GenerationSettingsModel(
            modes=self.modes,
            repeats=self.repeats,
            adapter=self.adapter_id,
            k=self.k,
            tags=recorded_tags(self.tags),
            limit=self.limit,
            seed=self.seed,
        )


@dataclass(frozen=True)
class Answer:
    text: str
    score: AnswerScore

    def to_model(self) -> AnswerRecord:
        scored = {name: getattr(self.score, name) for name in _SCORE_FIELDS}
        return AnswerRecord.model_validate({"text": self.text, **scored})


@dataclass(frozen=True)
class AskedQuestion:
    """One golden asked in one mode: the context it was given and its ``repeats`` answers."""

    golden: Golden
    mode: Mode
    context: Context
    answers: tuple[Answer, ...]

    @property
    def unstable(self) -> bool:
        return len({a.score.passed for a in self.answers}) > 1


@dataclass(frozen=True)
class GenerationRun:
    fixture: Fixture
    goldens: GoldenSet
    settings: GenerationSettings
    model_id: str
    model_fingerprint: str
    questions: tuple[AskedQuestion, ...]


def oracle_context(fixture: Fixture, golden: Golden) -> Context:
    files = [fixture.snapshot.by_uri(uri) for uri in golden.relevantDocIds]
    present = [f for f in files if f is not None]
    return Context(
        passages=tuple(f.text for f in present),
        sources=tuple(Source(f.uri, 1, max(1, len(f.lines))) for f in present),
    )


def e2e_context(search: Searcher, fixture: Fixture, golden: Golden, k: int) -> Context:
    outcome = search(fixture.task(golden.taskId), golden.search_arguments(k, None))
    chunks = outcome.chunks[:k]
    return Context(
        passages=tuple(c.text for c in chunks),
        sources=tuple(Source(c.uri, c.start_line, c.end_line) for c in chunks),
        error_code=outcome.error_code,
    )


EMPTY_CONTEXT = Context(passages=(), sources=())


def build_contexts(
    fixture: Fixture, goldens: Sequence[Golden], settings: GenerationSettings, catalog: Catalog
) -> dict[tuple[str, Mode], Context]:
    contexts: dict[tuple[str, Mode], Context] = {}
    for golden in goldens:
        if "oracle" in settings.modes:
            contexts[(golden.id, "oracle")] = oracle_context(fixture, golden)
        if "noretrieval" in settings.modes:
            contexts[(golden.id, "noretrieval")] = EMPTY_CONTEXT
    if "e2e" in settings.modes:
        with open_searcher(
            fixture,
            settings.adapter_id,
            catalog,
            timeout_s=settings.timeout_s,
            prepare_timeout_s=settings.prepare_timeout_s,
        ) as search:
            for golden in goldens:
                contexts[(golden.id, "e2e")] = e2e_context(search, fixture, golden, settings.k)
    return contexts


def request_for(golden: Golden, mode: Mode, context: Context, seed: int) -> GenerationRequest:
    return GenerationRequest(
        passages=context.passages,
        turns=tuple(Message(t.role, t.content) for t in golden.turns),
        question=golden.query,
        seed=seed,
        with_context=mode != "noretrieval",
    )


def _generate(
    model: GenerationModel, request: GenerationRequest, executor: BoundedExecutor, timeout_s: float
) -> str:
    try:
        return executor.run(lambda: model.generate(request), timeout_s)
    except OperationTimeoutError:
        raise ContractError(
            "generation_timeout", f"{model.model_id} gave no answer within {timeout_s:g} s"
        ) from None


def run_generation(
    fixture: Fixture,
    goldens: GoldenSet,
    model: GenerationModel,
    settings: GenerationSettings,
    *,
    catalog: Catalog,
    progress: Callable[[str], None] = lambda message: None,
) -> GenerationRun:
    selected = goldens.goldens
    contexts = build_contexts(fixture, selected, settings, catalog)
    questions: list[AskedQuestion] = []
    executor = BoundedExecutor()
    try:
        for mode in settings.modes:
            progress(f"{model.model_id}: {mode}, {len(selected)} goldens x {settings.repeats}")
            for golden in selected:
                context = contexts[(golden.id, mode)]
                request = request_for(golden, mode, context, settings.seed)
                answers = []
                for _ in range(settings.repeats):
                    text = _generate(model, request, executor, settings.timeout_s)
                    answers.append(Answer(text, score_answer(text, golden, context.text)))
                questions.append(AskedQuestion(golden, mode, context, tuple(answers)))
    finally:
        executor.close()
    return GenerationRun(
        fixture=fixture,
        goldens=goldens,
        settings=settings,
        model_id=model.model_id,
        model_fingerprint=model.fingerprint,
        questions=tuple(questions),
    )
