"""``agentic catalog --backend FILE --check`` starts a config for real: a good one says ok with
its sample search and read, a wrong mapping (a tool the server lacks, a result pattern that maps
nothing of its replies) or a server that cannot start fails in its line, exit 2; each names what
its command resolved to, and a server missing a module names its interpreter."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agentic.adapters.mcp.backend_check import (
    ProbeWord,
    Resolution,
    import_problem,
    probe_word,
    resolve_command,
)
from agentic.adapters.mcp.configured import unmapped_tools
from agentic.contract.json_access import object_at, str_at
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from tests.support.backends import SERVERS, agentic, parse_config, stdio_config, write_config

pytestmark = pytest.mark.real_process

INCIDENT = "gno://c0a1/d001.md"
SEARCH_ONLY = SERVERS / "search_only_server.py"
GREP = r"^(?P<uri>[^:\n]+\.md):(?P<line>\d+): (?P<text>.*)$"


def search_only(pattern: str = GREP) -> JsonObject:
    """The search-only server, its reads the kit's, its grep lines read by ``pattern``."""
    return {
        "id": "search-only",
        "transport": "stdio",
        "command": [sys.executable, str(SEARCH_ONLY), "{corpus}", "lines"],
        "ids": {"form": "path"},
        "reads": "snapshot",
        "tools": {
            "search": {
                "name": "search",
                "arguments": {"query": "query"},
                "results": {"shape": "lines", "pattern": pattern},
            }
        },
    }


