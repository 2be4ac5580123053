"""Which lines of the verified snapshot document a server's returned text is.

A real MCP search server returns text: grep previews, snippets, windows, whole documents with
lines it added itself (a title, front matter). The kit cites snapshot lines only, so it must find
which snapshot lines that text *is*, and when it cannot be sure it says so instead of guessing.
Nothing here invents evidence: every line number returned names a snapshot line whose text equals
the returned text, or, for a cut preview only, starts with it. Pure functions, no I/O.

Blank means what the contract means by it (JavaScript's ``trim``, ``agentic.contract.jsrules``):
a blank returned line is never evidence of anything and is never counted.

One returned line (``align_line``), with the line number the server claimed for it, if any:

1. blank: unmatched;
2. the claimed line's text equals the returned text exactly: aligned there (exact);
3. else exact occurrences anywhere: one is aligned there (exact); several are ambiguous, however
   the claim points (a claim that failed to verify does not get to pick among them);
4. else a preview. Its key (``preview_key``) is the text trimmed, one trailing ellipsis ("..." or
   "…") removed, trimmed again, each whitespace run collapsed to one space. A key shorter than
   ``min_preview`` is unmatched (a few characters start too many lines to be evidence). The
   candidates are the lines whose trimmed, collapsed text starts with the key: the claimed line
   when it is one, else the only one (not exact); several are ambiguous, none unmatched. Nothing
   fuzzier: no case folding, no edit distance, no match inside a line.

A block of returned lines (``align_block``): a snippet, a window, or a whole document with
server-added lines, with the line the server says the block starts at (``prefer``), if any:

- the block as it stands at ``prefer``: every line maps there, blank lines too (callers decide
  about blanks);
- else the block occurring contiguously exactly once in the document: there. Several occurrences,
  none at ``prefer``: the first is not taken; the general rule decides (and finds them ambiguous);
- the general rule: order-preserving matching blocks, as ``difflib.SequenceMatcher`` (no
  autojunk) pairs them; paired lines are equal by construction. A matched run is placed where
  ``prefer`` puts it when it stands there (and the order is kept), else where it was found when
  it occurs only once in the document; otherwise its place is ambiguous and its non-blank lines
  are counted so. A run of blank lines only maps nowhere and is not counted. Non-blank lines
  outside every run are unmatched, even when their text occurs once elsewhere: placing them out
  of order would need rules of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from agentic.contract.jsrules import JS_WHITESPACE, is_blank, js_trim

LineVerdict = Literal["aligned", "ambiguous", "unmatched"]

_ELLIPSES = ("...", "\u2026")
_WHITESPACE_RUN = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")

Lines = tuple[str, ...]
# A matched run as difflib gives it: document index, returned index (both 0-based), size.
Run = tuple[int, int, int]
# Each document line's text and the 0-based indexes it occurs at.
Where = dict[str, list[int]]


@dataclass(frozen=True)
class LineMatch:
    """Where one returned line is in the document."""

    verdict: LineVerdict
    number: int | None  # the 1-based snapshot line when aligned, else None
    exact: bool  # the text equals that line exactly (False: matched as a cut preview)


@dataclass(frozen=True)
class BlockAlignment:
    """Where each line of a returned block is in the document."""

    numbers: tuple[int | None, ...]  # per returned line: the snapshot line it is, or None
    ambiguous: int  # non-blank returned lines left unaligned because their place is ambiguous
    unmatched: int  # non-blank returned lines found nowhere in the document


_UNMATCHED = LineMatch("unmatched", None, False)
_AMBIGUOUS = LineMatch("ambiguous", None, False)


def preview_key(text: str) -> str:
    """The preview a returned line stands for: trimmed, without one trailing ellipsis, trimmed
    again, each whitespace run one space. A snapshot line matches it when its own trimmed,
    collapsed text starts with it."""
    key = js_trim(text)
    for ellipsis in _ELLIPSES:
        if key.endswith(ellipsis):
            key = key[: -len(ellipsis)]
            break
    return _collapse(js_trim(key))


def align_line(
    document: Sequence[str], text: str, claimed: int | None = None, *, min_preview: int = 12
) -> LineMatch:
    """Where ``text`` (a line the server returned, said to be line ``claimed``) is in
    ``document``; see the module docstring for the rules."""
    if is_blank(text):
        return _UNMATCHED
    if claimed is not None and 1 <= claimed <= len(document) and document[claimed - 1] == text:
        return LineMatch("aligned", claimed, True)
    exact = [number for number, line in enumerate(document, 1) if line == text]
    if exact:
        return _only(exact, exact=True)
    key = preview_key(text)
    # An empty key (the text was an ellipsis alone) would start every line, whatever the minimum.
    if not key or len(key) < min_preview:
        return _UNMATCHED
    candidates = [number for number, line in enumerate(document, 1) if _starts_with(line, key)]
    if claimed is not None and claimed in candidates:
        return LineMatch("aligned", claimed, False)
    return _only(candidates, exact=False)


def align_block(
    document: Sequence[str], returned: Sequence[str], prefer: int | None = None
) -> BlockAlignment:
    """Where each line of ``returned`` (a block the server said starts at line ``prefer``) is in
    ``document``; see the module docstring for the rules."""
    lines, block = tuple(document), tuple(returned)
    if not block:
        return BlockAlignment((), 0, 0)
    if prefer is not None and prefer >= 1 and lines[prefer - 1 : prefer - 1 + len(block)] == block:
        return _contiguous(prefer - 1, len(block))
    where = _where(lines)
    starts = _occurrences(lines, where.get(block[0], []), block)
    if len(starts) == 1:
        return _contiguous(starts[0], len(block))
    return _general(lines, where, block, prefer)


def _collapse(text: str) -> str:
    return _WHITESPACE_RUN.sub(" ", text)


def _starts_with(line: str, key: str) -> bool:
    trimmed = js_trim(line)
    # Collapsing keeps a trimmed text's first character: most lines are ruled out without it.
    return trimmed[:1] == key[:1] and _collapse(trimmed).startswith(key)


def _only(numbers: Sequence[int], *, exact: bool) -> LineMatch:
    if len(numbers) == 1:
        return LineMatch("aligned", numbers[0], exact)
    return _AMBIGUOUS if numbers else _UNMATCHED


def _contiguous(start: int, size: int) -> BlockAlignment:
    return BlockAlignment(tuple(range(start + 1, start + size + 1)), 0, 0)


def _where(lines: Lines) -> Where:
    where: Where = {}
    for index, line in enumerate(lines):
        where.setdefault(line, []).append(index)
    return where


def _occurrences(haystack: Lines, starts: Sequence[int], needle: Lines) -> list[int]:
    """The first two of ``starts`` (indexes of ``needle[0]`` in ``haystack``) where the whole
    ``needle`` stands: two are enough to know it is not unique."""
    found: list[int] = []
    for start in starts:
        if haystack[start : start + len(needle)] == needle:
            found.append(start)
            if len(found) == 2:
                break
    return found


def _general(lines: Lines, where: Where, block: Lines, prefer: int | None) -> BlockAlignment:
    numbers: list[int | None] = [None] * len(block)
    covered = [False] * len(block)
    ambiguous = 0
    floor = 0  # where the last placed run ends
    runs = _matching_runs(lines, block)
    for position, (found, first, size) in enumerate(runs):
        covered[first : first + size] = [True] * size
        run = block[first : first + size]
        solid = sum(1 for line in run if not is_blank(line))
        if solid == 0:
            continue  # blank lines say nothing about a place
        ceiling = runs[position + 1][0] if position + 1 < len(runs) else len(lines)
        preferred = None if prefer is None else prefer - 1 + first
        # Placed runs keep their order: between the last placed run and the next found one.
        room = range(floor, ceiling - size + 1)
        start = _place(lines, where, run, found=found, preferred=preferred, room=room)
        if start is None:
            ambiguous += solid
            continue
        numbers[first : first + size] = range(start + 1, start + size + 1)
        floor = start + size
    unmatched = sum(
        1 for line, seen in zip(block, covered, strict=True) if not seen and not is_blank(line)
    )
    return BlockAlignment(tuple(numbers), ambiguous, unmatched)


def _place(
    lines: Lines, where: Where, run: Lines, *, found: int, preferred: int | None, room: range
) -> int | None:
    """Where a matched run goes: where ``prefer`` puts it when it stands there, within ``room``
    (the server's claim, verified), else where difflib found it when it occurs only there; None
    when its place is ambiguous (difflib just took the earliest)."""
    if (
        preferred is not None
        and preferred in room
        and lines[preferred : preferred + len(run)] == run
    ):
        return preferred
    if len(_occurrences(lines, where.get(run[0], []), run)) == 1:
        return found
    return None


def _matching_runs(lines: Lines, block: Lines) -> list[Run]:
    """Order-preserving runs of equal lines, as difflib's matching blocks (without the empty
    sentinel). SequenceMatcher is quadratic in repeated lines, so the cheap cases come first: a
    whole document inside the block once (server-added lines around it) is the only run, and
    otherwise the common head and tail are runs of their own and only the middle is matched."""
    if lines:
        inside = _occurrences(block, [i for i, line in enumerate(block) if line == lines[0]], lines)
        if len(inside) == 1:
            return [(0, inside[0], len(lines))]
    head = _common_length(lines, block)
    tail = _common_length(lines[head:][::-1], block[head:][::-1])
    matcher = SequenceMatcher(
        None, lines[head : len(lines) - tail], block[head : len(block) - tail], autojunk=False
    )
    # The middle starts and ends on unequal lines, so none of its runs touches the head or tail.
    runs = [(head + i, head + j, size) for i, j, size in matcher.get_matching_blocks() if size]
    if head:
        runs.insert(0, (0, 0, head))
    if tail:
        runs.append((len(lines) - tail, len(block) - tail, tail))
    return runs


def _common_length(first: Lines, second: Lines) -> int:
    length = 0
    for one, other in zip(first, second, strict=False):  # the shorter one bounds it
        if one != other:
            break
        length += 1
    return length
