"""Bounded one-shot child processes (``node --version``, ``npm ci``, ``qmd update``).

Each child starts in a new session, so its pid is its process-group id: on timeout the whole
group is killed (qmd's launcher and node-llama-cpp may spawn helpers), then the child is reaped
(``mcp.process.run_to_completion``). Output is captured whole; these commands print little.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from agentic.adapters.mcp.process import (
    ChildStartError,
    ChildTimeoutError,
    Finished,
    run_to_completion,
)
from agentic.adapters.sandbox import View
from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import ContractError

__all__ = ["Finished", "run_bounded"]


def run_bounded(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    timeout_s: float,
    code: ErrorCodeName,
    view: View | None = None,
    setting: str | None = None,
) -> Finished:
    """Run to completion within ``timeout_s``; ``code`` names the ContractError on failure to
    start or on timeout (the process group is killed first). ``setting``, the option that set
    ``timeout_s``, is named in the timeout's message: what to raise on a slow machine."""
    try:
        return run_to_completion(argv, env, cwd, timeout_s, view=view)
    except ChildStartError as exc:
        raise ContractError(code, f"cannot start {argv[0]}: {exc}") from None
    except ChildTimeoutError:
        message = f"{Path(argv[0]).name} did not finish within {timeout_s:g} s"
        if setting is not None:
            message += f" ({setting})"
        raise ContractError(code, message) from None
