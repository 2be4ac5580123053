"""A short smoke run of the real locked local model (llama.cpp), where its GGUF is installed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.contract.errors import ContractError
from agentic.generation.local import lock_path
from agentic.generation.schema import GenerationReport
from agentic.locks import preflight_agent_model
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
    assert main([*argv, "--report", str(tmp_path / "out")]) == 0
    report = GenerationReport.model_validate(
        json.loads((tmp_path / "out" / "generation.json").read_bytes())
    )
    answers = [a.text for a in report.questions[0].answers]
    assert report.model.id == "local:agent-model"
    assert answers[0].strip() != ""
    # Temperature 0, a fixed seed and a reset before each answer: the same text twice.
    assert answers[0] == answers[1]
    assert report.modes["oracle"].unstable == ()
