"""Both qmd lanes through the real runner: ``qmd-lex`` runs every tiny task cold and warm; a lane
that cannot be prepared is the complete harness-error matrix, never a skip or a fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic.adapters.mcp.adapter import McpAdapter
from agentic.adapters.qmd.install import HOME_ENV
from agentic.adapters.qmd.models import MODEL_CACHE_ENV
from agentic.adapters.qmd.profiles import qmd_full_profile, qmd_lex_profile
from agentic.contract.receipt import TrajectoryReceipt
from agentic.fixture.loader import Fixture
from tests.support.qmd import requires_qmd, run_lane

PAIRS = 6  # three tiny tasks, cold and warm


def _failures(receipts: tuple[TrajectoryReceipt, ...]) -> set[tuple[str, str | None]]:
    return {(r.canonical.failure.class_, r.canonical.failure.code) for r in receipts}


def _diagnostics(receipts: tuple[TrajectoryReceipt, ...]) -> str:
    return " ".join(" ".join(r.observations.diagnostics) for r in receipts)


def test_the_full_qmd_lane_without_its_models_is_a_complete_harness_error_matrix(
    tiny_fixture: Fixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MODEL_CACHE_ENV, str(tmp_path))  # an empty cache
    receipts = run_lane(
        tiny_fixture, "qmd", lambda: McpAdapter(qmd_full_profile(), tiny_fixture.snapshot)
    )
    assert len(receipts) == PAIRS
    assert _failures(receipts) == {("harness_error", "adapter_preparation_failed")}
    assert {r.canonical.adapterId for r in receipts} == {"qmd"}
    diagnostics = _diagnostics(receipts)
    assert "qmd_model_missing" in diagnostics or "qmd_not_installed" in diagnostics


def test_qmd_lex_without_an_install_is_a_complete_harness_error_matrix(
    tiny_fixture: Fixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path))
    receipts = run_lane(
        tiny_fixture, "qmd-lex", lambda: McpAdapter(qmd_lex_profile(), tiny_fixture.snapshot)
    )
    assert len(receipts) == PAIRS
    assert _failures(receipts) == {("harness_error", "adapter_preparation_failed")}
    assert "qmd_not_installed" in _diagnostics(receipts)


@pytest.mark.qmd
@pytest.mark.real_process
@requires_qmd
def test_qmd_lex_runs_every_task_cold_and_warm_with_the_fixture_agent(
    tiny_fixture: Fixture,
) -> None:
    receipts = run_lane(
        tiny_fixture, "qmd-lex", lambda: McpAdapter(qmd_lex_profile(), tiny_fixture.snapshot)
    )
    assert len(receipts) == PAIRS
    assert _failures(receipts) == {("none", None)}
    cold = [r for r in receipts if r.canonical.lifecycle == "cold"]
    warm = [r for r in receipts if r.canonical.lifecycle == "warm"]
    assert all(r.observations.timings.startup.valueMs is not None for r in cold)
    assert all(r.observations.timings.startup.valueMs is None for r in warm)
    assert [r.canonical.calls for r in cold] == [r.canonical.calls for r in warm]
    assert all(r.canonical.backendInvocations == 0 for r in receipts)
