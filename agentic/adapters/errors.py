"""Adapter failures: a contract code, a failure class and a diagnostic message.

They live apart from ``adapters.base`` so that the lexical index, and through it the reference MCP
server, import them without the contract's pydantic models: the server's cold start pays for
every module it imports.
"""

from __future__ import annotations

from agentic.contract.errors import FailureClass


class AdapterError(Exception):
    """A failure with a contract code and class; the message is diagnostic only."""

    def __init__(self, code: str, failure_class: FailureClass, message: str = "") -> None:
        self.code = code
        self.failure_class = failure_class
        super().__init__(message or code)


class AdapterCallError(AdapterError):
    """A tool call failed (timeout, crash, scope violation, invalid result)."""
