"""Which snapshot lines a reflowed snippet shows, for a config that says its server reflows text
(``reflowed = true`` in a tool's ``results``).

Many engines index a document's text with its line breaks gone and show a window of it: every
whitespace run one space, lines joined, both ends cut anywhere (mid-line, mid-word), each cut end
often marked by an ellipsis. No line of such a snippet equals a document line, and only its
first may start one, so ``align.py`` leaves it unmatched. The rule here places it, within the one
document the hit names, and only where that is certain (pure functions, no I/O):

1. the snippet's key: trimmed, one leading and one trailing ellipsis ("..." or "…") removed,
   trimmed again, each whitespace run one space. A key shorter than ``min_chars`` is unmatched
   (a few characters occur in too many places to be evidence);
2. the document's flat text: its non-blank lines, each trimmed and its whitespace runs made one
   space, joined by one space (blank lines vanish, as the engine's reflow drops them);
3. every occurrence of the key in the flat text, overlapping ones too: one is the snippet's
   place; several are ambiguous, unless exactly one begins on the line the server claimed;
   none is unmatched. Nothing fuzzier: no case folding, no markup removed, no edit distance;
4. the lines it shows: every line the occurrence covers entirely, and a line it covers only in
   part (the cut ends) when at least ``min_chars`` characters of that line are shown (a tail of
   a few characters says too little of its line to cite it). An occurrence that shows no line so
   is unmatched.

``mapped.py`` tries the rule on a returned line ``align.py`` found nowhere, and on a returned
block none of whose lines it placed or found ambiguous (a snippet wrapped at other places than
the document), the block's lines joined. Counts stay ``align.py``'s: each line shown is one
aligned line; an ambiguous or unmatched snippet counts each of its non-blank returned lines so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentic.adapters.mcp.align import LineVerdict
from agentic.contract.jsrules import JS_WHITESPACE, is_blank, js_trim

_ELLIPSES = ("...", "\u2026")
_WHITESPACE_RUN = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")


@dataclass(frozen=True)
class SpanMatch:
    """Where a reflowed snippet is: the 1-based snapshot lines it shows (empty unless aligned)."""

    verdict: LineVerdict
    numbers: tuple[int, ...] = ()


@dataclass(frozen=True)
class _FlatLine:
    """One non-blank document line in the flat text: its number and where it stands there."""

    number: int
    start: int
    end: int  # exclusive


def reflow_key(text: str) -> str:
    """The text a snippet shows: trimmed, without one ellipsis at each end, each whitespace run
    one space."""
    key = js_trim(text)
    key = next((key[len(e) :] for e in _ELLIPSES if key.startswith(e)), key)
    key = next((key[: -len(e)] for e in _ELLIPSES if key.endswith(e)), key)
    return _collapse(js_trim(key))


def align_reflowed(
    document: Sequence[str], text: str, claimed: int | None = None, *, min_chars: int = 12
) -> SpanMatch:
    """Where the reflowed snippet ``text`` (said to start on line ``claimed``, if at all) is in
    ``document``; see the module docstring for the rule."""
    key = reflow_key(text)
    if len(key) < min_chars:
        return SpanMatch("unmatched")
    flat, lines = _flatten(document)
    starts = _occurrences(flat, key)
    if len(starts) > 1:
        claimed_starts = [s for s in starts if _line_at(lines, s) == claimed]
        starts = claimed_starts if len(claimed_starts) == 1 else starts
    if len(starts) != 1:
        return SpanMatch("ambiguous" if starts else "unmatched")
    shown = _shown(lines, starts[0], starts[0] + len(key), min_chars)
    return SpanMatch("aligned", shown) if shown else SpanMatch("unmatched")


def _collapse(text: str) -> str:
    return _WHITESPACE_RUN.sub(" ", text)


def _flatten(document: Sequence[str]) -> tuple[str, list[_FlatLine]]:
    parts: list[str] = []
    lines: list[_FlatLine] = []
    offset = 0
    for number, line in enumerate(document, 1):
        if is_blank(line):
            continue
        part = _collapse(js_trim(line))
        if parts:
            offset += 1  # the space that joins it to the line before
        lines.append(_FlatLine(number, offset, offset + len(part)))
        parts.append(part)
        offset += len(part)
    return " ".join(parts), lines


def _occurrences(flat: str, key: str) -> list[int]:
    found: list[int] = []
    at = flat.find(key)
    while at >= 0:
        found.append(at)
        at = flat.find(key, at + 1)
    return found


def _line_at(lines: Sequence[_FlatLine], offset: int) -> int | None:
    """The line an offset of the flat text falls in (None: the joining space after a line)."""
    return next((line.number for line in lines if line.start <= offset < line.end), None)


def _shown(lines: Sequence[_FlatLine], start: int, end: int, min_chars: int) -> tuple[int, ...]:
    """The lines the span ``start..end`` of the flat text shows (rule 4)."""
    shown: list[int] = []
    for line in lines:
        covered = min(end, line.end) - max(start, line.start)
        if covered <= 0:
            continue
        if covered == line.end - line.start or covered >= min_chars:
            shown.append(line.number)
    return tuple(shown)
