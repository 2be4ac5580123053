"""``--quiet`` is quiet on every command that takes it: nothing on stdout, nothing on stderr but
the one line of an error (exit 2); the exit code is the verdict and the files written are the
same (docs/reports.md). ``verify --quiet`` is in test_verify_command.py and ``ranking --gate
--quiet`` in test_ranking_gate.py."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from agentic.cli import build_parser, main
from agentic.fixture.loader import Fixture
from agentic.lane.journal import KEY_FILE_ENV
from tests.support.tiny_fixture import TASK_A

LEXICAL_PAIR = ("--adapter", "lexical", "--task", TASK_A, "--lifecycle", "cold")
QUIET_COMMANDS = ("run", "merge", "ranking", "generation", "matrix", "verify")


def _quiet(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--quiet"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _takes_quiet(parser: argparse.ArgumentParser) -> bool:
    return any("--quiet" in action.option_strings for action in parser._actions)


def test_exactly_the_commands_that_print_a_result_take_quiet() -> None:
    (commands,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    taking = {name for name, parser in commands.choices.items() if _takes_quiet(parser)}
    assert taking == set(QUIET_COMMANDS)


def test_run_quiet_prints_nothing_and_writes_the_report(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ("run", "--fixture", str(tiny_fixture.root), *LEXICAL_PAIR, "--out", str(out))
    assert _quiet(capsys, *argv) == (0, "", "")
    assert (out / "report.md").read_text(encoding="utf-8").startswith("# ")


def test_run_quiet_still_prints_the_one_line_of_an_error(
    tiny_fixture: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _quiet(
        capsys, "run", "--fixture", str(tiny_fixture.root), "--adapter", "no-such-adapter"
    )
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("agentic: invalid_adapter_schedule: "), err


def test_merge_quiet_prints_nothing_and_writes_the_report(
    tiny_fixture: Fixture,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the run's key stays here
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    run = ("run", "--fixture", str(tiny_fixture.root), *LEXICAL_PAIR, "--promote", "none")
    shards = [tmp_path / f"shard-{k}" for k in (1, 2)]
    for k, shard in enumerate(shards, start=1):
        assert _quiet(capsys, *run, "--shard", f"{k}/2", "--out", str(shard)) == (0, "", "")
    merged = tmp_path / "merged"
    merge = ("merge", *map(str, shards), "--fixture", str(tiny_fixture.root), "--out", str(merged))
    assert _quiet(capsys, *merge) == (0, "", "")
    assert (merged / "report.json").is_file()


def test_ranking_quiet_prints_neither_the_summary_nor_what_it_wrote(
    tiny_fixture_with_goldens: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ("ranking", "--fixture", str(tiny_fixture_with_goldens.root), "--adapter", "lexical")
    assert _quiet(capsys, *argv, "--out", str(out)) == (0, "", "")
    assert (out / "ranking.txt").is_file()


def test_generation_quiet_prints_neither_the_table_nor_what_it_wrote(
    tiny_fixture_with_goldens: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ("generation", "--model", "mock", "--fixture", str(tiny_fixture_with_goldens.root))
    assert _quiet(capsys, *argv, "--repeats", "1", "--out", str(out)) == (0, "", "")
    assert (out / "generation.txt").is_file()


def test_matrix_quiet_prints_neither_the_table_nor_what_it_wrote(
    tiny_fixture_with_goldens: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ("matrix", "--models", "mock", "--fixture", str(tiny_fixture_with_goldens.root))
    assert _quiet(capsys, *argv, "--repeats", "1", "--out", str(out)) == (0, "", "")
    assert (out / "matrix.txt").is_file()
