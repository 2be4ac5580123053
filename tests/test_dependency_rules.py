"""The import rules of docs/architecture.md ("Import rules"), read from the source: imports run
down the data flow, and an agent can never reach the oracle, the fixture, the adapters or the
evaluator. Every form of import counts: ``import agentic.x``, ``from agentic.x import y``,
``from agentic import x`` and relative imports."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "agentic"

# stage -> the agentic stages it may import (besides itself), for every stage of the package,
# bottom up. `resources` locates the package's data (locks, schemas); agents are denied it, so
# they cannot find a fixture or an oracle on disk.
ALLOWED: dict[str, frozenset[str]] = {
    "processes": frozenset(),
    "resources": frozenset(),
    "contract": frozenset({"resources"}),
    "fixture": frozenset({"contract", "resources"}),
    "tools": frozenset({"contract"}),
    "locks": frozenset({"contract"}),
    "agents": frozenset({"contract", "tools"}),
    "adapters": frozenset({"contract", "fixture", "tools", "resources", "processes"}),
    # The reference server imports only what it serves, to keep its cold start small.
    "server": frozenset({"contract", "adapters"}),
    "catalog": frozenset({"adapters", "agents", "contract", "fixture", "locks", "resources"}),
    "runner": frozenset({"adapters", "agents", "contract", "fixture", "tools"}),
    "scoring": frozenset({"contract", "fixture", "tools"}),
    # The output folder writes bytes it is given: it knows no report, fixture or run.
    "output": frozenset({"contract"}),
    "report": frozenset({"contract", "scoring", "resources", "output"}),
    # A lane drives everything below it; nothing below imports a lane.
    "lane": frozenset(
        {
            "adapters",
            "agents",
            "catalog",
            "contract",
            "fixture",
            "locks",
            "output",
            "report",
            "resources",
            "runner",
            "scoring",
            "processes",
            "tools",
        }
    ),
    "ranking": frozenset({"adapters", "catalog", "contract", "fixture"}),
    "generation": frozenset(
        {
            "adapters",
            "agents",
            "catalog",
            "contract",
            "fixture",
            "locks",
            "ranking",
            "resources",
            "runner",
        }
    ),
    "commands": frozenset(
        {
            "adapters",
            "agents",
            "catalog",
            "contract",
            "fixture",
            "generation",
            "lane",
            "output",
            "ranking",
            "report",
            "resources",
            "runner",
            "scoring",
            "server",
            "tools",
        }
    ),
    # The command line imports its subcommands by name, only when one runs (cli.COMMANDS).
    "cli": frozenset({"contract", "processes"}),
    "__main__": frozenset({"cli"}),
    "docgen": frozenset(
        {
            "adapters",
            "agents",
            "catalog",
            "cli",
            "contract",
            "fixture",
            "locks",
            "report",
            "resources",
            "scoring",
        }
    ),
    # The public plugin API: what a plugin package imports; nothing in the package imports it.
    "plugins": frozenset({"adapters", "agents", "catalog", "contract", "fixture", "tools"}),
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


def _is_module(dotted: str) -> bool:
    """Whether a dotted name (``agentic.adapters.ids``) is a module or package of the source."""
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or path.is_dir()


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _from_target(node, path)
            # ``from package import x``: the submodule when x is a module (``from agentic import
            # resources``, ``from agentic.adapters import ids``), else the package itself (the
            # root's ``__version__``, which every stage may read).
            found.update(
                f"{target}.{alias.name}" if _is_module(f"{target}.{alias.name}") else target
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


def _stages_on_disk() -> set[str]:
    """Every stage of the package: its subpackages and its top-level modules."""
    packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    modules = {path.stem for path in PACKAGE.glob("*.py") if path.name != "__init__.py"}
    return packages | modules


def test_every_stage_of_the_package_has_its_rule() -> None:
    # A stage without a rule could import anything: an arrow back up the layers would pass.
    assert sorted(_stages_on_disk() - ALLOWED.keys()) == []


def test_every_rule_names_stages_of_the_package() -> None:
    named = set(ALLOWED) | {stage for allowed in ALLOWED.values() for stage in allowed}
    assert sorted(named - _stages_on_disk()) == []


def test_the_rules_draw_no_circle_between_stages() -> None:
    # Layers: with the rules free of circles, an import that runs back up is one no rule allows.
    rules = {stage: set(allowed) for stage, allowed in ALLOWED.items()}
    assert _circles(rules) == []


def test_a_from_agentic_import_of_a_module_counts_as_an_import_of_that_stage() -> None:
    # contract/schemas.py reads its schema files through ``from agentic import resources``.
    assert "agentic.resources" in _imports(PACKAGE / "contract" / "schemas.py")


def test_a_from_package_import_of_a_module_counts_as_an_import_of_that_module() -> None:
    # lexical.py reads its id through ``from agentic.adapters import ids, indexed, reads``.
    assert "agentic.adapters.ids" in _imports(PACKAGE / "adapters" / "lexical.py")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Every module of the package -> the package's modules it imports, wherever in the file."""
    files = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
    return {
        name: {module for module in _imports(path) if module in files and module != name}
        for name, path in files.items()
    }


def _reachable(graph: Mapping[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    stack = [start]
    while stack:
        for module in graph[stack.pop()]:
            if module not in seen:
                seen.add(module)
                stack.append(module)
    return seen


def _circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, each sorted."""
    reach = {name: _reachable(graph, name) for name in graph}
    components = {
        frozenset(other for other in reach[name] if name in reach[other]) for name in graph
    }
    return sorted(sorted(component) for component in components if len(component) > 1)


def test_the_circle_finder_reports_modules_that_import_each_other_through_a_third() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]


def test_no_module_imports_itself_back_through_others() -> None:
    # Function-level and TYPE_CHECKING imports count: a circle drawn there still ties the modules
    # together (neither can move or be understood alone), it only fails later.
    assert _circles(_import_graph()) == []
