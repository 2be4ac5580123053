"""Backend config files: a closed model, one precise line for every mistake, and the catalog's
rules for the ids they register."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.mcp.backend_config import parse_backend_config
from agentic.catalog.load import builtin_catalog, load_catalog
from agentic.cli import main
from agentic.contract.errors import ContractError
from agentic.contract.json_access import object_at
from tests.support.backends import (
    HTTP_EXAMPLE,
    STDIO_EXAMPLE,
    config_rejection,
    stdio_config,
)
from tests.support.backends import write_config as write


def without(document: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != key}


def test_the_example_configs_are_valid() -> None:
    for path in (STDIO_EXAMPLE, HTTP_EXAMPLE):
        assert parse_backend_config(path.read_bytes(), source=str(path)).id.startswith("notes-")


def test_an_unknown_top_level_key_is_named() -> None:
    assert "colour: unknown key" in config_rejection({**stdio_config(), "colour": "blue"})


def test_an_unknown_key_inside_a_tool_mapping_is_named() -> None:
    document = stdio_config()
    object_at(document, "tools", "search")["alias"] = "x"
    assert "tools.search.alias: unknown key" in config_rejection(document)


@pytest.mark.parametrize("key", ["id", "transport", "tools"])
def test_a_missing_required_key_is_named(key: str) -> None:
    assert f"{key}: Field required" in config_rejection(without(stdio_config(), key))


def test_a_tool_without_any_results_setting_is_named() -> None:
    message = config_rejection(without(stdio_config(), "results"))
    assert "tools.search needs 'results'" in message


def test_a_stdio_backend_needs_a_command() -> None:
    assert "a stdio backend needs 'command'" in config_rejection(without(stdio_config(), "command"))


def test_an_http_backend_needs_a_url() -> None:
    assert "an http backend needs 'url'" in config_rejection(
        {**stdio_config(), "transport": "http"}
    )


def test_a_url_must_be_http() -> None:
    document = {**stdio_config(), "transport": "http", "url": "ftp://127.0.0.1/mcp"}
    assert "is not http:// or https://" in config_rejection(document)


def test_a_url_holds_no_placeholder_but_port() -> None:
    document = {**stdio_config(), "transport": "http", "url": "http://{corpus}/mcp"}
    assert "url may hold only the {port} placeholder" in config_rejection(document)


def test_a_port_in_the_url_needs_a_command_the_kit_starts() -> None:
    document = {
        **without(stdio_config(), "command"),
        "transport": "http",
        "url": "http://127.0.0.1:{port}/mcp",
    }
    assert "needs a 'command' the kit starts" in config_rejection(document)


def test_an_unknown_placeholder_lists_the_known_ones() -> None:
    document = stdio_config(command=["server", "{corpse}"])
    message = config_rejection(document)
    assert "command[1]: unknown placeholder {corpse}" in message
    assert "{config_dir}, {corpus}, {home}, {prepared}" in message


def test_port_is_a_placeholder_of_http_backends_only() -> None:
    assert "unknown placeholder {port}" in config_rejection(stdio_config(command=["s", "{port}"]))


def test_a_mapped_argument_the_contract_tool_lacks_is_named() -> None:
    document = stdio_config()
    object_at(document, "tools", "get", "arguments")["lines"] = "range"
    assert "tools.get maps unknown argument(s) ['lines']" in config_rejection(document)


def test_a_tool_mapping_must_map_the_tools_required_argument() -> None:
    document = stdio_config()
    object_at(document, "tools", "search")["arguments"] = {"limit": "n"}
    assert "tools.search must map ['query']" in config_rejection(document)


def test_a_result_shape_is_hits_or_resources() -> None:
    assert "results.shape" in config_rejection(stdio_config(results={"shape": "rows"}))


@pytest.mark.parametrize("adapter_id", ["My-Search", "1search", "", "a" * 64, "a b"])
def test_an_adapter_id_is_lowercase_letters_digits_and_dashes(adapter_id: str) -> None:
    assert config_rejection(stdio_config(id=adapter_id)).startswith("test.toml: id:")


def test_malformed_toml_is_one_line() -> None:
    with pytest.raises(ContractError) as caught:
        parse_backend_config(b'id = "x\n', source="bad.toml")
    assert caught.value.code == "invalid_backend_config"
    assert "\n" not in str(caught.value)


def test_two_configs_with_one_id_are_refused(tmp_path: Path) -> None:
    first = write(tmp_path / "a", stdio_config())
    second = write(tmp_path / "b", stdio_config())
    with pytest.raises(ContractError) as caught:
        load_catalog((first, second))
    assert caught.value.code == "duplicate_adapter_id"
    assert str(first) in caught.value.message


def test_a_config_may_not_shadow_a_builtin_adapter(tmp_path: Path) -> None:
    path = write(tmp_path, stdio_config(id="lexical"))
    with pytest.raises(ContractError) as caught:
        load_catalog((path,))
    assert "by the builtin adapter" in caught.value.message


def test_a_registered_config_is_an_adapter_of_the_catalog(tmp_path: Path) -> None:
    catalog = load_catalog((write(tmp_path, stdio_config()),))
    entry = catalog.adapter("misbehaving")
    assert (entry.origin, entry.spawns_processes, entry.reads_oracles) == ("config", True, False)


def test_an_unknown_adapter_lists_the_known_ones() -> None:
    with pytest.raises(ContractError) as caught:
        builtin_catalog().adapter("my-search")
    assert "known: capsule, gno-mcp, lexical, mcp-reference, oracle, qmd, qmd-lex" in str(
        caught.value
    )


@pytest.mark.parametrize(
    "name",
    ["missing.toml", "folder", "bad-syntax.toml", "unknown-key.toml", "duplicate.toml"],
)
def test_bad_config_files_exit_2_with_one_line_and_write_nothing(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "bad-syntax.toml").write_text("id = \n", encoding="utf-8")
    write(tmp_path, {**stdio_config(), "extra": 1}, "unknown-key.toml")
    write(tmp_path, stdio_config(id="capsule"), "duplicate.toml")
    out = tmp_path / "out"

    code = main(
        ["run", "--backend", str(tmp_path / name), "--adapter", "lexical", "--out", str(out)]
    )

    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.count("\n") == 1 and captured.err.startswith("agentic: ")
    assert not out.exists()


def test_a_config_file_is_read_with_a_size_cap(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    path.write_bytes(b"#" * (300 * 1024))
    assert main(["catalog", "--backend", str(path)]) == 2


def test_the_catalog_command_lists_a_registered_backend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, stdio_config())
    assert main(["catalog", "--backend", str(path), "--names", "adapters"]) == 0
    assert "misbehaving" in capsys.readouterr().out.split()
