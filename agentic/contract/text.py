"""Text shortened for a reader: one rule for every place that shows only the start of a text.

A text over its limit keeps ``limit - 1`` characters and ends in an ellipsis, so the result is
never longer than ``limit`` and always says that something was left out.
"""

from __future__ import annotations

ELLIPSIS = "\u2026"


def clip(text: str, limit: int) -> str:
    """``text`` itself when at most ``limit`` characters, else its start and an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def one_line(text: str, limit: int) -> str:
    """``text`` with every run of whitespace (line breaks included) as one space, clipped."""
    return clip(" ".join(text.split()), limit)
