"""The pages a person reads first stay short: the README and the architecture page."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMITS = {"README.md": 150, "docs/architecture.md": 300}


@pytest.mark.parametrize(("page", "limit"), sorted(LIMITS.items()))
def test_a_page_a_person_reads_first_stays_short(page: str, limit: int) -> None:
    lines = len((ROOT / page).read_text(encoding="utf-8").splitlines())
    assert lines <= limit, f"{page} has {lines} lines; move detail to a topic page"
