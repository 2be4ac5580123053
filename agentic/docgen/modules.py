"""``docs/modules.md``: every module of the package with a one-line summary from its docstring.

The page is grouped by package, in the order of the data flow. A module's summary is the first
paragraph of its docstring when that is short, or else its first sentence. The docstrings are
read with ``ast``, so nothing is imported. A module that is added, moved or re-described shows
up on the page at the next ``python -m agentic.docgen``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from agentic.docgen.markdown import HEADER_NOTE, code, table

PAGE = "docs/modules.md"

# A summary longer than this is cut to its first sentence.
SHORT = 120
# The packages in the order of the data flow, bottom up; a package not named here follows them.
ORDER = (
    "contract",
    "fixture",
    "adapters",
    "server",
    "agents",
    "catalog",
    "runner",
    "scoring",
    "report",
    "output",
    "lane",
    "ranking",
    "generation",
    "commands",
    "docgen",
)
TOP_LEVEL = "Top level"
# A sentence ends at a full stop, question or exclamation mark followed by a new sentence.
SENTENCE_END = re.compile(r"(?<=[a-z0-9)`\"'][.!?])\s+(?=[A-Z`(])")

INTRO = """\
Every module of the `agentic` package, with the first sentence of its docstring. The page is
generated from the docstrings by `python -m agentic.docgen`, so a new module appears here by
itself. Packages are listed in the order of the data flow, bottom up. The docstring of a
module holds the detail. [architecture.md](architecture.md) says how the stages fit together.
"""


@dataclass(frozen=True)
class Module:
    """One module: its path below the package and its summary."""

    path: str
    summary: str


def summary(docstring: str | None) -> str:
    """The one-line summary of a docstring: its first paragraph if short, else its first
    sentence. A paragraph that leads into a list gives its first sentence too. Double backticks
    become Markdown's single ones."""
    if not docstring:
        return ""
    paragraph = " ".join(docstring.strip().split("\n\n", 1)[0].split())
    if len(paragraph) > SHORT or paragraph.endswith(":"):
        paragraph = SENTENCE_END.split(paragraph, maxsplit=1)[0].removesuffix(":")
    return paragraph.replace("``", "`")


def _docstring(path: Path) -> str | None:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))


def _group(relative: Path) -> str:
    """The package a module file belongs to (``adapters/mcp``), or ``TOP_LEVEL``."""
    return relative.parent.as_posix() if relative.parent.parts else TOP_LEVEL


def _group_key(group: str) -> tuple[int, str]:
    stage = group.split("/", 1)[0]
    if group == TOP_LEVEL:
        return (len(ORDER) + 1, "")
    return (ORDER.index(stage), group) if stage in ORDER else (len(ORDER), group)


def modules(package: Path) -> dict[str, list[Module]]:
    """Every module below ``package`` by group, in page order; ``__init__.py`` files are not
    modules here but their package's description."""
    found: dict[str, list[Module]] = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if path.name == "__init__.py" or "_data" in relative.parts:
            continue
        found.setdefault(_group(relative), []).append(
            Module(relative.as_posix(), summary(_docstring(path)))
        )
    return {group: found[group] for group in sorted(found, key=_group_key)}


def _section(package: Path, group: str, members: list[Module]) -> str:
    if group == TOP_LEVEL:
        heading, about = f"## {TOP_LEVEL}", "Entry points and shared utilities."
    else:
        init = package / group / "__init__.py"
        level = "##" if "/" not in group else "###"
        heading = f"{level} {code(group + '/')}"
        about = summary(_docstring(init)) if init.is_file() else ""
    rows = [(code(module.path), module.summary) for module in members]
    parts = [heading, about, table(("module", "purpose"), rows)]
    return "\n\n".join(part for part in parts if part)


def render_modules(root: Path) -> str:
    """The page for the checkout at ``root``."""
    package = root / "agentic"
    sections = [_section(package, group, members) for group, members in modules(package).items()]
    return "\n\n".join([HEADER_NOTE, "# Modules", INTRO.rstrip(), *sections]) + "\n"
