"""What writing report.html loads: the modules a fresh interpreter holds after rendering the
fixture-agent baseline's page (with its task facts) and importing the compare page's writer.
A fresh interpreter, since the test process has long imported everything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agentic.resources import repo_root

PROBE = """
import sys
from agentic.contract.schemas import parse_and_load
from agentic.fixture.loader import load_fixture
from agentic.report.compare_page import render_compare_html
from agentic.report.html import render_html
from agentic.resources import default_fixture_dir
from agentic.scoring.task_facts import task_facts

path = sys.argv[1]
with open(path, "rb") as handle:
    report = parse_and_load("benchmark-report", handle.read(), source=path)
page = render_html(report, task_facts(load_fixture(default_fixture_dir())))
assert page.count(b"<svg") == 4
print("\\n".join(sorted(sys.modules)))
"""


def modules_after_writing_a_page() -> list[str]:
    root = repo_root()
    assert root is not None
    report = Path(root, "baselines", "fixture-agent", "report.json")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(report)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()
