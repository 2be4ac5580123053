"""The package's own catalog entries: its adapters, its agents and the lanes that need nothing of
a checkout (the package's adapters and agents on the bundled fixture).

Nothing here imports an adapter or agent module at load time: an entry holds a function that
imports its implementation when the entry is built, so a run pays only for what it uses; the
built-ins' ids come from ``adapters/ids.py``, which imports nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agentic.adapters import ids
from agentic.catalog.entries import (
    AdapterEntry,
    AdapterInputs,
    AgentContext,
    AgentEntry,
    LaneEntry,
    OpenedAgent,
)
from agentic.catalog.table import Catalog
from agentic.contract.errors import ContractError

if TYPE_CHECKING:
    from agentic.adapters.base import Adapter

# The endpoint agent's kind, and what it needs before it can run.
OPENAI_CHAT = "openai-chat"
AGENT_CONFIG_OPTION = "--agent-config FILE"
OPTIONAL_FOLDER = "optional"


def _lexical(inputs: AdapterInputs) -> Adapter:
    from agentic.adapters.lexical import LexicalAdapter

    return LexicalAdapter(inputs.snapshot)


def _capsule(inputs: AdapterInputs) -> Adapter:
    from agentic.adapters.capsule import CapsuleAdapter

    return CapsuleAdapter(inputs.snapshot)


def _oracle(inputs: AdapterInputs) -> Adapter:
    from agentic.adapters.oracle import OracleAdapter

    return OracleAdapter(inputs.snapshot, inputs.oracles)


def _mcp_profile(adapter_id: str) -> Callable[[AdapterInputs], Adapter]:
    def build(inputs: AdapterInputs) -> Adapter:
        from agentic.adapters.mcp.adapter import McpAdapter
        from agentic.adapters.mcp.profiles import profile_by_id

        return McpAdapter(profile_by_id(adapter_id), inputs.snapshot)

    return build


def _ready() -> str | None:
    return None


def _shipped_profile(
    adapter_id: str, *, default: bool = False, unavailable: Callable[[], str | None] = _ready
) -> AdapterEntry:
    """The entry of a shipped MCP profile: its id is also the profile's key in ``PROFILES``."""
    return AdapterEntry(
        adapter_id,
        _mcp_profile(adapter_id),
        default=default,
        spawns_processes=True,
        unavailable=unavailable,
    )


def _qmd_missing() -> str | None:
    import os

    from agentic.adapters.qmd.install import qmd_home, verify_install
    from agentic.adapters.qmd.lockfile import load_qmd_lock

    try:
        verify_install(load_qmd_lock(), qmd_home(os.environ))
    except ContractError as exc:
        return str(exc)
    return None


def _qmd_models_missing() -> str | None:
    from agentic.adapters.qmd.lockfile import load_qmd_lock
    from agentic.adapters.qmd.models import verify_models

    try:
        verify_models(load_qmd_lock())
    except ContractError as exc:
        return _qmd_missing() or str(exc)
    return _qmd_missing()


def _gno_missing() -> str | None:
    from agentic.adapters.errors import AdapterError
    from agentic.adapters.mcp.gno import locate_executable

    try:
        locate_executable()
    except AdapterError as exc:
        return str(exc)
    return None


def _fixture_agent(context: AgentContext) -> OpenedAgent:
    from agentic.catalog.agent_openers import open_fixture_agent

    return open_fixture_agent(context.fixture_root, context.cues_path)


def _local_model_agent(context: AgentContext) -> OpenedAgent:
    from agentic.catalog.agent_openers import open_local_model_agent
    from agentic.locks import AGENT_MODEL_LOCK

    return open_local_model_agent(context.locks_dir / AGENT_MODEL_LOCK, context.environ)


def _openai_chat_agent(context: AgentContext) -> OpenedAgent:
    from agentic.catalog.agent_openers import refuse_unconfigured

    return refuse_unconfigured(context)


AUTHORITATIVE_LANE = "fixture-agent"
AUTHORITATIVE_ADAPTERS: tuple[str, ...] = (ids.CAPSULE, ids.LEXICAL, ids.MCP_REFERENCE)
# The promotion gate of the gated lanes: the capsule against the reference server.
_GATE = (ids.CAPSULE, ids.MCP_REFERENCE)

# Ids come from ``adapters/ids.py``, where each is written once (the order here is the table's).
BUILTIN_ADAPTERS: tuple[AdapterEntry, ...] = (
    AdapterEntry(ids.CAPSULE, _capsule, replayable_bundle=True, default=True),
    AdapterEntry(ids.LEXICAL, _lexical, default=True),
    _shipped_profile(ids.MCP_REFERENCE, default=True),
    AdapterEntry(ids.ORACLE, _oracle, reads_oracles=True),
    _shipped_profile(ids.QMD_LEX, unavailable=_qmd_missing),
    _shipped_profile(ids.QMD, unavailable=_qmd_models_missing),
    _shipped_profile(ids.GNO_MCP, unavailable=_gno_missing),
)
BUILTIN_AGENTS: tuple[AgentEntry, ...] = (
    AgentEntry("fixture", _fixture_agent, concurrent=True),
    AgentEntry("local-model", _local_model_agent),
    # Listed and selectable by name; it runs only as the agent of an --agent-config file, which
    # takes this entry's place (``Catalog.configure_agent``).
    AgentEntry(OPENAI_CHAT, _openai_chat_agent, requires=AGENT_CONFIG_OPTION),
)
# The lanes an installed kit runs: those that need nothing of a checkout, only the package's
# adapters and agents on the bundled fixture, which the wheel carries (verifying one against its
# committed baseline still needs that baseline; the container image verifies qmd-lex and
# local-model this way, containers/pipeline.py). A checkout's other lanes (an agent config and
# its recorded answers, another fixture, its example servers) are data, in its lanes.toml.
PACKAGED_LANES: tuple[LaneEntry, ...] = (
    LaneEntry(AUTHORITATIVE_LANE, "fixture", AUTHORITATIVE_ADAPTERS, _GATE, True),
    LaneEntry(f"{OPTIONAL_FOLDER}/{ids.QMD_LEX}", "fixture", (ids.QMD_LEX,), None, False),
    LaneEntry(f"{OPTIONAL_FOLDER}/{ids.QMD}", "fixture", (ids.QMD,), None, False),
    # The gate needs the capsule replay, which would double a long lane: not run here.
    LaneEntry(f"{OPTIONAL_FOLDER}/local-model", "local-model", AUTHORITATIVE_ADAPTERS, None, False),
)


def packaged_catalog() -> Catalog:
    """What the package itself defines: its adapters, agents and lanes."""
    catalog = Catalog()
    for adapter in BUILTIN_ADAPTERS:
        catalog = catalog.add_adapter(adapter)
    for agent in BUILTIN_AGENTS:
        catalog = catalog.add_agent(agent)
    for lane in PACKAGED_LANES:
        catalog = catalog.add_lane(lane)
    return catalog
