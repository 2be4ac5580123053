"""``agentic catalog --backend FILE --check`` starts a config for real: a good one says ok with
its sample search, a wrong mapping or a server that cannot start fails in its line, exit 2."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.backends import agentic, stdio_config, write_config

pytestmark = pytest.mark.real_process


def _check(tmp_path: Path, document: dict[str, object], fixture_dir: Path) -> tuple[int, str]:
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
    assert "  misbehaving: ok; started, its tools match the mapping; sample search '" in output
    assert "': 1 hits\n" in output


def test_a_config_that_maps_a_tool_the_server_lacks_fails_its_check(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    document = stdio_config("ok")
    document["tools"] = {"search": {"name": "lookup", "arguments": {"query": "q"}}}
    code, output = _check(tmp_path, document, tiny_fixture_dir)
    assert code == 2
    assert "  misbehaving: failed: tool_schema_mismatch: " in output
    assert "stopped at prepare" in output


def test_a_server_that_cannot_start_fails_its_check_with_its_reason(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    command = [sys.executable, "-c", "import a_module_that_is_not_installed"]
    code, output = _check(tmp_path, stdio_config(command=command), tiny_fixture_dir)
    assert code == 2
    assert "ModuleNotFoundError" in output


def test_check_without_a_backend_config_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = agentic("catalog", "--check", temp=tmp_path / "tmp")
    assert done.returncode == 2
    assert done.stderr == "agentic: invalid_cli_option: --check tries --backend configs: give one\n"
