"""The package's budget of ``Any``: lines mentioning it, per 1,000 lines of ``agentic/``.

JSON the kit holds (parsed documents, tool arguments and results, report and receipt documents,
request and response bodies) is typed ``JsonObject`` / ``JsonArray`` / ``JsonValue``
(``agentic/contract/strict_json.py``): the recursive union of what a JSON value can be, so mypy
checks every read of a field, narrowed by isinstance, by the document's model or by
``agentic/contract/json_access.py``. ``Any`` is left for what is genuinely untyped (llama.cpp's
objects, a third-party generic's parameter, pydantic's ``Field``, a TOML document, the values
canonical JSON is asked to write, which it checks itself). The count is the one of issue 30,
item 5: ``grep -rw Any agentic --include=*.py | wc -l`` against the package's total line count.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "agentic"
# Just above the measured rate, so that a new ``Any`` is a decision, not a drift.
BUDGET_PER_1000 = 1.4
# ``Any`` as a whole word, as ``grep -w`` matches it.
_ANY = re.compile(r"(?<![A-Za-z0-9_])Any(?![A-Za-z0-9_])")


def any_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if _ANY.search(line))


def test_any_lines_are_counted_as_grep_w_counts_them() -> None:
    text = "from typing import Any\nx: dict[str, Any]\nAnyStr\nCompany\nmany = 1\n# Any case\n"
    assert any_lines(text) == 3


def test_the_package_mentions_any_at_most_one_point_four_times_per_thousand_lines() -> None:
    per_file: Counter[str] = Counter()
    total = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        total += text.count("\n")
        per_file[str(path.relative_to(PACKAGE.parent))] = any_lines(text)
    used = sum(per_file.values())
    rate = 1000 * used / max(total, 1)
    worst = ", ".join(f"{name} ({count})" for name, count in per_file.most_common(5) if count)
    assert rate <= BUDGET_PER_1000, (
        f"{used} lines of agentic/ mention Any over {total} lines: {rate:.1f} per 1,000, above "
        f"the budget of {BUDGET_PER_1000:g}. Type JSON as JsonObject / JsonArray / JsonValue "
        f"(agentic/contract/strict_json.py). Most lines: {worst}"
    )
