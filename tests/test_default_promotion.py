"""``agentic run`` without ``--promote``: the default gate (capsule against mcp-reference) only
when the run has both adapters; otherwise no gate, as with ``--promote none``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic.catalog.load import builtin_catalog
from agentic.cli import main
from agentic.commands.run import DEFAULT_PROMOTION, default_promotion
from agentic.fixture.loader import Fixture
from tests.support.tiny_fixture import TASK_A


def test_the_default_adapters_get_the_default_gate() -> None:
    catalog = builtin_catalog()
    assert set(DEFAULT_PROMOTION) <= set(catalog.default_adapters)
    assert default_promotion(None, catalog) == DEFAULT_PROMOTION


def test_a_run_with_both_gate_adapters_gets_the_default_gate() -> None:
    adapters = ("lexical", "mcp-reference", "capsule")
    assert default_promotion(adapters, builtin_catalog()) == DEFAULT_PROMOTION


@pytest.mark.parametrize("adapters", [("lexical",), ("capsule", "lexical"), ("mcp-reference",)])
def test_a_run_lacking_a_gate_adapter_gets_no_gate(adapters: tuple[str, ...]) -> None:
    assert default_promotion(adapters, builtin_catalog()) is None


def _run(fixture: Fixture, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    argv = ["run", "--fixture", str(fixture.root), "--adapter", "lexical", "--task", TASK_A]
    assert main([*argv, "--lifecycle", "cold", "--out", str(out), *extra]) == 0
    markdown: str = capsys.readouterr().out
    return markdown


def test_a_lexical_run_without_promote_reports_no_gate_as_promote_none_does(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    markdown = _run(tiny_fixture, tmp_path / "default", capsys)
    assert json.loads((tmp_path / "default" / "report.json").read_bytes())["promotion"] is None
    assert "\n## Promotion: not requested\n" in markdown
    assert "mcp-reference" not in markdown
    _run(tiny_fixture, tmp_path / "none", capsys, "--promote", "none")
    canonical = [
        json.loads((tmp_path / n / "canonical.json").read_bytes()) for n in ("default", "none")
    ]
    assert canonical[0]["resultsFingerprint"] == canonical[1]["resultsFingerprint"]
