"""The MCP product profiles this kit ships, by adapter id."""

from __future__ import annotations

from agentic.adapters.mcp import gno, reference
from agentic.adapters.mcp.profile import McpProfile
from agentic.adapters.qmd.profiles import qmd_full_profile, qmd_lex_profile
from agentic.contract.errors import ContractError

PROFILES: dict[str, McpProfile] = {
    reference.PROFILE.adapter_id: reference.PROFILE,
    gno.PROFILE.adapter_id: gno.PROFILE,
    "qmd-lex": qmd_lex_profile(),
    "qmd": qmd_full_profile(),
}


def profile_by_id(adapter_id: str) -> McpProfile:
    profile = PROFILES.get(adapter_id)
    if profile is None:
        raise ContractError("invalid_adapter_schedule", f"no MCP profile {adapter_id!r}")
    return profile
