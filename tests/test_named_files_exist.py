"""A comment, docstring or page that names one of the kit's source files names one that exists:
a renamed or deleted module leaves no pointer to nowhere behind."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("agentic", "tests", "benchmarks", "containers")
PAGES = ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "docs")
# A Python file named by path or by name: ``lane/journal.py``, (cli.py), `agentic/cli.py`.
NAMED = re.compile(r"(?<![\w/.-])((?:[A-Za-z_][\w-]*/)*[A-Za-z_][\w-]*\.py)(?![\w/])")
# Files of the user's world or of other projects, named as examples.
ELSEWHERE = frozenset(
    {
        "my_package/agent.py",  # docs/agents.md: a user's plugin package
        "my_package/adapter.py",
        "server.py",  # a user's MCP server, in examples and docs
        "notes_server.py",
        "llama_cpp/server/app.py",
        "setup.py",
        "agentic_test_plugin.py",  # written by tests/test_catalog.py for the test
        "agentic/a/b.py",  # placeholders in tests of path handling
        "agentic/x.py",
    }
)


@cache
def repo_python_files() -> tuple[Path, ...]:
    found: list[Path] = []
    for top in (*SOURCES, "examples", "fixtures", "noxfile.py"):
        path = ROOT / top
        found += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return tuple(p for p in found if ".nox" not in p.parts)


def exists(name: str, beside: Path) -> bool:
    if name in ELSEWHERE:
        return True
    if (beside.parent / name).is_file():
        return True
    return any(p.as_posix().endswith("/" + name) for p in repo_python_files())


def texts() -> list[Path]:
    files = list(repo_python_files())
    for page in PAGES:
        path = ROOT / page
        files += [path] if path.is_file() else sorted(path.rglob("*.md"))
    return [p for p in files if p.name != "reference.md"]  # generated from the code table


def test_every_python_file_named_in_the_source_and_docs_exists() -> None:
    missing = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in texts()
        for name in set(NAMED.findall(path.read_text(encoding="utf-8")))
        if not exists(name, path)
    )
    assert missing == []
