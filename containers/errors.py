"""The one error of the container pipeline: a code and a one-line message, exit 2."""

from __future__ import annotations


class ContainerError(Exception):
    """The pipeline cannot go on: no engine, an engine that refuses to start, a failed build or
    run, or a fingerprint that differs. ``python -m containers`` prints it as one line."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = " ".join(message.split())
        super().__init__(f"{code}: {self.message}")


def last_line(text: str) -> str:
    """The last non-empty line of a child's output: usually the one that says what went wrong."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"
