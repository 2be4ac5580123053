"""The kit's base exception, ``AgenticError``, and the one bad-input exception, ``ContractError``.

The CLI turns a ``ContractError`` into a single line on stderr and exit code 2, so a message must
be one line and name the problem precisely (a file, a JSON pointer, a field).
"""

from __future__ import annotations

from typing import Literal

from agentic.contract.code_names import ErrorCodeName, RelayedCode

# Who failed, as a receipt's ``failure.class`` records it (contract v1.0).
FailureClass = Literal["none", "harness_error", "agent_error", "product_error"]

# Exit codes of every command: a complete run (its gates passed), a gate that failed (a
# measurement, not an error), and invalid input, preflight, harness or requested-lane failure.
EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_ERROR = 2


class AgenticError(Exception):
    """The base of every exception the kit defines; nothing catches it as such.

    Each class, where it is raised -> where it is caught -> what it ends in (exit codes above;
    receipt codes in ``codes.py``)::

        AgenticError
        ├── ContractError (contract/errors.py; ValueError too): bad input anywhere, a failed
        │     preflight, an unsafe write -> cli.main (and server/__main__) -> one
        │     ``agentic: <code>: <message>`` line, exit 2. Pickled back from worker processes;
        │     runner/trial.py lets it end the whole command
        ├── AdapterError (adapters/errors.py): preparing or attaching an adapter -> the runner's
        │   │ ``except Exception`` -> adapter_preparation_failed, cold_trial_setup_failed or
        │   │ warm_cohort_setup_failed receipts (harness_error, exit 2); agentic prepare and
        │   │ ranking -> ContractError(its code), exit 2; server/app.py -> ProductError
        │   └── AdapterCallError: a tool call -> runner/trial.py -> receipt failure.code with its
        │         class (exit 2 when harness_error); ranking -> that search's error code, or
        │         ContractError(its code) when a harness_error, exit 2
        ├── StepError (runner/steps.py): the agent's output is no valid step -> runner/trial.py
        │     -> its agent_error code in the receipt
        ├── AgentStepError (agents/base.py): an agent classifies its own failure ->
        │     runner/trial.py -> its class and code in the receipt; catalog/agent_openers.py
        │     (listing an endpoint's models before any pair) -> ContractError(its code), exit 2
        ├── OperationTimeoutError (runner/bounded.py): a bounded operation ran out of time ->
        │     runner/trial.py -> agent_timeout; generation/runner.py -> generation_timeout, exit 2
        ├── WorkerLostError (lane/executors/processes.py, ray_tasks.py): a worker died ->
        │     lane/executors/units.py retries the unit, then worker_lost receipts (exit 2)
        ├── CohortPairingError (scoring/promotion.py): cohorts do not pair -> the promotion gate
        │     -> a failed gate (cohort_pairing_failed), exit 1
        ├── SandboxError (adapters/sandbox.py): a required sandbox cannot run -> lane/execute.py
        │     -> sandbox_unavailable, exit 2; at a spawn -> OSError / McpClientError spawn_failed
        ├── McpClientError (adapters/mcp/client.py): an MCP connection failed (its ``kind``) ->
        │     mcp/adapter.py -> AdapterCallError (tool_timeout, tool_call_failed, ...) or
        │     AdapterError (adapter_attach_*, adapter_preparation_*); qmd -> qmd_preflight_failed
        ├── FramingError (adapters/mcp/process.py): a bad stdio line -> mcp/client.py ->
        │     McpClientError("oversized") -> tool_result_too_large
        ├── ChildStartError, ChildTimeoutError (adapters/mcp/process.py): a bounded command ->
        │     mcp/process.py -> AdapterError adapter_preparation_failed / _timeout; adapters/qmd
        │     -> ContractError with the caller's code, exit 2
        ├── _ReplyTooLargeError (adapters/mcp/http_client.py; httpx2.StreamError too): an HTTP reply
        │     over its cap -> the MCP SDK; the McpClientError("oversized") recorded beside it is
        │     raised instead -> tool_result_too_large
        ├── ProductError (server/app.py, the reference MCP server): a bad tool call -> an error
        │     result {"error": code} -> mcp-reference -> AdapterCallError(code, product_error)
        ├── UsageError (cli.py): argparse -> cli.main -> ``agentic: invalid_cli_option``, exit 2
        └── _NonJsonError (contract/canonical.py): a non-JSON value -> canonical.py ->
              ContractError non_json_value, exit 2

    Not under it: ``cli.TerminatedError`` (SIGTERM) is a ``BaseException`` so that no
    ``except Exception`` stops it unwinding; cli.main exits 143.
    """


class ContractError(AgenticError, ValueError):
    """Input violates the contract: bad JSON, a schema or semantic rule, a tampered file.

    ``code`` is a code of the table (``codes.py``), or an adapter's code passed on as it is
    (``ContractError(exc.code, ...)``), which may be a product's ``RelayedCode``.
    """

    def __init__(self, code: ErrorCodeName | RelayedCode, message: str) -> None:
        self.code = code
        self.message = " ".join(message.split())
        super().__init__(f"{code}: {self.message}")

    def __reduce__(self) -> tuple[type[ContractError], tuple[ErrorCodeName | RelayedCode, str]]:
        # Raised in a worker process, it crosses back to the driver pickled.
        return (ContractError, (self.code, self.message))
