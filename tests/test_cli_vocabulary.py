"""One option name per concept across commands, and ``agentic --help`` listing the commands by
group: both read from the real parsers (``cli.build_parser()`` with every command built)."""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic.cli import COMMANDS, GROUPS, build_parser, main

# A command's former spellings and their one name now (issue 48: "one vocabulary").
RENAMED = (
    ("ranking", "--report", "--out"),
    ("generation", "--report", "--out"),
    ("matrix", "--report", "--out"),
    ("prepare", "--cache", "--index-cache"),
    ("compare", "--promote", "--accept"),
    ("qmd", "verify", "check"),
    ("qmd", "--timeout", "--timeout-ms"),
    ("fixture", "--json", "--format json"),
)
# An option's former value and its one name now: the LLM cache's answers are reused, so that
# "replay" names only a capsule's second pass.
RENAMED_VALUES = (("run", "--llm-cache-mode", "replay", "reuse"),)


def _commands() -> dict[str, argparse.ArgumentParser]:
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("agentic has no subcommands")


COMMAND_PARSERS = _commands()


def _option_strings(parser: argparse.ArgumentParser) -> Iterator[str]:
    """Every option string of ``parser`` and of its subcommands (and their names), hidden ones
    included."""
    for action in parser._actions:
        yield from action.option_strings
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield name
                yield from _option_strings(child)


def test_no_command_names_its_output_folder_report_or_its_index_cache_cache() -> None:
    offenders = {
        name: option
        for name, parser in COMMAND_PARSERS.items()
        for option in _option_strings(parser)
        if option in ("--report", "--cache")
    }
    assert offenders == {}


def test_compare_files_a_baseline_with_accept_alone() -> None:
    options = set(_option_strings(COMMAND_PARSERS["compare"]))
    assert "--accept" in options
    assert "--promote" not in options


@pytest.mark.parametrize(("command", "old", "new"), RENAMED)
def test_each_renamed_option_is_defined_under_its_new_name(
    command: str, old: str, new: str
) -> None:
    # A flag may become an option with a value: `--json` is `--format json`.
    assert new.split(maxsplit=1)[0] in set(_option_strings(COMMAND_PARSERS[command]))


@pytest.mark.parametrize(("command", "old", "new"), RENAMED)
@pytest.mark.parametrize("form", ["separate", "joined"])
def test_a_former_spelling_is_refused_with_its_new_name_in_one_line(
    command: str, old: str, new: str, form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Refused before anything else is checked: a missing --model or report file is not named.
    given = [old, "x"] if form == "separate" else [f"{old}=x"]
    assert main([command, *given]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"agentic: invalid_cli_option: {old} was renamed {new}\n"


def test_the_promotion_gate_of_run_keeps_its_name() -> None:
    assert "--promote" in set(_option_strings(COMMAND_PARSERS["run"]))


@pytest.mark.parametrize(("command", "option", "old", "new"), RENAMED_VALUES)
def test_each_renamed_value_is_a_choice_under_its_new_name_only(
    command: str, option: str, old: str, new: str
) -> None:
    action = next(a for a in COMMAND_PARSERS[command]._actions if option in a.option_strings)
    assert action.choices is not None
    assert new in action.choices
    assert old not in action.choices


@pytest.mark.parametrize("renamed", RENAMED_VALUES)
@pytest.mark.parametrize("form", ["separate", "joined"])
def test_a_former_value_is_refused_with_its_new_name_in_one_line(
    renamed: tuple[str, str, str, str], form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command, option, old, new = renamed
    given = [option, old] if form == "separate" else [f"{option}={old}"]
    assert main([command, *given]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"agentic: invalid_cli_option: {option} {old} was renamed {option} {new}\n"
    )


def test_a_value_that_only_follows_a_renamed_one_elsewhere_is_not_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # "replay" after another option is that option's value, not the cache mode's former name.
    assert main(["run", "--task", "replay", "--llm-cache-mode", "nonsense"]) == 2
    assert "was renamed" not in capsys.readouterr().err


def test_the_table_of_former_spellings_is_the_one_the_cli_refuses() -> None:
    table = {(c.name, old, new) for c in COMMANDS for old, new in c.renamed}
    values = {
        (command, f"{option} {old}", f"{option} {new}")
        for command, option, old, new in RENAMED_VALUES
    }
    assert table == set(RENAMED) | values


# --- agentic --help ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def top_help() -> str:
    return build_parser().format_help()


def _sections(text: str) -> dict[str, list[str]]:
    """Each ``title:`` section of a help text and the command names listed under it."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            current = sections.setdefault(line[:-1], [])
        elif current is not None and line.startswith("  ") and not line.startswith("   "):
            current.append(line.split()[0])
    return sections


def test_top_level_help_lists_every_command_once_under_its_group(top_help: str) -> None:
    sections = _sections(top_help)
    assert [title for title in sections if title in GROUPS] == list(GROUPS)
    listed = {group: sections[group] for group in GROUPS}
    assert listed == {group: [c.name for c in COMMANDS if c.group == group] for group in GROUPS}


def test_top_level_help_groups_run_and_compare_apart_from_authoring_tiers_and_maintenance(
    top_help: str,
) -> None:
    sections = _sections(top_help)
    assert {"run", "compare", "merge"} <= set(sections["run and compare"])
    assert {"ranking", "generation", "matrix"} == set(sections[GROUPS[2]])
    assert "fixture" in sections[GROUPS[1]] and "verify" in sections[GROUPS[3]]


def test_top_level_help_shows_the_help_each_command_registered(top_help: str) -> None:
    lines = [line.split() for line in top_help.splitlines()]
    for command in COMMANDS:
        opening = command.help.split()[:4]
        assert [command.name, *opening] in [words[:5] for words in lines], command.name


def test_agentic_help_prints_the_grouped_listing_and_exits_0(
    capsys: pytest.CaptureFixture[str], top_help: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == top_help
    assert "usage: agentic [-h] [--version] COMMAND ..." in top_help


# --- the glossary of option names (docs/design.md, "Option names") --------------------------

DESIGN = Path(__file__).resolve().parent.parent / "docs" / "design.md"


def _glossary() -> dict[str, str]:
    """The option -> concept rows of docs/design.md's "Option names" table."""
    text = DESIGN.read_text(encoding="utf-8").split("### Option names", 1)[1]
    rows = re.findall(r"^\| `(--[a-z0-9-]+)` \| (.+?) \|$", text, flags=re.MULTILINE)
    return dict(rows)


def _every_long_option() -> set[str]:
    return {
        option
        for parser in COMMAND_PARSERS.values()
        for option in _option_strings(parser)
        if option.startswith("--") and option not in ("--help", "--version")
    }


def test_every_option_of_every_command_is_in_the_glossary() -> None:
    assert sorted(_every_long_option() - set(_glossary())) == []


def test_the_glossary_names_no_option_the_cli_lacks() -> None:
    assert sorted(set(_glossary()) - _every_long_option()) == []


def test_no_two_options_name_one_concept() -> None:
    concepts = Counter(_glossary().values())
    assert [concept for concept, count in concepts.items() if count > 1] == []


@pytest.mark.parametrize(("command", "old", "new"), RENAMED)
def test_no_command_still_defines_its_former_spelling(command: str, old: str, new: str) -> None:
    assert old not in set(_option_strings(COMMAND_PARSERS[command]))
