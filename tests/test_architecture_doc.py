"""docs/modules.md lists every module of the package and is the page the docgen renders now;
docs/architecture.md's import rules are the table the dependency test enforces."""

from __future__ import annotations

import re
from pathlib import Path

from agentic.docgen.modules import PAGE, modules, render_modules
from tests.test_dependency_rules import ALLOWED

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agentic"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
REGENERATE = "run `python -m agentic.docgen` and commit the result"
ROW = re.compile(r"^\| `([\w./]+?)/?(?:\.py)?` \| (.*) \|$")


def _modules() -> list[str]:
    """Every module path relative to the package; ``__init__.py`` only restates its package."""
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py" and "_data" not in path.parts
    )


def test_every_module_of_the_package_has_a_row_on_the_modules_page() -> None:
    text = (ROOT / PAGE).read_text(encoding="utf-8")
    missing = [module for module in _modules() if f"| `{module}` |" not in text]
    assert missing == [], REGENERATE


def test_the_committed_modules_page_is_the_generated_one() -> None:
    committed = (ROOT / PAGE).read_text(encoding="utf-8")
    assert committed == render_modules(ROOT), f"{PAGE} is stale: {REGENERATE}"


def test_every_module_has_a_summary_of_one_short_line() -> None:
    listed = [module for group in modules(PACKAGE).values() for module in group]
    assert [m.path for m in listed if not m.summary] == []
    assert [m.path for m in listed if "\n" in m.summary] == []


def _import_rules() -> dict[str, frozenset[str]]:
    """The table of the page's "Import rules" section: stage -> the stages it may import."""
    section = ARCHITECTURE.read_text(encoding="utf-8").split("## Import rules", 1)[1]
    section = section.split("\n## ", 1)[0]
    rules = {}
    for line in section.splitlines():
        match = ROW.match(line)
        if match:
            rules[match.group(1)] = frozenset(re.findall(r"`(\w+)`", match.group(2)))
    return rules


def test_the_import_rules_on_the_page_are_the_ones_the_test_enforces() -> None:
    assert _import_rules() == ALLOWED
