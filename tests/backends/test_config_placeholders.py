"""A backend config's templates are refused at validation, in one line, when a placeholder carries
a conversion or a format spec, or when a template holds a NUL; plain placeholders fill as ever."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic.adapters.mcp.backend_config import parse_backend_config
from agentic.adapters.mcp.configured import configured_profile
from agentic.cli import main
from agentic.contract.json_access import array_at
from agentic.contract.strict_json import JsonObject
from tests.support.backends import config_rejection, config_text, stdio_config
from tests.support.backends import write_config as write
from tests.support.snapshots import snapshot_from


def with_command_part(part: str) -> JsonObject:
    document = stdio_config()
    document["command"] = [*array_at(document, "command"), part]
    return document


@pytest.mark.parametrize(
    "part", ["{config_dir:>99999999}", "{config_dir!r}", "{corpus!s}", "--root={prepared:.3}"]
)
def test_a_placeholder_with_a_conversion_or_format_spec_is_refused(part: str) -> None:
    message = config_rejection(with_command_part(part))
    assert "command[3]: write {" in message
    assert "alone, with no conversion or format spec" in message


def test_the_refusal_names_the_placeholder_in_its_plain_form() -> None:
    assert "write {config_dir} alone" in config_rejection(with_command_part("{config_dir!r}"))


def test_a_format_spec_in_a_prepare_step_is_refused() -> None:
    document: JsonObject = {**stdio_config(), "prepare": ["tool", "{corpus:>9}"]}
    assert "prepare[1]: write {corpus} alone" in config_rejection(document)


def test_a_conversion_in_an_env_value_is_refused() -> None:
    document: JsonObject = {**stdio_config(), "env": {"INDEX": "{prepared!a}"}}
    assert "env.INDEX: write {prepared} alone" in config_rejection(document)


def test_an_unknown_placeholder_with_a_spec_is_named_as_unknown() -> None:
    assert "unknown placeholder {colour}" in config_rejection(with_command_part("{colour!r}"))


def test_a_nul_in_a_command_is_refused() -> None:
    assert "command[3]: holds a NUL character" in config_rejection(with_command_part("a\0b"))


def test_a_nul_in_a_prepare_step_is_refused() -> None:
    document: JsonObject = {**stdio_config(), "prepare": ["tool\0", "{corpus}"]}
    assert "prepare[0]: holds a NUL character" in config_rejection(document)


def test_a_nul_in_an_env_value_is_refused() -> None:
    document: JsonObject = {**stdio_config(), "env": {"MODE": "fast\0slow"}}
    assert "env.MODE: holds a NUL character" in config_rejection(document)


@pytest.mark.parametrize("part", ["{config_dir:>99999999}", "{config_dir!r}", "x\0y"])
def test_the_cli_refuses_such_a_config_with_one_line_and_exit_2(
    tmp_path: Path, part: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, with_command_part(part))

    code = main(["catalog", "--backend", str(path)])

    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("agentic: invalid_backend_config: ")


def test_plain_placeholders_and_literal_braces_fill_as_paths(tmp_path: Path) -> None:
    document: JsonObject = {
        **stdio_config(),
        "command": ["serve", "{corpus}", "--index={prepared}/x", "{config_dir}", "{{literal}}"],
    }
    config = parse_backend_config(config_text(document).encode("utf-8"), source="test.toml")
    snapshot = snapshot_from({"c001/a.md": "# A\n\ntext\n"})
    profile = configured_profile(config, tmp_path / "conf", snapshot)

    assert profile.command(tmp_path / "root") == (
        "serve",
        str(tmp_path / "root" / "corpus"),
        f"--index={tmp_path / 'root' / 'prepared'}/x",
        str(tmp_path / "conf"),
        "{literal}",
    )
