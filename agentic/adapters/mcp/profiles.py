"""The MCP product profiles this kit ships, by adapter id (each profile carries its own)."""

from __future__ import annotations

from agentic.adapters.mcp import gno, reference
from agentic.adapters.mcp.profile import McpProfile
from agentic.adapters.qmd.profiles import qmd_full_profile, qmd_lex_profile
from agentic.contract.errors import ContractError

PROFILES: dict[str, McpProfile] = {
    profile.adapter_id: profile
    for profile in (reference.PROFILE, gno.PROFILE, qmd_lex_profile(), qmd_full_profile())
}


def profile_by_id(adapter_id: str) -> McpProfile:
    profile = PROFILES.get(adapter_id)
    if profile is None:
        raise ContractError("invalid_adapter_schedule", f"no MCP profile {adapter_id!r}")
    return profile
