"""``lanes.toml``: a checkout's own named lanes and the folder of its example servers, as data.

A source checkout keeps this file at its root: the lanes it runs beyond what the package ships
(the optional comparators, the blind fixture, the endpoint agents' recorded lanes) and where its
real MCP servers' configs are (``shipped_servers.py``). An installed kit has no such file, so its
catalog holds only the package's entries and what the user configures (``--backend``,
``--agent-config``, plugins).

The file is read as a ``--backend`` file is: TOML into a closed model, where an unknown key, a
missing or mistyped one, or a lane that contradicts itself is one ``ContractError`` line
(``invalid_lanes_file``, exit 2). Paths are relative to the file's folder and stay inside it. A
lane's name is its baseline's folder under ``baselines/``.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    model_validator,
)

from agentic import resources
from agentic.catalog.entries import DEFAULT_FIXTURE, LaneEntry
from agentic.contract.files import read_input_file
from agentic.contract.receipt import LIFECYCLES, Lifecycle
from agentic.contract.toml_config import dotted, parse_toml_model

LANES_FILE = "lanes.toml"
MAX_LANES_BYTES = 256 * 1024
_WORD = "[a-z0-9][a-z0-9-]{0,62}"


def _inside(value: str) -> str:
    """A path of the checkout: relative, and never climbing out of it."""
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts or "\\" in value:
        raise ValueError(f"{value!r} is not a relative path inside the checkout")
    return value


Id = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,62}$")]
# One folder, or one folder of a group (``optional/qmd``): the name is a baseline's folder.
LaneName = Annotated[str, Field(pattern=rf"^{_WORD}(/{_WORD})?$")]
FixtureName = Annotated[str, Field(pattern=rf"^{_WORD}$")]
CheckoutPath = Annotated[str, Field(min_length=1, max_length=300), AfterValidator(_inside)]


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LaneSpec(_Closed):
    """One lane as written; the defaults are ``LaneEntry``'s."""

    name: LaneName
    agent: Id
    adapters: tuple[Id, ...] = Field(min_length=1)
    promote: tuple[Id, Id] | None = None
    replay: StrictBool = False  # a lax bool would take "no" or 1
    fixture: FixtureName = DEFAULT_FIXTURE
    agent_config: CheckoutPath | None = None
    llm_cache: CheckoutPath | None = None
    lifecycles: tuple[Lifecycle, ...] = Field(default=LIFECYCLES, min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> LaneSpec:
        _unique("adapters", self.adapters)
        _unique("lifecycles", self.lifecycles)
        if self.promote is not None:
            _check_gate(self.promote, self.adapters)
        if (self.agent_config is None) != (self.llm_cache is None):
            # An endpoint lane reruns from its committed answers: a config alone could not.
            raise ValueError("agent_config and llm_cache come together")
        return self

    def entry(self) -> LaneEntry:
        return LaneEntry(
            self.name,
            self.agent,
            self.adapters,
            self.promote,
            self.replay,
            fixture=self.fixture,
            agent_config=self.agent_config,
            llm_cache=self.llm_cache,
            lifecycles=self.lifecycles,
        )


def _unique(key: str, values: tuple[str, ...]) -> None:
    repeated = sorted({value for value in values if values.count(value) > 1})
    if repeated:
        raise ValueError(f"{key} repeats {', '.join(repeated)}")


def _check_gate(promote: tuple[str, str], adapters: tuple[str, ...]) -> None:
    if promote[0] == promote[1]:
        raise ValueError("promote names one adapter twice")
    outside = [adapter for adapter in promote if adapter not in adapters]
    if outside:
        raise ValueError(f"promote names {outside[0]}, which is not among the lane's adapters")


class LanesFile(_Closed):
    """The whole file: where the example servers are, and the lanes in the order written."""

    servers: CheckoutPath | None = None
    lanes: tuple[LaneSpec, ...] = ()

    @model_validator(mode="after")
    def _distinct(self) -> LanesFile:
        _unique("lanes", tuple(lane.name for lane in self.lanes))
        return self

    def lane_entries(self) -> tuple[LaneEntry, ...]:
        return tuple(lane.entry() for lane in self.lanes)


def _where(location: tuple[int | str, ...], document: dict[str, Any]) -> str:
    """A validation error's place, naming the lane by its name rather than its index."""
    if len(location) >= 2 and location[0] == "lanes" and isinstance(location[1], int):
        lanes = document.get("lanes")
        lane = lanes[location[1]] if isinstance(lanes, list) else None
        name = lane.get("name") if isinstance(lane, dict) else None
        if isinstance(name, str):
            return ": ".join([f"lane {name}", dotted(location[2:], document)])
    return dotted(location, document)


def parse_lanes_file(data: bytes, *, source: str) -> LanesFile:
    return parse_toml_model(data, LanesFile, source=source, code="invalid_lanes_file", where=_where)


def load_lanes_file(path: Path) -> LanesFile:
    """Read and validate one lanes file; any problem is one ContractError line."""
    data = read_input_file(path, code="invalid_lanes_file", max_bytes=MAX_LANES_BYTES)
    return parse_lanes_file(data, source=str(path))


def checkout_lanes_file() -> Path | None:
    """The running checkout's ``lanes.toml``; None for an installed kit or a checkout without
    one (both then run only what the package ships and what the user configures)."""
    root = resources.repo_root()  # looked up at each call, so a test can stand in another root
    if root is None or not (root / LANES_FILE).is_file():
        return None
    return root / LANES_FILE


def checkout_servers() -> Path | None:
    """The folder of the checkout's example servers, as its lanes file names it."""
    path = checkout_lanes_file()
    if path is None:
        return None
    folder = load_lanes_file(path).servers
    return None if folder is None else path.parent / folder
