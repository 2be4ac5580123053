"""``agentic prepare`` / ``agentic serve`` for the MCP lanes, and the cold-start hook."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentic.adapters.mcp.reference import cold_start_seconds
from agentic.fixture.loader import Fixture

pytestmark = pytest.mark.real_process


def _agentic(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentic", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def test_serve_without_a_prepared_index_exits_2(tmp_path: Path) -> None:
    done = _agentic("serve", "--index", str(tmp_path / "nothing"))
    assert done.returncode == 2
    assert done.stderr.startswith("agentic: index_not_found")
    assert done.stdout == ""


def test_prepare_gno_mcp_without_gno_exits_2_with_its_code(
    tiny_fixture: Fixture, tmp_path: Path
) -> None:
    env = {**os.environ, "PATH": str(tmp_path / "empty-bin")}
    env.pop("AGENTIC_GNO_EXECUTABLE", None)
    out = tmp_path / "gno"
    done = _agentic(
        "prepare",
        "--adapter",
        "gno-mcp",
        "--out",
        str(out),
        "--fixture",
        str(tiny_fixture.root),
        env=env,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("agentic: gno_executable_not_found")


def test_a_prepared_mcp_reference_index_serves_a_first_search(
    tiny_fixture: Fixture, tmp_path: Path
) -> None:
    out = tmp_path / "index"
    done = _agentic(
        "prepare",
        "--adapter",
        "mcp-reference",
        "--out",
        str(out),
        "--fixture",
        str(tiny_fixture.root),
    )
    assert done.returncode == 0, done.stderr
    assert cold_start_seconds(out, query="launch", collection="c0b2") > 0
