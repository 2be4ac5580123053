"""The generation tier on the tiny fixture with the mock model (and fakes for instability)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from agentic.catalog.load import builtin_catalog
from agentic.cli import main
from agentic.contract.errors import ContractError
from agentic.fixture.loader import Fixture
from agentic.generation.model import (
    CONTEXT_SYSTEM,
    PLAIN_SYSTEM,
    REFUSAL_TEXT,
    GenerationRequest,
    Message,
    MockModel,
)
from agentic.generation.report import build_report, report_bytes
from agentic.generation.runner import GenerationSettings, run_generation
from agentic.generation.schema import GenerationReport, Mode, QuestionRecord
from agentic.ranking.goldens import load_goldens
from tests.support.goldens import write_tiny_fixture_with_goldens
from tests.support.tiny_fixture import TASK_A, document_bytes


def generate(fixture: Fixture, model: Any, **settings: Any) -> GenerationReport:
    goldens = load_goldens(fixture)
    options: dict[str, Any] = {"repeats": 1, **settings}
    return build_report(
        run_generation(
            fixture, goldens, model, GenerationSettings(**options), catalog=builtin_catalog()
        )
    )


@pytest.fixture(scope="module")
def mock_report(tiny_fixture_with_goldens: Fixture) -> GenerationReport:
    return generate(tiny_fixture_with_goldens, MockModel(), repeats=2)


def question(report: GenerationReport, mode: Mode, golden_id: str) -> QuestionRecord:
    return next(q for q in report.questions if q.mode == mode and q.goldenId == golden_id)


def test_mock_in_oracle_mode_is_the_extractive_ceiling(mock_report: GenerationReport) -> None:
    assert mock_report.modes["oracle"].overall.passRate == 1.0


def test_mock_echoes_exactly_the_injected_context(mock_report: GenerationReport) -> None:
    north = question(mock_report, "oracle", "north-incident")
    expected = document_bytes((TASK_A, "c0a1", "d001.md")).decode("utf-8")
    assert north.answers[0].text == expected


def test_mock_without_context_declines(mock_report: GenerationReport) -> None:
    answers = question(mock_report, "noretrieval", "north-incident").answers
    assert [a.text for a in answers] == [REFUSAL_TEXT, REFUSAL_TEXT]
    assert question(mock_report, "noretrieval", "harbor-budget-code").answers[0].passed


def test_e2e_injects_the_draft_decoy_and_the_echo_fails(mock_report: GenerationReport) -> None:
    atlas = question(mock_report, "e2e", "atlas-launch-date")
    assert [s.uri for s in atlas.sources] == [
        "gno://c0b2/notes/d002.md",
        "gno://c0b2/d001.md",
    ]
    assert atlas.answers[0].correct is False


def test_a_refusal_golden_with_a_non_empty_retrieval_is_not_declined_by_the_mock(
    mock_report: GenerationReport,
) -> None:
    harbor = question(mock_report, "e2e", "harbor-budget-code").answers[0]
    assert (harbor.refused, harbor.passed) == (False, False)


def test_e2e_injects_at_most_k_chunks(tiny_fixture_with_goldens: Fixture) -> None:
    report = generate(tiny_fixture_with_goldens, MockModel(), modes=("e2e",), k=1)
    assert all(len(q.sources) <= 1 for q in report.questions)


def test_every_answer_is_repeated(mock_report: GenerationReport) -> None:
    assert {len(q.answers) for q in mock_report.questions} == {2}


def test_decomposition_is_the_difference_of_pass_rates(mock_report: GenerationReport) -> None:
    parts = mock_report.decomposition
    assert parts.oracle is not None and parts.e2e is not None and parts.noretrieval is not None
    assert parts.oracleMinusE2e == pytest.approx(parts.oracle - parts.e2e)
    assert parts.e2eMinusNoretrieval == pytest.approx(parts.e2e - parts.noretrieval)


def test_report_is_valid_and_byte_identical_across_runs(tiny_fixture_with_goldens: Fixture) -> None:
    first = generate(tiny_fixture_with_goldens, MockModel(), repeats=2)
    second = generate(tiny_fixture_with_goldens, MockModel(), repeats=2)
    written = report_bytes(first)
    assert GenerationReport.model_validate(json.loads(written)) == first
    assert written == report_bytes(second)


class FlakyModel:
    """Answers the north question right on odd calls and wrong on even ones; else declines."""

    model_id = "flaky"
    fingerprint = "f" * 64

    def __init__(self) -> None:
        self.calls = 0

    def generate(self, request: GenerationRequest) -> str:
        if "north" not in request.question:
            return REFUSAL_TEXT
        self.calls += 1
        return "INC-4827" if self.calls % 2 else "INC-5190"

    def close(self) -> None:
        return None


def test_a_question_that_flips_across_repeats_is_unstable(
    tiny_fixture_with_goldens: Fixture,
) -> None:
    report = generate(tiny_fixture_with_goldens, FlakyModel(), modes=("oracle",), repeats=2)
    assert report.modes["oracle"].unstable == ("north-incident",)
    assert question(report, "oracle", "north-incident").unstable is True


def test_unstable_questions_are_excluded_from_the_summary(
    tiny_fixture_with_goldens: Fixture,
) -> None:
    report = generate(tiny_fixture_with_goldens, FlakyModel(), modes=("oracle",), repeats=2)
    overall = report.modes["oracle"].overall
    # Four stable questions remain; the flaky model declines them all, so only the refusal passes.
    assert (overall.questions, overall.stable) == (5, 4)
    assert overall.passRate == pytest.approx(0.25)


def test_the_context_prompt_puts_turns_before_the_question_and_reference() -> None:
    request = GenerationRequest(
        passages=("A", "B"),
        turns=(Message("user", "Earlier?"), Message("assistant", "Yes.")),
        question="Now?",
        seed=1,
        with_context=True,
    )
    messages = request.messages()
    assert [m.role for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[0].content == CONTEXT_SYSTEM
    assert messages[-1].content == "Reference text:\nA\n\n---\n\nB\n\nQuestion: Now?"


def test_a_context_mode_that_retrieved_nothing_still_asks_for_a_refusal() -> None:
    request = GenerationRequest(passages=(), turns=(), question="Q?", seed=1, with_context=True)
    assert request.messages()[-1].content == "Reference text:\n(none)\n\nQuestion: Q?"


def test_noretrieval_uses_the_plain_prompt_without_reference() -> None:
    request = GenerationRequest(passages=(), turns=(), question="Q?", seed=1, with_context=False)
    assert [m.content for m in request.messages()] == [PLAIN_SYSTEM, "Q?"]


class StuckModel:
    model_id = "stuck"
    fingerprint = "0" * 64

    def __init__(self) -> None:
        self.release = threading.Event()

    def generate(self, request: GenerationRequest) -> str:
        self.release.wait()
        return REFUSAL_TEXT

    def close(self) -> None:
        self.release.set()


def test_a_model_that_never_answers_fails_closed(tiny_fixture_with_goldens: Fixture) -> None:
    model = StuckModel()
    try:
        with pytest.raises(ContractError) as caught:
            generate(tiny_fixture_with_goldens, model, modes=("noretrieval",), timeout_s=0.05)
    finally:
        model.close()
    assert caught.value.code == "generation_timeout"


def test_cli_writes_the_report_and_prints_the_decomposition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tiny_fixture_with_goldens(tmp_path / "fx")
    argv = ["generation", "--model", "mock", "--fixture", str(root)]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "oracle - e2e" in out and "e2e - noretrieval" in out
    report = json.loads((tmp_path / "out" / "generation.json").read_bytes())
    assert report["settings"]["repeats"] == 3


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--model", "gpt-4"], "invalid_model_spec"),
        (["--model", "local:no-such-lock"], "model_lock_missing"),
        (["--model", "mock", "--modes", "oracle,judge"], "invalid_cli_option"),
    ],
)
def test_cli_rejects_bad_model_and_mode_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: str
) -> None:
    root = write_tiny_fixture_with_goldens(tmp_path / "fx")
    assert main(["generation", "--fixture", str(root), "--quiet", *argv]) == 2
    assert f"agentic: {code}" in capsys.readouterr().err


def test_matrix_prints_one_row_per_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tiny_fixture_with_goldens(tmp_path / "fx")
    argv = ["matrix", "--models", "mock", "--fixture", str(root), "--repeats", "1"]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[2].split()[:4] == ["model", "oracle", "e2e", "noretrieval"]
    assert table[3].split()[:2] == ["mock", "1.000"]
    assert (tmp_path / "out" / "generation.mock.json").is_file()


def test_matrix_defaults_to_mock_and_the_locked_models() -> None:
    from agentic.commands.matrix import default_models

    assert default_models()[:2] == ("mock", "local:agent-model")
