"""A lane that measured nothing says why on stderr, in one line naming the adapter: whether its
preparation failed or a harness error struck after it was prepared."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import BenchmarkReport
from agentic.fixture.loader import Fixture
from agentic.lane import LaneRequest, execute_lane, harness_failure
from tests.support.backends import agentic, stdio_config, write_config
from tests.support.tiny_fixture import TASK_A


@pytest.fixture(scope="module")
def report(tiny_fixture: Fixture) -> BenchmarkReport:
    request = LaneRequest(
        fixture_dir=tiny_fixture.root, adapters=("capsule", "lexical"), promote=None
    )
    return execute_lane(request).report


def broken(receipt: TrajectoryReceipt, diagnostic: str) -> TrajectoryReceipt:
    failure = receipt.canonical.failure.model_copy(
        update={"class_": "harness_error", "code": "invalid_tool_result"}
    )
    return receipt.model_copy(
        update={
            "canonical": receipt.canonical.model_copy(update={"failure": failure}),
            "observations": receipt.observations.model_copy(update={"diagnostics": (diagnostic,)}),
        }
    )


def with_lexical_broken(report: BenchmarkReport, diagnostic: str) -> BenchmarkReport:
    receipts = tuple(
        broken(r, diagnostic) if r.canonical.adapterId == "lexical" else r for r in report.receipts
    )
    return report.model_copy(update={"receipts": receipts})


def test_a_clean_run_has_no_harness_line(report: BenchmarkReport) -> None:
    assert harness_failure(report) is None


def test_the_line_names_the_code_the_adapter_the_count_and_the_first_pair(
    report: BenchmarkReport,
) -> None:
    line = harness_failure(with_lexical_broken(report, "result uri\nis not gno://"))
    lexical = [r.canonical for r in report.receipts if r.canonical.adapterId == "lexical"]
    first = lexical[0]
    assert line == (
        f"invalid_tool_result: lexical: {len(lexical)} of {len(lexical)} pairs hit a harness "
        f"error; first {first.taskId}/{first.trialId}/{first.lifecycle}: result uri is not gno://"
    )


def test_a_long_diagnostic_is_cut_to_keep_one_short_line(report: BenchmarkReport) -> None:
    line = harness_failure(with_lexical_broken(report, "x" * 1000))
    assert line is not None and len(line) < 400 and line.endswith("…")


@pytest.mark.real_process
def test_the_cli_prints_one_line_for_a_harness_error_after_preparation(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    config = write_config(tmp_path / "config", stdio_config("file-uri"))
    done = agentic(
        "run", "--fixture", str(tiny_fixture.root), "--backend", str(config),
        "--adapter", "misbehaving", "--task", TASK_A, "--promote", "none", "--quiet",
        temp=tmp_path / "tmp",
    )  # fmt: skip
    ours = [line for line in done.stderr.splitlines() if line.startswith("agentic: ")]
    assert done.returncode == 2
    assert len(ours) == 1
    assert ours[0].startswith("agentic: invalid_tool_result: misbehaving: 2 of 2 pairs ")


@pytest.mark.real_process
def test_a_run_whose_adapter_cannot_be_prepared_prints_its_one_line_and_leaves_nothing(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    config = write_config(tmp_path / "config", stdio_config(prepare=["/bin/sh", "-c", "exit 7"]))
    out = tmp_path / "runs" / "out"
    out.parent.mkdir()
    done = agentic(
        "run", "--fixture", str(tiny_fixture.root), "--backend", str(config),
        "--adapter", "misbehaving", "--task", TASK_A, "--promote", "none", "--quiet",
        "--out", str(out), temp=tmp_path / "tmp",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("agentic: adapter_preparation_failed: misbehaving: ")
    assert list(out.parent.iterdir()) == []


@pytest.mark.real_process
def test_a_server_that_dies_before_its_handshake_is_named_with_its_last_stderr_lines(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    command = [sys.executable, "-c", "import a_module_that_is_not_installed"]
    config = write_config(tmp_path / "config", stdio_config(command=command))
    done = agentic(
        "run", "--fixture", str(tiny_fixture.root), "--backend", str(config),
        "--adapter", "misbehaving", "--task", TASK_A, "--promote", "none", "--quiet",
        temp=tmp_path / "tmp",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "ModuleNotFoundError: No module named 'a_module_that_is_not_installed'" in done.stderr


@pytest.mark.real_process
def test_a_configs_startup_timeout_governs_its_servers_start_not_the_operation_timeout(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    document = stdio_config("slow-start", startup_timeout_s=1, env={"SLOW_START_S": "20"})
    config = write_config(tmp_path / "config", document)
    done = agentic(
        "run", "--fixture", str(tiny_fixture.root), "--backend", str(config),
        "--adapter", "misbehaving", "--task", TASK_A, "--promote", "none", "--quiet",
        "--timeout-ms", "60000", temp=tmp_path / "tmp",
    )  # fmt: skip
    assert done.returncode == 2
    assert "adapter_preparation_failed: misbehaving: AdapterError: timeout: " in done.stderr
    assert "within 1 s" in done.stderr
