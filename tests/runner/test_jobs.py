"""``--jobs N``: pairs at once (threads, or worker processes), and the report byte for byte
the same for every N. N is bounded (``MAX_JOBS``), and no more threads start than there are
pairs to run."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic.cli import build_parser, main
from agentic.commands.argtypes import MAX_JOBS
from agentic.fixture.loader import Fixture
from agentic.runner import lifecycles
from agentic.runner.bounded import DaemonPool
from tests.support.fake_openai import FakeEndpoint, config_text, serving


def canonical_of_run(capsys: pytest.CaptureFixture[str], out: Path, *argv: str) -> bytes:
    code = main(["run", "--quiet", "--promote", "none", "--out", str(out), *argv])
    capsys.readouterr()
    assert code == 0
    return (out / "canonical.json").read_bytes()


def test_the_fixture_agents_report_is_the_same_at_one_and_four_jobs(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ("--fixture", str(tiny_fixture.root), "--adapter", "lexical,capsule")
    one = canonical_of_run(capsys, tmp_path / "one", *argv, "--jobs", "1")
    four = canonical_of_run(capsys, tmp_path / "four", *argv, "--jobs", "4")
    assert four == one


def test_an_endpoint_agents_report_is_the_same_at_one_and_four_jobs(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(FakeEndpoint()) as endpoint:
        config = tmp_path / "agent.toml"
        config.write_text(config_text(endpoint.base_url), encoding="utf-8")
        argv = ("--fixture", str(tiny_fixture.root), "--agent-config", str(config),
                "--adapter", "lexical")  # fmt: skip
        one = canonical_of_run(capsys, tmp_path / "one", *argv, "--jobs", "1")
        four = canonical_of_run(capsys, tmp_path / "four", *argv, "--jobs", "4")
    assert four == one


@pytest.mark.parametrize("jobs", ["1", "2", "4"])
def test_the_report_is_the_same_in_worker_processes(
    jobs: str, tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ("--fixture", str(tiny_fixture.root), "--adapter", "lexical,capsule")
    one = canonical_of_run(capsys, tmp_path / "one", *argv)
    pooled = canonical_of_run(
        capsys, tmp_path / "pooled", *argv, "--executor", "processes", "--jobs", jobs
    )
    assert pooled == one


@pytest.mark.local_model
def test_the_local_models_report_is_the_same_at_one_and_two_worker_processes(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("llama_cpp")
    argv = ("--fixture", str(tiny_fixture.root), "--agent", "local-model", "--adapter",
            "lexical", "--lifecycle", "cold", "--task", "t0000a01,t0000b02",
            "--timeout-ms", "120000")  # fmt: skip
    one = canonical_of_run(capsys, tmp_path / "one", *argv)
    two = canonical_of_run(capsys, tmp_path / "two", *argv, "--jobs", "2")
    assert two == one


@pytest.mark.parametrize("jobs", [str(MAX_JOBS + 1), "9" * 20])
def test_a_jobs_count_above_the_bound_is_refused_in_one_line_naming_it(
    jobs: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "--adapter", "lexical", "--task", "t0e10001", "--jobs", jobs])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1, err
    assert err.startswith("agentic: invalid_cli_option: argument --jobs: "), err
    assert str(MAX_JOBS) in err


def test_the_bound_itself_is_a_valid_jobs_count() -> None:
    args = build_parser(["run"]).parse_args(["run", "--jobs", str(MAX_JOBS)])
    assert args.jobs == MAX_JOBS


def test_no_more_pair_threads_start_than_there_are_pairs(
    tiny_fixture: Fixture,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[int] = []

    class RecordingPool(DaemonPool):
        def __init__(self, workers: int, name: str) -> None:
            started.append(workers)
            super().__init__(workers, name)

    monkeypatch.setattr(lifecycles, "DaemonPool", RecordingPool)
    tasks = ",".join(task.taskId for task in tiny_fixture.tasks[:2])
    # One adapter, the cold cohort only, two tasks: two pairs.
    canonical_of_run(
        capsys, tmp_path / "out", "--fixture", str(tiny_fixture.root), "--adapter", "lexical",
        "--lifecycle", "cold", "--task", tasks, "--no-replay", "--jobs", str(MAX_JOBS),
    )  # fmt: skip
    assert started == [2]
