"""A hostile HTTP backend cannot turn its reply's encoding against the harness.

The reply cap counts decoded bytes: a few hundred bytes of ``gzip, gzip`` that would inflate to
256 MiB end the connection as ``oversized`` (the product's ``tool_result_too_large`` at a call)
with the harness's memory near the cap, at ``initialize`` and at a call alike. A server that
compresses an honest reply though it was asked for ``identity`` still works.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentic.fixture.loader import Fixture
from tests.support.backends import (
    attached,
    child_env,
    http_config,
    search_failure,
    write_config,
)

pytestmark = pytest.mark.real_process

# Peak resident memory of a harness process that refused a 256 MiB bomb at its 4 MiB cap: the
# interpreter and the kit take about 100 MiB; inflating the bomb whole took 1.1-1.65 GB.
MEMORY_CEILING_KIB = 300 * 1024

# Attaches the backend of a config file the way a run does, then prints the error's code and
# the process's peak RSS (KiB) as its last two lines.
_ATTACH_AND_MEASURE = """
import resource, sys
from pathlib import Path
from agentic.adapters.errors import AdapterError
from agentic.fixture.loader import load_fixture
from agentic.catalog.load import load_catalog

config, fixture_dir, root = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
fixture = load_fixture(fixture_dir)
adapter = load_catalog((config,), plugins=False).build_adapter("faulty", fixture.snapshot, {})
try:
    adapter.prepare(fixture.snapshot, root, timeout_s=30)
    print("prepared")
except AdapterError as exc:
    print(exc.code, str(exc).replace(chr(10), " "))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_a_compressed_reply_is_decoded_and_used(tmp_path: Path, tiny_fixture: Fixture) -> None:
    with attached(http_config("gzip-ok"), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "incident"}, timeout_s=10)
    assert [e.startLine for e in outcome.result.evidence] == [3]


def test_a_compression_bomb_at_a_call_is_an_oversized_result(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    error = search_failure(http_config("bomb-call"), tiny_fixture, tmp_path)
    assert (error.code, error.failure_class) == ("tool_result_too_large", "product_error")
    assert "decodes past" in str(error)


def test_a_compression_bomb_at_initialize_fails_the_setup_with_memory_near_the_cap(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    config = write_config(tmp_path / "config", http_config("bomb-init"))
    done = subprocess.run(
        [sys.executable, "-c", _ATTACH_AND_MEASURE, str(config), str(tiny_fixture.root),
         str(tmp_path / "root")],
        capture_output=True, text=True, timeout=120, env=child_env(tmp_path / "tmp"), check=False,
    )  # fmt: skip
    *_, outcome, peak = done.stdout.strip().splitlines()
    assert outcome.startswith("adapter_preparation_failed"), done.stdout + done.stderr
    assert "oversized" in outcome and "decodes past" in outcome
    assert int(peak) < MEMORY_CEILING_KIB
