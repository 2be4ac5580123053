"""The import rules of DESIGN.md, read from the source: imports run down the data flow, and an
agent can never reach the oracle, the fixture, the adapters or the evaluator."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "agentic"

# stage -> the agentic stages it may import (besides itself). `resources` locates the package's
# data (locks, schemas); agents are denied it, so they cannot find a fixture or an oracle on disk.
ALLOWED: dict[str, frozenset[str]] = {
    "contract": frozenset({"resources"}),
    "fixture": frozenset({"contract", "resources"}),
    "tools": frozenset({"contract"}),
    "agents": frozenset({"contract", "tools"}),
    "adapters": frozenset({"contract", "fixture", "tools", "resources"}),
    "scoring": frozenset({"contract", "fixture", "tools"}),
    "report": frozenset({"contract", "scoring", "resources"}),
}


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return {name for name in found if name.startswith("agentic.")}


def _files(stage: str) -> list[Path]:
    folder = PACKAGE / stage
    return sorted(folder.rglob("*.py")) if folder.is_dir() else [PACKAGE / f"{stage}.py"]


@pytest.mark.parametrize("stage", sorted(ALLOWED))
def test_a_stage_imports_only_the_stages_below_it(stage: str) -> None:
    allowed = ALLOWED[stage] | {stage}
    offending = sorted(
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in _files(stage)
        for module in _imports(path)
        if _stage(module) not in allowed
    )
    assert offending == []
