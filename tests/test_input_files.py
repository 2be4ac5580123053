"""Every path a command reads is a regular file within the input cap: a FIFO, a directory, a
file where a folder belongs, or an oversized document is one line on stderr and exit 2, at once
(never a hang, never a traceback, never exit 1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file
from agentic.contract.strict_json import (
    COST_CHECK_MIN_CHARS,
    MAX_PARSE_COST_RATIO,
    parse_cost_ratio,
)
from tests.support.tiny_fixture import write_tiny_fixture

HANG_GUARD_S = 60


def agentic(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """In a child process, so that a regression that blocks fails on the timeout."""
    return subprocess.run(
        [sys.executable, "-m", "agentic", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env={**os.environ, **(env or {})},
        check=False,
    )


def assert_refused(done: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("agentic: "), done.stderr
    assert "Traceback" not in done.stderr
    assert fragment in done.stderr


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "report.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "command",
    [["validate", "report"], ["canonical"], ["score"], ["compare", "{path}"]],
    ids=["validate", "canonical", "score", "compare"],
)
def test_a_fifo_is_refused_without_blocking(fifo: Path, command: list[str]) -> None:
    args = [part.replace("{path}", str(fifo)) for part in command]
    assert_refused(agentic(*args, str(fifo)), "is a FIFO, not a regular file")


def test_a_directory_given_as_a_document_is_refused(tmp_path: Path) -> None:
    assert_refused(agentic("validate", "task", str(tmp_path)), "is a directory")


def test_a_regular_file_given_as_the_fixture_is_refused() -> None:
    assert_refused(agentic("fixture", "check", "/etc/passwd"), "is not a directory")


def test_a_manifest_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").mkdir()
    assert_refused(agentic("fixture", "check", str(tmp_path)), "not a regular file")


def test_a_manifest_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "manifest.json")
    assert_refused(agentic("fixture", "check", str(tmp_path)), "not a regular file")


def test_a_listed_file_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    root = write_tiny_fixture(tmp_path / "fixture")
    listed = next((root / "tasks").iterdir())
    listed.unlink()
    listed.mkdir()
    assert_refused(agentic("fixture", "check", str(root)), "not a regular file")


def test_a_document_over_the_input_cap_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b"0," * 5000 + b"0]")
    done = agentic("validate", "report", str(path), env={"AGENTIC_MAX_INPUT_BYTES": "1000"})
    assert_refused(done, "input_too_large")


def test_the_cap_must_be_a_positive_integer(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text("{}", encoding="utf-8")
    done = agentic("canonical", str(path), env={"AGENTIC_MAX_INPUT_BYTES": "lots"})
    assert_refused(done, "AGENTIC_MAX_INPUT_BYTES")


def test_a_regular_file_within_the_cap_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b"{}" * 10)
    assert read_input_file(path, max_bytes=20) == b"{}" * 10
    with pytest.raises(ContractError) as caught:
        read_input_file(path, max_bytes=19)
    assert caught.value.code == "input_too_large"


# -- memory: what a parse would cost is bounded before it starts ---------------------------------

COMMITTED_REPORTS = sorted(
    (Path(__file__).resolve().parent.parent / "baselines").rglob("report.json")
)


def test_a_large_document_of_tiny_values_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "dense.json"
    path.write_bytes(b'{"receipts": [' + b"{}," * 400_000 + b"{}]}")
    done = agentic("validate", "report", str(path))
    assert_refused(done, "input_too_large")
    assert "parsing would take about" in done.stderr


def test_a_small_document_of_tiny_values_is_parsed_as_usual(tmp_path: Path) -> None:
    path = tmp_path / "dense.json"
    path.write_bytes(b"[" + b"{}," * 1000 + b"{}]")
    done = agentic("validate", "report", str(path))
    assert_refused(done, "schema_violation")


def test_a_document_that_is_not_an_object_is_named_in_one_short_line(tmp_path: Path) -> None:
    path = tmp_path / "zeros.json"
    path.write_bytes(b"[" + b"0," * 200_000 + b"0]")
    done = agentic("validate", "report", str(path))
    assert_refused(done, "/ type [0, 0, 0, 0, 0, 0, ...] is not of type 'object'")
    assert len(done.stderr) < 200


# Only a text of at least COST_CHECK_MIN_CHARS is checked; a smaller report is never refused.
CHECKED_REPORTS = [p for p in COMMITTED_REPORTS if p.stat().st_size >= COST_CHECK_MIN_CHARS]


@pytest.mark.parametrize("report", CHECKED_REPORTS, ids=lambda p: p.parent.name)
def test_every_committed_report_is_far_below_the_parse_cost_limit(report: Path) -> None:
    ratio = parse_cost_ratio(report.read_text(encoding="utf-8"))
    assert ratio < MAX_PARSE_COST_RATIO / 2
