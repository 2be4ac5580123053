"""The catalog's table (``Catalog``): every adapter, agent and named lane a run can use, with
the rules of registering and looking one up.

Built-in entries (``builtins.py``), backend config files (``--backend FILE``) and Python plugins
all register through the same calls, :meth:`Catalog.add_adapter` and :meth:`Catalog.add_agent`
(``load.py`` builds a run's catalog that way). A catalog is a value: each registration returns a
new one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

from agentic.catalog.entries import AdapterEntry, AdapterInputs, AgentEntry, LaneEntry
from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import ContractError
from agentic.contract.oracle import HiddenOracle
from agentic.fixture.snapshot import CorpusSnapshot

if TYPE_CHECKING:
    from agentic.adapters.base import Adapter

# The one adapter id the v1.0 report schema allows in ``capsuleReplays``.
REPLAY_ADAPTER_ID = "capsule"

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