def _check(tmp_path: Path, document: JsonObject, fixture_dir: Path) -> tuple[int, str]:
    config = write_config(tmp_path / "config", document)
    done = agentic(
        "catalog", "--backend", str(config), "--check", "--fixture", str(fixture_dir),
        "--timeout-ms", "20000", temp=tmp_path / "tmp",
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def test_a_working_config_is_checked_ok_with_its_sample_search(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    code, output = _check(tmp_path, stdio_config("ok"), tiny_fixture_dir)
    assert code == 0, output
    assert (
        "  misbehaving: ok; started, its tools match the mapping; sample search 'resolved': "
        f"1 lines, first {INCIDENT}:3; get {INCIDENT}: 1 lines\n"
    ) in output


def test_a_config_that_maps_a_tool_the_server_lacks_fails_its_check(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    document = stdio_config("ok")
    document["tools"] = {"search": {"name": "lookup", "arguments": {"query": "q"}}}
    code, output = _check(tmp_path, document, tiny_fixture_dir)
    assert code == 2
    assert "  misbehaving: failed: tool_schema_mismatch: " in output
    assert "stopped at prepare" in output


def test_a_checked_config_names_the_interpreter_and_script_of_its_command(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    code, output = _check(tmp_path, stdio_config("ok"), tiny_fixture_dir)
    assert code == 0, output
    script = Path(str_at(stdio_config(), "command", 1))
    assert f"    command: {sys.executable} (interpreter), running {script}\n" in output


def test_a_server_missing_a_module_fails_its_check_naming_its_interpreter(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    command = [sys.executable, "-c", "import a_module_that_is_not_installed"]
    code, output = _check(tmp_path, stdio_config(command=command), tiny_fixture_dir)
    assert code == 2
    assert (
        f"  misbehaving: failed: adapter_preparation_failed: {sys.executable}, which cannot "
        "import a_module_that_is_not_installed: install a_module_that_is_not_installed there "
        "or name an interpreter that has it; stopped at prepare\n"
    ) in output


def test_a_missing_mcp_sdk_says_which_python3_lacks_it() -> None:
    resolution = Resolution("python3", "/usr/bin/python3", "/usr/bin/python3", "/x/server.py")
    stderr = "Traceback (most recent call last): | ModuleNotFoundError: No module named 'mcp'"
    assert import_problem(stderr, resolution) == (
        "python3 resolved to /usr/bin/python3, which cannot import mcp: install the MCP SDK "
        "there or name an interpreter that has it"
    )


def _executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


def test_a_python_command_resolves_on_the_backends_path(tmp_path: Path) -> None:
    python = _executable(tmp_path / "bin" / "python3", "#!/bin/sh\n")
    script = Path.cwd() / "server.py"
    resolved = resolve_command(["python3", "server.py", "serve"], str(python.parent))
    assert resolved == Resolution("python3", str(python), str(python), str(script))
    shown = f"python3 resolved to {python} (interpreter), running {script}"
    assert resolved.line == f"    command: {shown}"


def test_a_scripts_interpreter_is_the_one_its_shebang_finds(tmp_path: Path) -> None:
    python = _executable(tmp_path / "venv" / "bin" / "python3", "#!/bin/sh\n")
    search = f"{python.parent}{os.pathsep}{tmp_path / 'bin'}"
    server = _executable(tmp_path / "bin" / "serve-docs", "#!/usr/bin/env python3\n")
    resolved = resolve_command(["serve-docs", "--stdio"], search)
    assert resolved.line == (
        f"    command: serve-docs resolved to {server}, whose interpreter is {python}"
    )


def test_a_command_not_on_the_path_says_so(tmp_path: Path) -> None:
    resolved = resolve_command(["no-such-server"], str(tmp_path))
    assert resolved.line == "    command: no-such-server is not on the PATH the backend runs with"


def test_without_check_a_backend_config_is_listed_not_checked(tmp_path: Path) -> None:
    config = write_config(tmp_path / "config", stdio_config("ok"))
    done = agentic("catalog", "--backend", str(config), temp=tmp_path / "tmp")
    assert done.returncode == 0
    assert f"  misbehaving [processes] (config: {config}) not checked\n" in done.stdout


def test_check_without_a_backend_config_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = agentic("catalog", "--check", temp=tmp_path / "tmp")
    assert done.returncode == 2
    assert done.stderr == (
        "agentic: invalid_cli_option: --check tries --backend and --agent-config files: give one\n"
    )


def test_a_checked_config_names_each_contract_tool_it_leaves_unmapped(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    document = stdio_config("ok")
    del object_at(document, "tools")["get"]
    code, output = _check(tmp_path, document, tiny_fixture_dir)
    assert code == 0, output
    refused = "declared unsupported; an agent's call is refused as disallowed_tool (agent_error)"
    assert f"    get: not mapped: {refused}\n" in output
    assert f"    multi_get: not mapped: {refused}\n" in output


def test_an_unmapped_multi_get_beside_a_get_is_said_to_be_emulated() -> None:
    assert unmapped_tools(parse_config(stdio_config("ok"))) == (
        "multi_get: not mapped: the kit answers it with one get per uri",
    )


def test_the_probe_is_the_rarest_word_of_a_body_line_of_the_first_tasks_documents(
    tiny_fixture: Fixture,
) -> None:
    assert probe_word(tiny_fixture) == ProbeWord("resolved", INCIDENT, 4)


def test_a_result_pattern_that_maps_nothing_fails_the_check_quoting_the_reply(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    # Written for ``PATH LINE TEXT``; the server writes ``PATH:LINE: TEXT``.
    spaced = r"^(?P<uri>\S+\.md) (?P<line>\d+) (?P<text>.*)$"
    code, output = _check(tmp_path, search_only(pattern=spaced), tiny_fixture_dir)
    assert code == 2
    assert (
        "  search-only: failed: sample search 'resolved' mapped no hit to a document and a line "
        "of the snapshot (tools.search.results); the server replied: "
        '{"result":"c0a1/d001.md:4: Status: resolved after rollback."}; stopped at sample search\n'
    ) in output


def test_a_search_only_server_is_proved_by_its_search_and_the_kits_read(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    code, output = _check(tmp_path, search_only(), tiny_fixture_dir)
    assert code == 0, output
    assert (
        f"sample search 'resolved': 1 lines, first {INCIDENT}:4; get {INCIDENT}: 3 lines "
        "(the kit's snapshot read)\n"
    ) in output
