"""What a lane run is asked (``LaneRequest``), where its pairs execute (``Execution``), and
what it ends with (``LaneOutcome``). The checks of which options go together live here, once,
worded for the request (the CLI's flags are its business)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agentic.adapters.deadlines import PREPARE_TIMEOUT_S
from agentic.catalog.source import CatalogSource
from agentic.contract.errors import ContractError
from agentic.contract.report import BenchmarkReport
from agentic.runner.pairs import Shard


@dataclass(frozen=True)
class Execution:
    """Where and how the pairs of a run execute; the report is the same bytes for every value.

    ``jobs``: cold pairs at once, in threads for an agent that allows it
    (``AgentEntry.concurrent``), else in worker processes (lane/executors/processes.py).
    ``executor``: this process, a local process pool, or Ray tasks (lane/executors/ray_tasks.py)
    on the cluster at ``ray_address``. ``retries``: re-attempts of a pair after a harness
    failure (see ``RunConfig.retries``)."""

    jobs: int = 1
    executor: Literal["local", "processes", "ray"] = "local"
    ray_address: str | None = None
    retries: int = 0

    def __post_init__(self) -> None:
        # An address with another executor would be ignored: the user meant a cluster run.
        if self.ray_address is not None and self.executor != "ray":
            raise ContractError(
                "invalid_cli_option", "--ray-address needs --executor ray (the address is Ray's)"
            )


@dataclass(frozen=True)
class LaneRequest:
    """Everything ``agentic run`` was asked: what runs (fixture, agent, adapters, tasks,
    lifecycles, gate, replay), where its pairs execute, and where its report goes."""

    fixture_dir: Path
    cues_path: Path | None = None
    adapters: tuple[str, ...] | None = None
    tasks: tuple[str, ...] | None = None
    lifecycles: tuple[str, ...] = ("cold", "warm")
    agent: str = "fixture"
    timeout_s: float = 30.0
    # Each adapter's preparation deadline (--prepare-timeout-ms). Neither in the report nor in
    # the run's identity: it changes no result, so a resumed run or a shard may use another.
    prepare_timeout_s: float = PREPARE_TIMEOUT_S
    promote: tuple[str, str] | None = ("capsule", "mcp-reference")
    replay: bool = True
    index_cache: Path | None = None
    out: Path | None = None
    write: bool = False
    # Replace a previous report of another lane at the output (never other content).
    force: bool = False
    execution: Execution = Execution()
    # What the catalog is built from (every worker builds the same one from it); by default the
    # package's entries, the checkout's lanes and servers, and the installed plugins.
    catalog_source: CatalogSource = field(default_factory=CatalogSource)
    # Finish the interrupted run whose journal sits beside the output (lane/journal.py).
    resume: bool = False
    # Run only this slice of the pairs and write it as a shard (shards.py) for ``agentic merge``.
    shard: Shard | None = None
    # The key that seals the journal and the shard (None: AGENTIC_KEY_FILE, else the state dir's
    # key of this run; lane/journal.KeyRef). Never part of the report.
    key_file: Path | None = None


@dataclass(frozen=True)
class LaneOutcome:
    report: BenchmarkReport
    markdown: str
    exit_code: int
    # The folder that holds this run's report: freshly staged, or (``reproduced``) the committed
    # baseline whose results this run reproduced, its artifacts kept byte for byte.
    written_to: Path | None
    failure: str | None = None  # why an adapter could not be prepared (then nothing is written)
    harness_error: str | None = None  # else: which adapter hit a harness error after preparing
    reproduced: bool = False  # --write found the committed baseline's resultsFingerprint
