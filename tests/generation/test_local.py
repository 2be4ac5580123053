"""A short smoke run of the real locked local model (llama.cpp), where its GGUF is installed."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from agentic.cli import main
from agentic.contract.errors import ContractError
from agentic.generation.local import LocalModel, lock_path
from agentic.generation.model import GenerationRequest
from agentic.generation.runner import _generate
from agentic.generation.schema import GenerationReport
from agentic.locks import ModelPreflight, preflight_agent_model
from agentic.runner.bounded import BoundedExecutor
from tests.support.goldens import write_tiny_fixture_with_goldens

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model_available() -> None:
    pytest.importorskip("llama_cpp")
    try:
        preflight_agent_model(lock_path("agent-model"), os.environ)
    except ContractError as exc:
        if exc.code != "model_file_missing":
            raise  # a present but wrong file must fail, never skip
        pytest.skip(f"the locked GGUF is not installed: {exc.message}")


def test_local_model_answers_from_the_oracle_context_repeatably(
    model_available: None, tmp_path: Path
) -> None:
    root = write_tiny_fixture_with_goldens(tmp_path / "fx")
    argv = ["generation", "--model", "local:agent-model", "--fixture", str(root), "--quiet"]
    argv += ["--modes", "oracle", "--limit", "1", "--repeats", "2"]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 0
    report = GenerationReport.model_validate(
        json.loads((tmp_path / "out" / "generation.json").read_bytes())
    )
    answers = [a.text for a in report.questions[0].answers]
    assert report.model.id == "local:agent-model"
    assert answers[0].strip() != ""
    # Temperature 0, a fixed seed and a reset before each answer: the same text twice.
    assert answers[0] == answers[1]
    assert report.modes["oracle"].unstable == ()


class _AnswerThatHangs:
    """A stand-in for llama_cpp.Llama whose answer waits until released; it records a close."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.closed = False

    def reset(self) -> None:
        pass

    def create_chat_completion(self, **options: object) -> dict[str, object]:
        self.release.wait()
        return {"choices": [{"message": {"content": "late"}}]}

    def close(self) -> None:
        self.closed = True


class _Unchanged:
    def ensure_unchanged(self) -> None:
        pass


def test_a_model_whose_answer_was_abandoned_at_its_deadline_is_not_freed_under_it() -> None:
    # Freeing llama.cpp's model while the abandoned thread still decodes crashes the process.
    llama = _AnswerThatHangs()
    preflight = cast(ModelPreflight, SimpleNamespace(model=_Unchanged()))
    model = LocalModel("hangs", preflight, llama)
    request = GenerationRequest(passages=(), turns=(), question="q", seed=1, with_context=False)
    executor = BoundedExecutor()
    with pytest.raises(ContractError, match="gave no answer within"):
        _generate(model, request, executor, 0.05)

    model.close()

    assert not llama.closed
    llama.release.set()


def test_a_model_with_no_answer_in_flight_is_freed_on_close() -> None:
    llama = _AnswerThatHangs()
    llama.release.set()
    preflight = cast(ModelPreflight, SimpleNamespace(model=_Unchanged()))
    model = LocalModel("answers", preflight, llama)
    model.generate(
        GenerationRequest(passages=(), turns=(), question="q", seed=1, with_context=False)
    )

    model.close()

    assert llama.closed
