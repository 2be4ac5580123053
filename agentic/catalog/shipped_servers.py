"""The real MCP servers a checkout ships as backend configs (``examples/servers/<id>/``), as
adapters and lanes of the catalog.

The folder is the one the checkout's ``lanes.toml`` names (its ``servers`` key, read by
``lanes_file.py``); an installed kit has none. Each of its folders holds a ``backend.toml`` (the
server run by a config alone, no wrapper code), a ``server.toml`` (the Python it needs) and a
``requirements.txt`` (every package pinned); ``nox -s servers`` installs it into the folder's own
``.venv``. Lane ``backends/<id>`` runs the server beside lexical on the bundled fixture with the
fixture agent, gated against lexical; its committed report lives in ``baselines/backends/<id>/``.
A server that is not installed is listed as unavailable, with the command that installs it.
"""

from __future__ import annotations

from pathlib import Path

from agentic.adapters import ids
from agentic.adapters.base import Adapter
from agentic.catalog.entries import AdapterEntry, AdapterInputs, LaneEntry
from agentic.catalog.lanes_file import checkout_servers
from agentic.contract.errors import ContractError

LANE_FOLDER = "backends"
CONFIG_NAME = "backend.toml"


def shipped_configs() -> tuple[Path, ...]:
    """The checkout's shipped server configs, by folder name (none outside a checkout)."""
    folder = checkout_servers()
    if folder is None:
        return ()
    return tuple(sorted(folder.glob(f"*/{CONFIG_NAME}")))


def _missing(executable: Path, folder: Path) -> str | None:
    if executable.exists():
        return None
    if (folder / "server.toml").is_file():
        return f"{executable} is not installed: run `nox -s servers -- {folder.name}`"
    return f"{executable} is not installed: see {folder / 'README.md'}"


def shipped_entries(config: Path) -> tuple[AdapterEntry, LaneEntry]:
    """The adapter of one shipped config, and its lane beside lexical. The adapter id is the
    folder's name (the config must say the same); the config is read only when the adapter is
    built or asked whether it can run, so a run of other adapters never loads the MCP code."""
    adapter_id = config.parent.name

    def build(inputs: AdapterInputs) -> Adapter:
        from agentic.adapters.mcp.configured import backend_entry_parts

        parts = backend_entry_parts(config)
        if parts.adapter_id != adapter_id:
            raise ContractError(
                "invalid_backend_config",
                f"{config}: id {parts.adapter_id!r} is not its folder's name {adapter_id!r}",
            )
        return parts.build(inputs)

    def unavailable() -> str | None:
        from agentic.adapters.mcp.configured import executable_of

        executable = executable_of(config)
        return None if executable is None else _missing(executable, config.parent)

    adapter = AdapterEntry(
        adapter_id,
        build,
        spawns_processes=True,
        unavailable=unavailable,
        origin="config",
        source=str(config),
    )
    adapters = (adapter_id, ids.LEXICAL)
    lane = LaneEntry(f"{LANE_FOLDER}/{adapter_id}", "fixture", adapters, adapters, False)
    return adapter, lane
