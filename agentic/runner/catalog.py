"""The catalog: every adapter, agent and named lane a run can use, in one table.

The package defines its adapters, its agents and the lanes that need nothing of a checkout (the
package's adapters and agents on the bundled fixture). A source checkout adds the lanes and
example servers its ``lanes.toml`` names (``lanes_file.py``); an installed kit has no such file,
so it lists what it ships and what the user configures.

Built-in entries, backend config files (``--backend FILE``) and Python plugins (the entry-point
groups ``agentic.adapters`` and ``agentic.agents``) all register through the same calls,
:meth:`Catalog.add_adapter` and :meth:`Catalog.add_agent`. Every list of names elsewhere (the
CLI's choices, the default adapters, what may be prepared or ranked, the lanes nox and the
container pipeline run, the adapter conformance suite) is derived from a catalog.

Nothing here imports an adapter or agent module at load time: an entry (``entries.py``) holds a
function that imports its implementation when the entry is built, so a run pays only for what it
uses; the built-ins' ids come from ``adapters/ids.py``, which imports nothing.

A catalog is a value: ``load_catalog`` builds a fresh one per command, never a global.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from agentic.adapters import ids
from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import ContractError
from agentic.contract.oracle import HiddenOracle
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.runner.entries import (
    AdapterEntry,
    AdapterInputs,
    AgentContext,
    AgentEntry,
    LaneEntry,
    OpenedAgent,
)
from agentic.runner.lanes_file import checkout_lanes_file, load_lanes_file

if TYPE_CHECKING:
    from agentic.adapters.base import Adapter

ADAPTER_GROUP = "agentic.adapters"
AGENT_GROUP = "agentic.agents"
# The one adapter id the v1.0 report schema allows in ``capsuleReplays``.
REPLAY_ADAPTER_ID = "capsule"
# The endpoint agent's kind, and what it needs before it can run.
OPENAI_CHAT = "openai-chat"
AGENT_CONFIG_OPTION = "--agent-config FILE"
OPTIONAL_FOLDER = "optional"

_Entry = TypeVar("_Entry")


def _names(items: Iterable[str]) -> str:
    return ", ".join(sorted(items)) or "(none)"


def _lookup(table: Mapping[str, _Entry], name: str, what: str, *, code: ErrorCodeName) -> _Entry:
    """``table[name]``, or ContractError(code) naming every entry the table holds."""
    entry = table.get(name)
    if entry is None:
        raise ContractError(code, f"unknown {what} {name!r}; known: {_names(table)}")
    return entry


@dataclass(frozen=True)
class Catalog:
    adapters: Mapping[str, AdapterEntry] = field(default_factory=dict)
    agents: Mapping[str, AgentEntry] = field(default_factory=dict)
    lanes: Mapping[str, LaneEntry] = field(default_factory=dict)

    # -- registration ---------------------------------------------------------------------------

    def add_adapter(self, entry: AdapterEntry) -> Catalog:
        if entry.adapter_id in self.adapters:
            held = self.adapters[entry.adapter_id]
            raise ContractError(
                "duplicate_adapter_id",
                f"adapter id {entry.adapter_id!r} from {entry.source} is already taken "
                f"by the {held.origin} adapter from {held.source}",
            )
        if entry.replayable_bundle and entry.adapter_id != REPLAY_ADAPTER_ID:
            raise ContractError(
                "invalid_adapter_entry",
                f"{entry.adapter_id}: replayable bundles are recorded as capsuleReplays, whose "
                f"adapterId contract v1.0 fixes to {REPLAY_ADAPTER_ID!r}",
            )
        return replace(self, adapters={**self.adapters, entry.adapter_id: entry})

    def add_agent(self, entry: AgentEntry) -> Catalog:
        if entry.kind in self.agents:
            raise ContractError(
                "duplicate_agent_id",
                f"agent {entry.kind!r} from {entry.source} is already taken by "
                f"{self.agents[entry.kind].source}",
            )
        return replace(self, agents={**self.agents, entry.kind: entry})

    def configure_agent(self, entry: AgentEntry) -> Catalog:
        """Add the agent of a config file; it takes the place of an entry of its kind that only
        stands for a configured agent (``openai-chat``, which requires ``--agent-config``)."""
        held = self.agents.get(entry.kind)
        if held is not None and held.requires is not None:
            rest = {kind: agent for kind, agent in self.agents.items() if kind != entry.kind}
            return replace(self, agents=rest).add_agent(entry)
        return self.add_agent(entry)

    def add_lane(self, entry: LaneEntry) -> Catalog:
        # A name is a baseline's folder: a second definition would make its baseline ambiguous.
        # Every lane but the package's comes from the checkout's lanes file.
        if entry.name in self.lanes:
            raise ContractError("invalid_lanes_file", f"lane {entry.name} is already defined")
        for adapter_id in entry.adapters:
            self.adapter(adapter_id)
        if entry.agent_config is None:  # an endpoint lane's agent comes with its run's source
            self.agent(entry.agent)
        return replace(self, lanes={**self.lanes, entry.name: entry})

    # -- lookup -------------------------------------------------------------------------------

    def adapter(self, adapter_id: str) -> AdapterEntry:
        return _lookup(self.adapters, adapter_id, "adapter", code="invalid_adapter_schedule")

    def agent(self, kind: str) -> AgentEntry:
        return _lookup(self.agents, kind, "agent", code="invalid_cli_option")

    def lane(self, name: str) -> LaneEntry:
        return _lookup(self.lanes, name, "lane", code="invalid_cli_option")

    @property
    def adapter_ids(self) -> tuple[str, ...]:
        return tuple(sorted(self.adapters))

    @property
    def default_adapters(self) -> tuple[str, ...]:
        return tuple(sorted(a for a, entry in self.adapters.items() if entry.default))

    def preparable(self, adapter_id: str) -> AdapterEntry:
        entry = self.adapter(adapter_id)
        if not entry.preparable:
            raise ContractError(
                "invalid_adapter_schedule", f"{adapter_id} reads hidden oracles: nothing to prepare"
            )
        return entry

    def rankable(self, adapter_id: str) -> AdapterEntry:
        entry = self.adapter(adapter_id)
        if not entry.rankable:
            raise ContractError(
                "invalid_adapter_schedule",
                f"{adapter_id} reads hidden oracles and cannot be ranked",
            )
        return entry

    def check_schedule(self, adapter_ids: Sequence[str]) -> None:
        """An adapter that reads oracles runs alone: beside a product it would blur the lane."""
        readers = [a for a in adapter_ids if a in self.adapters and self.adapters[a].reads_oracles]
        if readers and len(adapter_ids) > 1:
            raise ContractError(
                "invalid_adapter_schedule",
                f"{readers[0]} reads hidden oracles and runs alone, never beside other adapters",
            )

    def build_adapter(
        self,
        adapter_id: str,
        snapshot: CorpusSnapshot,
        oracles: Mapping[str, HiddenOracle],
    ) -> Adapter:
        """The adapter for one fixture; only an oracle-reading entry receives the oracles."""
        entry = self.adapter(adapter_id)
        inputs = AdapterInputs(snapshot, oracles if entry.reads_oracles else {})
        return entry.build(inputs)

    def baseline_lane(
        self,
        *,
        agent: str,
        adapters: Sequence[str],
        task_ids: Sequence[str],
        all_task_ids: Sequence[str],
        lifecycles: Sequence[str],
    ) -> LaneEntry:
        """The named lane a run may be written as, or ContractError(unsafe_baseline_write)."""
        if sorted(task_ids) != sorted(all_task_ids):
            raise ContractError("unsafe_baseline_write", "--write needs every task of the fixture")
        for lane in self.lanes.values():
            if lane.agent == agent and sorted(lane.adapters) == sorted(adapters):
                if sorted(lifecycles) != sorted(lane.lifecycles):
                    needs = " and ".join(lane.lifecycles)
                    raise ContractError(
                        "unsafe_baseline_write", f"--write of lane {lane.name} needs {needs}"
                    )
                return lane
        raise ContractError(
            "unsafe_baseline_write",
            f"agent {agent!r} with adapters {','.join(sorted(adapters))} is not a named lane; "
            f"known: {_names(self.lanes)}",
        )


# -- built-ins -----------------------------------------------------------------------------------


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
    from agentic.runner.agents import open_fixture_agent

    return open_fixture_agent(context.fixture_root, context.cues_path)


def _local_model_agent(context: AgentContext) -> OpenedAgent:
    from agentic.locks import AGENT_MODEL_LOCK
    from agentic.runner.agents import open_local_model_agent

    return open_local_model_agent(context.locks_dir / AGENT_MODEL_LOCK, context.environ)


def _openai_chat_agent(context: AgentContext) -> OpenedAgent:
    from agentic.runner.agents import refuse_unconfigured

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
    from agentic.runner.shipped_servers import shipped_configs, shipped_entries

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
