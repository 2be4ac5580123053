"""The import rules of docs/architecture.md (section 3), read from the source: imports run down
the data flow, and an agent can never reach the oracle, the fixture, the adapters or the
evaluator. Every form of import counts: ``import agentic.x``, ``from agentic.x import y``,
``from agentic import x`` and relative imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "agentic"

# stage -> the agentic stages it may import (besides itself). `resources` locates the package's
# data (locks, schemas); agents are denied it, so they cannot find a fixture or an oracle on disk.
ALLOWED: dict[str, frozenset[str]] = {
    "processes": frozenset(),
    "contract": frozenset({"resources"}),
    "fixture": frozenset({"contract", "resources"}),
    "tools": frozenset({"contract"}),
    "agents": frozenset({"contract", "tools"}),
    "adapters": frozenset({"contract", "fixture", "tools", "resources", "processes"}),
    "scoring": frozenset({"contract", "fixture", "tools"}),
    "report": frozenset({"contract", "scoring", "resources"}),
}


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _package_of(path: Path) -> list[str]:
    """The dotted package a module file belongs to, as parts (``agentic/a/b.py`` -> agentic, a)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return parts[:-1]


def _from_target(node: ast.ImportFrom, path: Path) -> str:
    """The absolute module a ``from ... import`` names, relative imports resolved."""
    if node.level == 0:
        return node.module or ""
    package = _package_of(path)
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _is_submodule(name: str) -> bool:
    return (PACKAGE / f"{name}.py").is_file() or (PACKAGE / name).is_dir()


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _from_target(node, path)
            if target != "agentic":
                found.add(target)
                continue
            # ``from agentic import x``: a stage when x is a module, else the package root
            # (``__version__``), which every stage may read.
            found.update(
                f"agentic.{alias.name}" if _is_submodule(alias.name) else "agentic"
                for alias in node.names
            )
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


def test_a_from_agentic_import_of_a_module_counts_as_an_import_of_that_stage() -> None:
    # contract/schemas.py reads its schema files through ``from agentic import resources``.
    assert "agentic.resources" in _imports(PACKAGE / "contract" / "schemas.py")
