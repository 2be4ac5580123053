"""Every relative link of the README, the pages under docs/ and baselines/README.md points to a
file that exists, and a link to a heading (``page.md#heading``) to a heading that page has."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", ROOT / "baselines" / "README.md", *ROOT.glob("docs/*.md")])

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^#{1,6} +(.*?) *#*$")


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks (a link in a code block is text, not a link)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    found: list[str] = []
    for line in _prose(page.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if match:
            found.append(slug(match.group(1)))
    # A repeated heading gets -1, -2, ... as GitHub numbers them.
    return frozenset(
        anchor if found[:index].count(anchor) == 0 else f"{anchor}-{found[:index].count(anchor)}"
        for index, anchor in enumerate(found)
    )


def links(page: Path) -> list[str]:
    """The page's relative links (no scheme, no mail address), as written."""
    return [
        target
        for line in _prose(page.read_text(encoding="utf-8"))
        for target in LINK.findall(line)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_points_to_an_existing_file(page: Path) -> None:
    broken = [
        target
        for target in links(page)
        if not (page.parent / target.split("#", 1)[0]).resolve().exists()
    ]
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_to_a_heading_names_a_heading_of_its_page(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(target)
    assert broken == []


def test_a_slug_is_githubs_anchor_of_the_heading() -> None:
    assert slug("report.html: the page to look at") == "reporthtml-the-page-to-look-at"
    assert slug("The protocol (`agentic/agents/base.py`)") == "the-protocol-agenticagentsbasepy"
    assert slug("The run's key") == "the-runs-key"
