"""The one exception type every boundary raises for bad input.

The CLI turns it into a single line on stderr and exit code 2, so a message must be one line
and name the problem precisely (a file, a JSON pointer, a field).
"""

from __future__ import annotations

from typing import Literal

# Who failed, as a receipt's ``failure.class`` records it (contract v1.0).
FailureClass = Literal["none", "harness_error", "agent_error", "product_error"]

# Exit codes of every command: a complete run (its gates passed), a gate that failed (a
# measurement, not an error), and invalid input, preflight, harness or requested-lane failure.
EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_ERROR = 2


class ContractError(ValueError):
    """Input violates the contract: bad JSON, a schema or semantic rule, a tampered file."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = " ".join(message.split())
        super().__init__(f"{code}: {self.message}")

    def __reduce__(self) -> tuple[type[ContractError], tuple[str, str]]:
        # Raised in a worker process, it crosses back to the driver pickled.
        return (ContractError, (self.code, self.message))
