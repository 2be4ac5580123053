"""Adapter ids and how to construct each one for a loaded fixture."""

from __future__ import annotations

from agentic.adapters.base import Adapter
from agentic.contract.errors import ContractError
from agentic.fixture.loader import Fixture

ADAPTER_IDS: tuple[str, ...] = (
    "capsule",
    "gno-mcp",
    "lexical",
    "mcp-reference",
    "oracle",
    "qmd",
    "qmd-lex",
)
DEFAULT_ADAPTERS: tuple[str, ...] = ("capsule", "lexical", "mcp-reference")


def create_adapter(adapter_id: str, fixture: Fixture) -> Adapter:
    # Imports are local so that a run pays only for the adapters it uses (mcp costs ~1 s).
    if adapter_id == "lexical":
        from agentic.adapters.lexical import LexicalAdapter

        return LexicalAdapter(fixture.snapshot)
    if adapter_id == "capsule":
        from agentic.adapters.capsule import CapsuleAdapter

        return CapsuleAdapter(fixture.snapshot)
    if adapter_id == "oracle":
        from agentic.adapters.oracle import OracleAdapter

        return OracleAdapter(
            fixture.snapshot, {task.taskId: fixture.oracle(task.taskId) for task in fixture.tasks}
        )
    if adapter_id in ("mcp-reference", "gno-mcp", "qmd-lex", "qmd"):
        from agentic.adapters.mcp.adapter import McpAdapter
        from agentic.adapters.mcp.profiles import profile_by_id

        return McpAdapter(profile_by_id(adapter_id), fixture.snapshot)
    raise ContractError("invalid_adapter_schedule", f"unknown adapter {adapter_id!r}")
