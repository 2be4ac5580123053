"""Adapter failures: a contract code, a failure class and a diagnostic message.

They live apart from ``adapters.base`` so that the lexical index, and through it the reference MCP
server, import them without the contract's pydantic models: the server's cold start pays for
every module it imports.
"""

from __future__ import annotations

from agentic.contract.code_names import ErrorCodeName, RelayedCode
from agentic.contract.errors import AgenticError, FailureClass


class AdapterError(AgenticError):
    """A failure with a contract code and class; the message is diagnostic only.

    ``code`` is a code of the table (``contract/codes.py``). A code the product owns, passed on
    as the product sent it, is wrapped as ``RelayedCode(code)`` at the one place it is read.
    """

    def __init__(
        self, code: ErrorCodeName | RelayedCode, failure_class: FailureClass, message: str = ""
    ) -> None:
        self.code = code
        self.failure_class = failure_class
        super().__init__(message or code)


class AdapterCallError(AdapterError):
    """A tool call failed (timeout, crash, scope violation, invalid result)."""
