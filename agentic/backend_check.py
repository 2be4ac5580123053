"""``agentic catalog --backend FILE --check``: a backend config tried for real, before a lane.

``agentic catalog`` alone says whether a config *could* run (it parsed, its executables exist).
The check starts it as a lane would, under the sandbox: its ``prepare`` step, its server, the
handshake and server name, its tool list against every mapped tool and argument (the adapter's
own preparation refuses a tool or an input field the server does not declare), a fresh attach,
then one sample search on the fixture's first task. Each config gets one line: what matched and
what the sample search returned, or the code and message of the first step that failed.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters.deadlines import PREPARE_TIMEOUT_S
from agentic.adapters.errors import AdapterError
from agentic.fixture.loader import Fixture
from agentic.runner.catalog import Catalog

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")
_SAMPLE_WORDS = 4


@dataclass(frozen=True)
class BackendCheck:
    """How one config fared: ``problem`` is None when every step passed."""

    adapter_id: str
    summary: str
    problem: str | None = None

    @property
    def line(self) -> str:
        verdict = "ok" if self.problem is None else f"failed: {self.problem}"
        return f"  {self.adapter_id}: {verdict}; {self.summary}"


def sample_query(fixture: Fixture) -> str:
    """A few words of the first task's goal: what an agent would plausibly search first."""
    words = _WORD.findall(fixture.tasks[0].brief.goal)[:_SAMPLE_WORDS]
    return " ".join(words) or "a"


def check_backend(
    catalog: Catalog,
    adapter_id: str,
    fixture: Fixture,
    *,
    timeout_s: float,
    prepare_timeout_s: float = PREPARE_TIMEOUT_S,
) -> BackendCheck:
    """Prepare (within ``prepare_timeout_s``), attach and search once (each within
    ``timeout_s``); the first step that fails is the verdict."""
    adapter = catalog.build_adapter(adapter_id, fixture.snapshot, {})
    step = "prepare"
    with tempfile.TemporaryDirectory(prefix="agentic-check-") as root:
        try:
            prepared = adapter.prepare(fixture.snapshot, Path(root), timeout_s=prepare_timeout_s)
            step = "attach"
            session = adapter.attach(prepared, timeout_s=timeout_s)
            try:
                step = "sample search"
                session.reset(fixture.tasks[0], readiness_probe=False, timeout_s=timeout_s)
                query = sample_query(fixture)
                outcome = session.call("search", {"query": query}, timeout_s=timeout_s)
            finally:
                session.close()
        except AdapterError as exc:
            return BackendCheck(adapter_id, f"stopped at {step}", f"{exc.code}: {exc}")
    found = len(outcome.result.evidence)
    summary = f"started, its tools match the mapping; sample search {query!r}: {found} hits"
    if not found:
        # Not a failure (a grep server may find no phrase), but nothing was shown to work.
        summary += " (nothing found: the search ran, but its results were not exercised)"
    return BackendCheck(adapter_id, summary)
