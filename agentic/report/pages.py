"""What the kit's two pages share: the document, the head, the CSS and the one allowed script.
The two pages are report.html and the compare page. The head holds the generator mark and the
content security policy. The one script a page may run is allowed by its hash. Writing a page to
disk is ``output/page.py``'s."""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from agentic.output.page import GENERATOR
from agentic.report.markup import Html, element, join, lines

__all__ = [
    "BLANK",
    "NO_SCRIPT",
    "document",
    "facts_list",
    "page_script",
    "script_source",
    "table",
    "verdict_badge",
]

STATIC = Path(__file__).resolve().parent / "static"
NO_SCRIPT = Html("'none'")
BLANK = Html("")  # the empty line between two sections of a page


def _static(name: str) -> Html:
    # The kit's own CSS and script, shipped beside this module: markup as they are.
    return Html((STATIC / name).read_text(encoding="utf-8"))


def page_script() -> Html:
    """The one script a page may run (``static/page.js``)."""
    return _static("page.js")


def script_source(script: str) -> Html:
    """The CSP source that allows exactly ``script`` and no other."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return Html(f"'sha256-{digest}'")


@functools.cache
def _header(names: tuple[str, ...]) -> Html:
    # Written once per header: a 576-pair page has some 800 tables under the same two headers.
    return element("thead", element("tr", *[element("th", name) for name in names]))


def table(
    header: tuple[str, ...], rows: Iterable[Html], attrs: Mapping[str, str] | None = None
) -> Html:
    """A table: its header row, then ``rows`` one per line."""
    body = element("tbody", "\n", lines(rows))
    return element("table", "\n", lines([_header(header), body]), attrs=attrs)


def verdict_badge(verdict: str, tone: str) -> Html:
    """The page's verdict (promotion, or the comparison's), coloured by ``tone``."""
    return element("span", verdict, attrs={"class": f"verdict {tone}", "id": "verdict"})


def facts_list(facts: Iterable[tuple[str, str]]) -> Html:
    """Named facts, a ``<dt>``/``<dd>`` line each."""
    rows = [join([element("dt", name), element("dd", value)]) for name, value in facts]
    return element("dl", "\n", lines(rows), attrs={"class": "facts"})


def _head(title: str, scripts: Html) -> Html:
    # The kit's own policy, its quotes written as they are: the policy reads verbatim.
    policy = Html(
        f"default-src 'none'; style-src 'unsafe-inline'; script-src {scripts}; img-src data:"
    )
    return element(
        "head",
        "\n",
        lines(
            [
                element("meta", attrs={"charset": "utf-8"}),
                # agentic.output.page.MARK, verbatim: it marks a page the kit may replace.
                element("meta", attrs={"name": "generator", "content": GENERATOR}),
                element(
                    "meta",
                    attrs={"name": "viewport", "content": "width=device-width, initial-scale=1"},
                ),
                element(
                    "meta",
                    attrs={"http-equiv": "Content-Security-Policy", "content": policy},
                ),
                element("title", title),
                element("style", "\n", _static("page.css")),
            ]
        ),
    )


def document(title: str, body: list[Html], scripts: Html) -> bytes:
    """The page as UTF-8 bytes: its head, then ``body`` one line after another. ``scripts`` is
    the CSP source of the scripts it may run (``script_source``, or ``NO_SCRIPT``)."""
    page = element(
        "html",
        "\n",
        lines([_head(title, scripts), element("body", "\n", lines(body))]),
        attrs={"lang": "en"},
    )
    return f"<!DOCTYPE html>\n{page}\n".encode()
