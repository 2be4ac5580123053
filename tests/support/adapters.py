"""Adapter factories for the shared contract suite (tests/adapters/test_contract.py), from the
catalog.

Every adapter the catalog holds joins the suite with no test edit: the built-ins, installed
plugins, and the example backend configs under ``examples/backends/`` (registered as
``--backend`` would). An adapter that spawns processes is marked ``real_process``; one that
cannot run on this machine (qmd without its install, gno-mcp without gno) is skipped with the
catalog's own reason. A shipped real server (``examples/servers/``, installed by
``nox -s servers``) is also marked ``slow``: each of its tests starts the server (basic-memory:
7-8 s), and with the three PyPI servers installed their tests took ``make check`` from 3.5 to
8.8 minutes; ``make test`` runs them.

The world's task sees collections c001 and c002; c0ff belongs to another task, so every adapter
must refuse it while that task is not the current one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentic.adapters.base import Adapter
from agentic.catalog.load import load_catalog
from agentic.catalog.shipped_servers import shipped_configs
from agentic.catalog.table import Catalog
from agentic.contract.oracle import HiddenOracle
from agentic.fixture.snapshot import CorpusSnapshot
from tests.support.snapshots import (
    OTHER_TASK_ID,
    TASK_ID,
    make_oracle,
    standard_snapshot,
)

EXAMPLE_BACKENDS = tuple(
    sorted((Path(__file__).resolve().parents[2] / "examples" / "backends").glob("*/backend.toml"))
)


@dataclass(frozen=True)
class AdapterWorld:
    snapshot: CorpusSnapshot
    oracles: Mapping[str, HiddenOracle]


@dataclass(frozen=True)
class AdapterFactory:
    name: str
    build: Callable[[AdapterWorld], Adapter]
    marks: tuple[pytest.MarkDecorator, ...] = ()


def suite_catalog() -> Catalog:
    return load_catalog(EXAMPLE_BACKENDS)


def _factory(catalog: Catalog, adapter_id: str, shipped: frozenset[str]) -> AdapterFactory:
    entry = catalog.adapter(adapter_id)
    marks: list[pytest.MarkDecorator] = []
    if entry.spawns_processes:
        marks.append(pytest.mark.real_process)
    if adapter_id in shipped:
        marks.append(pytest.mark.slow)
    reason = entry.unavailable()
    if reason is not None:
        marks.append(pytest.mark.skip(reason=f"{adapter_id} cannot run here: {reason}"))

    def build(world: AdapterWorld) -> Adapter:
        return catalog.build_adapter(adapter_id, world.snapshot, world.oracles)

    return AdapterFactory(adapter_id, build, tuple(marks))


def factory_params() -> list[object]:
    """One pytest parameter per catalog adapter, identified by its id and carrying its marks."""
    catalog = suite_catalog()
    shipped = frozenset(config.parent.name for config in shipped_configs())
    factories = [_factory(catalog, adapter_id, shipped) for adapter_id in catalog.adapter_ids]
    return [pytest.param(f, id=f.name, marks=f.marks) for f in factories]


def standard_world() -> AdapterWorld:
    """The standard snapshot with an oracle for each of its two tasks (see snapshots.py)."""
    snapshot = standard_snapshot()
    return AdapterWorld(
        snapshot=snapshot,
        oracles={
            TASK_ID: make_oracle(snapshot, [("gno://c001/policy.md", 3, 4)]),
            OTHER_TASK_ID: make_oracle(
                snapshot, [("gno://c0ff/foreign.md", 3, 3)], task_id=OTHER_TASK_ID
            ),
        },
    )
