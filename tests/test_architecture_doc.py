"""docs/architecture.md has a row for every module of the package, so its layout cannot again
miss half of them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agentic"
PAGE = ROOT / "docs" / "architecture.md"
COMMANDS_ROW = "| `commands/*.py` |"


def _modules() -> list[str]:
    """Every module path relative to the package; ``__init__.py`` only restates its package."""
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py" and "_data" not in path.parts
    )


def _listed(module: str, text: str, commands_row: str) -> bool:
    if module.startswith("commands/"):
        name = module.removeprefix("commands/")
        return f"`{name.removesuffix('.py')}`" in commands_row or f"`{name}`" in commands_row
    return f"| `{module}` |" in text


def test_every_module_of_the_package_has_a_row() -> None:
    text = PAGE.read_text(encoding="utf-8")
    commands_row = next(line for line in text.splitlines() if line.startswith(COMMANDS_ROW))
    missing = [module for module in _modules() if not _listed(module, text, commands_row)]
    assert missing == [], "add a row to docs/architecture.md, section 1, for each"
