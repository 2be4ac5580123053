"""``--executor ray`` with no address and no cluster running here starts a local Ray runtime, as
Ray's own ``ray.init()`` does, says so on stderr, writes the local executor's report and leaves
no Ray process behind. Run by ``nox -s distributed`` (the environment with the 'distributed'
extra); in a module of its own, so no other test's cluster is running."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.fixture.loader import Fixture
from tests.support.ray_cluster import RAY_ENV, processes_using, stop

pytest.importorskip("ray", reason="the Ray executor's tests run in nox -s distributed")
pytestmark = pytest.mark.real_process

LOCAL_RUNTIME = "agentic: no Ray address given: starting a local Ray runtime"
RUN_TIMEOUT_S = 600


@pytest.fixture
def ray_temp() -> Iterator[Path]:
    """Ray's temp folder for the runtime (short: Ray's socket paths sit under it), and a check
    that the run stopped every process it started there."""
    if processes_using("gcs_server"):
        pytest.skip("a Ray cluster already runs on this machine: Ray joins it")
    work = Path(tempfile.mkdtemp(prefix="agentic-ray-local-"))
    try:
        yield work
        assert processes_using(str(work)) == []
    finally:
        stop(str(work))
        shutil.rmtree(work, ignore_errors=True)


def _argv(fixture: Fixture, out: Path, *extra: str) -> list[str]:
    return ["run", "--fixture", str(fixture.root), "--adapter", "lexical,capsule,mcp-reference",
            "--promote", "capsule:lexical", "--quiet", "--out", str(out), *extra]  # fmt: skip


def test_no_address_runs_the_lane_on_a_local_runtime(
    tiny_fixture: Fixture, tmp_path: Path, ray_temp: Path
) -> None:
    assert main(_argv(tiny_fixture, tmp_path / "local")) == 1  # the gate fails: capsule vs lexical
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(RAY_ENV, RAY_TMPDIR=str(ray_temp))
    done = subprocess.run(
        [sys.executable, "-m", "agentic", *_argv(tiny_fixture, tmp_path / "ray"),
         "--executor", "ray"],
        env=env, capture_output=True, text=True, check=False, timeout=RUN_TIMEOUT_S,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines().count(LOCAL_RUNTIME) == 1, done.stderr
    local = (tmp_path / "local" / "canonical.json").read_bytes()
    assert (tmp_path / "ray" / "canonical.json").read_bytes() == local
