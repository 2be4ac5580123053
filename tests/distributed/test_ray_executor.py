"""The Ray executor on a real local Ray cluster: the report of the local executor byte for
byte, a killed worker retried and recorded, a lost one excluded, no cluster refused in a line.
Run by ``nox -s distributed`` (the environment with the 'distributed' extra)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.fixture.loader import Fixture
from tests.support.ray_cluster import RAY_ENV, free_port, local_cluster, unit_workers

pytest.importorskip("ray", reason="the Ray executor's tests run in nox -s distributed")
pytestmark = pytest.mark.real_process

HANG_GUARD_S = 300


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as patch, local_cluster(cpus=2) as address:
        for name, value in RAY_ENV.items():
            patch.setenv(name, value)  # the driver's mode must be the cluster's
        yield address


def _argv(fixture: Fixture, out: Path, *extra: str) -> list[str]:
    return ["run", "--fixture", str(fixture.root), "--adapter", "lexical,capsule,mcp-reference",
            "--promote", "capsule:lexical", "--quiet", "--out", str(out), *extra]  # fmt: skip


@pytest.fixture(scope="module")
def local_canonical(tiny_fixture: Fixture, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("local") / "out"
    assert main(_argv(tiny_fixture, out)) == 1  # the gate fails: capsule vs lexical
    return (out / "canonical.json").read_bytes()


def test_the_ray_lane_writes_the_local_lanes_canonical_report(
    cluster: str, tiny_fixture: Fixture, tmp_path: Path, local_canonical: bytes,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    out = tmp_path / "out"
    code = main(_argv(tiny_fixture, out, "--executor", "ray", "--ray-address", cluster))
    assert code == 1, capsys.readouterr().err
    assert (out / "canonical.json").read_bytes() == local_canonical


def _run_killing_one_worker(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """The lane in a child; the first Ray worker seen running a unit is killed with -9."""
    child = subprocess.Popen(
        [sys.executable, "-m", "agentic", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + HANG_GUARD_S
    while not (workers := unit_workers()):
        assert child.poll() is None, "the lane ended before a worker was seen"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.kill(workers[0], signal.SIGKILL)
    stdout, stderr = child.communicate(timeout=HANG_GUARD_S)
    return subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)


def _diagnostics(out: Path) -> list[str]:
    report = json.loads((out / "report.json").read_bytes())
    return [d for r in report["receipts"] for d in r["observations"]["diagnostics"]]


def test_a_killed_worker_is_retried_and_the_retry_recorded(
    cluster: str, tiny_fixture: Fixture, tmp_path: Path, local_canonical: bytes
) -> None:
    out = tmp_path / "out"
    argv = _argv(tiny_fixture, out, "--executor", "ray", "--ray-address", cluster,
                 "--retries", "2")  # fmt: skip
    done = _run_killing_one_worker(argv)
    assert done.returncode == 1, done.stderr
    assert (out / "canonical.json").read_bytes() == local_canonical
    retried = [d for d in _diagnostics(out) if d.startswith("retry 1 of the pair")]
    assert retried and all("WorkerCrashedError" in d for d in retried)


def test_without_retries_a_killed_workers_pairs_are_excluded_as_lost(
    cluster: str, tiny_fixture: Fixture, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    argv = _argv(tiny_fixture, out, "--executor", "ray", "--ray-address", cluster)
    done = _run_killing_one_worker(argv)
    assert done.returncode == 2
    assert "agentic: worker_lost: " in done.stderr
    report = json.loads((out / "report.json").read_bytes())
    lost = [r for r in report["receipts"] if r["canonical"]["failure"]["code"] == "worker_lost"]
    assert lost and all(r["canonical"]["failure"]["class"] == "harness_error" for r in lost)


def test_no_cluster_at_the_address_is_one_line_and_exit_2(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    address = f"127.0.0.1:{free_port()}"
    argv = _argv(tiny_fixture, tmp_path / "out", "--executor", "ray", "--ray-address", address)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"agentic: ray_unavailable: no Ray cluster at '{address}' (")
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()
