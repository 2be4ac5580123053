"""A run's catalog, built: the package's entries, then a checkout's lanes and example servers,
installed plugins and the given backend config files.

A source checkout adds the lanes and example servers its ``lanes.toml`` names (``lanes_file.py``);
an installed kit has no such file, so it lists what it ships and what the user configures.
Plugins register through the entry-point groups ``agentic.adapters`` and ``agentic.agents``.
Every list of names elsewhere (the CLI's choices, the default adapters, what may be prepared or
ranked, the lanes nox and the container pipeline run, the adapter conformance suite) is derived
from a catalog, and ``load_catalog`` builds a fresh one per command, never a global.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from importlib import metadata
from pathlib import Path

from agentic.catalog.builtins import packaged_catalog
from agentic.catalog.entries import AdapterEntry, AgentEntry, LaneEntry
from agentic.catalog.lanes_file import checkout_lanes_file, load_lanes_file
from agentic.catalog.table import Catalog
from agentic.contract.errors import ContractError

ADAPTER_GROUP = "agentic.adapters"
AGENT_GROUP = "agentic.agents"


def builtin_catalog() -> Catalog:
    """The kit's own entries: the package's, and in a checkout the lanes of its lanes.toml
    (not its example servers, which ``load_catalog`` adds)."""
    return with_checkout_lanes(packaged_catalog())


def with_checkout_lanes(catalog: Catalog) -> Catalog:
    """Add the lanes of the running checkout's lanes.toml (none for an installed kit)."""
    path = checkout_lanes_file()
    if path is None:
        return catalog
    for lane in load_lanes_file(path).lane_entries():
        catalog = _add_lane(catalog, lane, path)
    return catalog


def _add_lane(catalog: Catalog, lane: LaneEntry, source: Path) -> Catalog:
    """Add one lane of a checkout's file; a lane the catalog refuses is that file's error."""
    try:
        return catalog.add_lane(lane)
    except ContractError as exc:
        what = (
            exc.message if exc.code == "invalid_lanes_file" else f"lane {lane.name}: {exc.message}"
        )
        raise ContractError("invalid_lanes_file", f"{source}: {what}") from None


# -- plugins and backend configs ----------------------------------------------------------------


def _plugin_object(point: metadata.EntryPoint, expected: type[object]) -> object:
    where = f"entry point {point.name!r} ({point.value}) of group {point.group}"
    try:
        value = point.load()
    except Exception as exc:  # a broken plugin is one line, whatever it raised
        raise ContractError("invalid_plugin", f"{where}: cannot load: {exc}") from None
    if not isinstance(value, expected) and callable(value):
        try:
            value = value()
        except Exception as exc:
            raise ContractError("invalid_plugin", f"{where}: raised {exc!r}") from None
    if not isinstance(value, expected):
        raise ContractError(
            "invalid_plugin", f"{where}: gives {type(value).__name__}, not {expected.__name__}"
        )
    return value


def with_plugins(catalog: Catalog) -> Catalog:
    """Add every installed plugin's adapters and agents (entry points, sorted by name)."""
    for point in sorted(metadata.entry_points(group=ADAPTER_GROUP), key=lambda p: p.name):
        entry = _plugin_object(point, AdapterEntry)
        assert isinstance(entry, AdapterEntry)
        catalog = catalog.add_adapter(replace(entry, origin="plugin", source=point.value))
    for point in sorted(metadata.entry_points(group=AGENT_GROUP), key=lambda p: p.name):
        agent = _plugin_object(point, AgentEntry)
        assert isinstance(agent, AgentEntry)
        catalog = catalog.add_agent(replace(agent, origin="plugin", source=point.value))
    return catalog


def with_backends(catalog: Catalog, paths: Sequence[Path]) -> Catalog:
    """Register each backend config file as an adapter (see ``adapters/mcp/backend_config``)."""
    if not paths:
        return catalog
    from agentic.adapters.mcp.configured import backend_entry_parts

    for path in paths:
        if _shipped_already(catalog, path):
            continue
        parts = backend_entry_parts(path)
        catalog = catalog.add_adapter(
            AdapterEntry(
                parts.adapter_id,
                parts.build,
                spawns_processes=parts.spawns_processes,
                origin="config",
                source=str(path),
            )
        )
    return catalog


def _shipped_already(catalog: Catalog, path: Path) -> bool:
    """A config given with ``--backend`` that the checkout ships is registered once."""
    sources = {entry.source for entry in catalog.adapters.values() if entry.origin == "config"}
    return str(path.resolve()) in {str(Path(source).resolve()) for source in sources}


def with_shipped_servers(catalog: Catalog) -> Catalog:
    """The real servers the checkout ships (``shipped_servers.py``): adapters and lanes."""
    from agentic.catalog.shipped_servers import shipped_configs, shipped_entries

    for config in shipped_configs():
        adapter, lane = shipped_entries(config)
        catalog = _add_lane(catalog.add_adapter(adapter), lane, config)
    return catalog


def load_catalog(backends: Sequence[Path] = (), *, plugins: bool = True) -> Catalog:
    """The package's entries and the checkout's lanes and shipped servers, then installed
    plugins, then the given backend config files."""
    catalog = with_shipped_servers(builtin_catalog())
    if plugins:
        catalog = with_plugins(catalog)
    return with_backends(catalog, backends)
