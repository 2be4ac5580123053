"""The catalog's entry types: what an adapter, an agent or a named lane registers as.

They live apart from ``builtins`` (which registers the built-in agents) and ``agent_openers``
(which opens them) so that both import them and neither imports the other at load time; plugin
authors get them from
``agentic.plugins``. This module imports no adapter or agent implementation: an entry holds a
function that imports its implementation when the entry is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypedDict

from agentic.contract.errors import ContractError
from agentic.contract.oracle import HiddenOracle
from agentic.contract.receipt import LIFECYCLES, Lifecycle
from agentic.contract.report import AgentEndpoint, Trial
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot
from agentic.resources import fixtures_dir, missing_fixture

if TYPE_CHECKING:
    from agentic.adapters.base import Adapter
    from agentic.agents.base import Agent

DEFAULT_FIXTURE = "agentic-retrieval"

Origin = Literal["builtin", "config", "plugin"]


@dataclass(frozen=True)
class AdapterInputs:
    """What an adapter is built from. ``oracles`` is filled only for an entry that declares
    ``reads_oracles``: a product never receives the hidden answers."""

    snapshot: CorpusSnapshot
    oracles: Mapping[str, HiddenOracle] = field(default_factory=dict)


@dataclass(frozen=True)
class AdapterEntry:
    """One adapter the kit can run.

    ``build`` makes the adapter for a fixture's snapshot. ``unavailable`` says why it cannot run
    on this machine (None when it can): a test suite skips with that reason, a run fails closed.
    An unavailable adapter still runs and fails closed at preparation.
    ``replayable_bundle`` marks a one-call evidence-bundle adapter whose bundle the run replays
    from a fresh preparation (the promotion gate's determinism proof). ``spawns_processes`` marks
    adapters that start real child processes.
    """

    adapter_id: str
    build: Callable[[AdapterInputs], Adapter]
    reads_oracles: bool = False
    replayable_bundle: bool = False
    default: bool = False
    spawns_processes: bool = False
    unavailable: Callable[[], str | None] = lambda: None
    origin: Origin = "builtin"
    source: str = "agentic"

    @property
    def preparable(self) -> bool:
        """Has a native index worth preparing ahead (the ceiling reads oracles instead)."""
        return not self.reads_oracles

    @property
    def rankable(self) -> bool:
        """Its search can be scored alone (the ceiling answers from oracles, not queries)."""
        return not self.reads_oracles


@dataclass(frozen=True)
class AgentContext:
    """What opening an agent may use: the fixture's root (for data shipped beside it, such as
    the fixture agent's cue table), an explicit cue table, the kit's locks and the environment."""

    fixture_root: Path
    cues_path: Path | None
    locks_dir: Path
    environ: MutableMapping[str, str]


@dataclass(frozen=True)
class OpenedAgent:
    """An opened agent: its receipt id, a factory for fresh instances and its trials."""

    kind: str
    agent_id: str
    factory: Callable[[], Agent]
    trials: tuple[Trial, ...]
    endpoint: AgentEndpoint | None = None  # an endpoint agent's provenance (the environment)
    # Refuses (ContractError) a task this agent cannot run at all, before anything is prepared.
    check_task: Callable[[AgentTask], None] | None = None


@dataclass(frozen=True)
class AgentEntry:
    kind: str
    open: Callable[[AgentContext], OpenedAgent]
    origin: Origin = "builtin"
    source: str = "agentic"
    # Whether its agents may serve pairs at once (``--jobs``): true for an agent with no state
    # between sessions that a second session could disturb.
    concurrent: bool = False
    # What it needs before it can open, as the catalog lists it (``"--agent-config FILE"``);
    # None for an agent that opens from the kit alone.
    requires: str | None = None


class LaneSettings(TypedDict):
    """The ``LaneRequest`` fields a run of a lane fixes: agent, adapters, gate, replay."""

    agent: str
    adapters: tuple[str, ...] | None
    promote: tuple[str, str] | None
    replay: bool


@dataclass(frozen=True)
class LaneEntry:
    """A named lane: the agent, the adapters, where its baseline lives, how it is gated."""

    name: str
    agent: str
    adapters: tuple[str, ...]
    promote: tuple[str, str] | None
    replay: bool
    fixture: str = DEFAULT_FIXTURE  # a folder of the kit's fixtures/
    # An endpoint agent's lane: its openai-chat config and its committed LLM cache, as paths in
    # the checkout (reused unless a run records into it), and the lifecycles it runs.
    agent_config: str | None = None
    llm_cache: str | None = None
    lifecycles: tuple[Lifecycle, ...] = LIFECYCLES

    @property
    def folder(self) -> str:
        return self.name

    def fixture_dir(self) -> Path:
        return fixtures_dir() / self.fixture

    def checked_fixture_dir(self) -> Path:
        """The lane's fixture folder, refused in one line when this kit lacks it (an installed
        wheel asked for sqlite-docs)."""
        reason = missing_fixture(self.fixture)
        if reason is not None:
            raise ContractError("fixture_not_found", f"lane {self.name}: {reason}")
        return self.fixture_dir()

    def run_settings(self) -> LaneSettings:
        """The ``LaneRequest`` fields a run of this lane fixes: agent, adapters, gate, replay."""
        return {
            "agent": self.agent,
            "adapters": self.adapters,
            "promote": self.promote,
            "replay": self.replay,
        }
