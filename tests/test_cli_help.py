"""Every option of every command (and sub-command) says what it does in ``--help``."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from agentic.cli import build_parser

SELF_EXPLAINED = (argparse._HelpAction, argparse._VersionAction)


def options(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    """(command path, action) for every argument below ``parser``, sub-commands included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from options(sub, f"{path} {name}")
        elif not isinstance(action, SELF_EXPLAINED):
            yield path, action


ALL = list(options(build_parser(), "agentic"))


def test_the_walk_reaches_every_command_and_a_nested_one() -> None:
    paths = {path for path, _ in ALL}
    assert {"agentic run", "agentic export", "agentic compare", "agentic fixture pin"} <= paths


@pytest.mark.parametrize(
    ("path", "action"),
    ALL,
    ids=[f"{path} {'/'.join(a.option_strings) or a.dest}" for path, a in ALL],
)
def test_each_option_has_help_text(path: str, action: argparse.Action) -> None:
    assert action.help and action.help is not argparse.SUPPRESS and action.help.strip()
