"""Redaction of volatile failure messages before they reach observations.diagnostics."""

from __future__ import annotations

import re

_POSIX_PATH = re.compile(r"(?:/[\w.@+-]+){2,}")
_WINDOWS_PATH = re.compile(r"[A-Za-z]:\\(?:[^\\\s]+\\?)+")
MAX_MESSAGE = 240


def redact(message: str) -> str:
    text = " ".join(message.split())
    text = _WINDOWS_PATH.sub("<path>", text)
    text = _POSIX_PATH.sub("<path>", text)
    return text[:MAX_MESSAGE]
