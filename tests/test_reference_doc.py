"""docs/reference.md is generated from the code (``agentic/docgen/reference.py``) and must be the
committed file byte for byte; every environment variable the code reads is on it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentic.cli import COMMANDS
from agentic.contract.codes import ENTRIES
from agentic.docgen.environment import VARIABLES
from agentic.docgen.reference import PAGE, render_reference

ROOT = Path(__file__).resolve().parent.parent
# The code the kit runs: the package and the container pipeline.
SOURCES = (ROOT / "agentic", ROOT / "containers")
REGENERATE = "run `python -m agentic.docgen` and commit the result"
UNDOCUMENTED = f"add them to agentic/docgen/environment.py, then {REGENERATE}"

AGENTIC_NAME = re.compile(r"\bAGENTIC_[A-Z0-9_]*[A-Z0-9]\b")
# A variable read by a literal name: environ.get("X"), getenv("X"), environ["X"], X_ENV = "X".
READ_BY_NAME = re.compile(
    r"""(?:environ|env)\.get\(\s*"([A-Z][A-Z0-9_]*)"|getenv\(\s*"([A-Z][A-Z0-9_]*)"|"""
    r"""environ\[\s*"([A-Z][A-Z0-9_]*)"\s*\]|"""
    r"""^\s*[A-Z_]*_ENV\s*(?::[^=\n]*)?=\s*"([A-Z][A-Z0-9_]*)\"""",
    re.MULTILINE,
)


def _source_texts() -> dict[Path, str]:
    return {
        path: path.read_text(encoding="utf-8")
        for source in SOURCES
        for path in sorted(source.rglob("*.py"))
    }


def _documented() -> set[str]:
    return {variable.name for variable in VARIABLES}


@pytest.fixture(scope="module")
def page() -> str:
    return render_reference()


def test_the_committed_reference_page_is_the_generated_one(page: str) -> None:
    committed = (ROOT / PAGE).read_text(encoding="utf-8")
    assert committed == page, f"{PAGE} is stale: {REGENERATE}"


def test_rendering_does_not_depend_on_the_terminal_width(
    page: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "20")
    assert render_reference() == page


def test_every_agentic_variable_in_the_code_is_documented() -> None:
    named = {name for text in _source_texts().values() for name in AGENTIC_NAME.findall(text)}
    assert named - _documented() == set(), UNDOCUMENTED


def test_every_variable_read_by_a_literal_name_is_documented() -> None:
    read = {
        next(group for group in match.groups() if group)
        for text in _source_texts().values()
        for match in READ_BY_NAME.finditer(text)
    }
    assert read - _documented() == set(), UNDOCUMENTED


def test_every_documented_variable_occurs_in_the_module_it_names() -> None:
    missing = [
        (v.name, v.module)
        for v in VARIABLES
        if v.name not in (ROOT / v.module).read_text(encoding="utf-8")
    ]
    assert missing == []


def test_every_documented_variable_is_on_the_page(page: str) -> None:
    assert [v.name for v in VARIABLES if f"| `{v.name}` |" not in page] == []


def test_every_command_has_a_section(page: str) -> None:
    assert [c.name for c in COMMANDS if f"### `agentic {c.name}`" not in page] == []


def test_every_option_of_run_is_listed(page: str) -> None:
    section = page.split("### `agentic run`", 1)[1].split("\n### ", 1)[0]
    for option in ("--lane", "--adapter", "--resume", "--shard", "--executor", "--key-file"):
        assert f"| `{option}` |" in section, option


def test_every_code_of_the_code_table_is_listed(page: str) -> None:
    assert [e.code for e in ENTRIES if f"| `{e.code}` |" not in page] == []


def test_the_exit_codes_are_the_constants_of_the_code(page: str) -> None:
    section = page.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 143 |"):
        assert code in section, code
