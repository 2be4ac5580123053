"""The kit's HTML writer: text is escaped unless it is already markup.

A page is built from ``element`` and ``join``, which escape every child and attribute value that
is not ``Html``. So a task id, a claim value, an argument or an excerpt of a third-party
backend's result reaches the page as text, never as markup, unless code wraps it in ``Html``:
the pages wrap only what the kit wrote itself (its SVG charts, CSS and script, and a few fixed
lines of its own prose and policy).

No template engine: importing one and compiling a page's template took about 37 ms of a lane's
0.75 s budget (docs/reports.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["Html", "element", "escape", "join", "lines"]

# Elements that take no children and no closing tag (only those the kit's pages use).
VOID = frozenset({"br", "input", "meta"})


class Html(str):
    """Markup, written into a page as it is: escaped text, or the kit's own markup."""

    __slots__ = ()


def _text(value: object) -> str:
    # Plain str inside the writer: a page of 600 pairs escapes some 20 000 values, and making
    # each an Html costs as much again as escaping it.
    if isinstance(value, Html):
        return value
    return (
        str(value)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&#34;")
        .replace("'", "&#39;")
    )


def escape(value: object) -> Html:
    """``value`` as text in a page: ``& < > " '`` become entities; ``Html`` stays as it is.
    Quotes become the numeric entities ``&#34;`` and ``&#39;``, right in text and in an attribute
    of either quoting alike."""
    return value if isinstance(value, Html) else Html(_text(value))


def join(parts: Iterable[object]) -> Html:
    """The parts one after another, each escaped unless it is ``Html``."""
    return Html("".join(map(_text, parts)))


def lines(parts: Iterable[object]) -> Html:
    """Each part on a line of its own (followed by a newline), escaped unless it is ``Html``."""
    return Html("".join([f"{_text(part)}\n" for part in parts]))


def element(name: str, *children: object, attrs: Mapping[str, object | None] | None = None) -> Html:
    """``<name attr="value">children</name>``: children and attribute values escaped, an
    attribute whose value is None left out (names are the caller's own, never data). A void
    element (``br``, ``input``, ``meta``) has no children and no closing tag."""
    # Plain loops and map(), no comprehensions: a page of 600 pairs has some 30 000 elements.
    opening = name
    if attrs:
        for key, value in attrs.items():
            if value is not None:
                opening += f' {key}="{_text(value)}"'
    if name in VOID:
        if children:
            raise ValueError(f"<{name}> takes no children")
        return Html(f"<{opening}>")
    return Html(f"<{opening}>{''.join(map(_text, children))}</{name}>")
