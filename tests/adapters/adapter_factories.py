"""Named adapter factories for the shared contract suite (test_adapter_contract.py).

Adding an adapter to the suite is one entry in ADAPTER_FACTORIES: a name, a function from the
test world (snapshot + oracles) to an Adapter, and optional pytest marks. The MCP adapter joins
with, for example::

    AdapterFactory(
        "mcp-reference",
        lambda world: McpAdapter(reference_profile(), world.snapshot),
        marks=(pytest.mark.real_process,),
    )

The world's task sees collections c001 and c002; c0ff belongs to another task, so every adapter
must refuse it while that task is not the current one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pytest

from agentic.adapters.base import Adapter
from agentic.adapters.capsule import CapsuleAdapter
from agentic.adapters.lexical import LexicalAdapter
from agentic.adapters.mcp.adapter import McpAdapter
from agentic.adapters.mcp.profiles import profile_by_id
from agentic.adapters.oracle import OracleAdapter
from agentic.contract.oracle import HiddenOracle
from agentic.fixture.snapshot import CorpusSnapshot
from tests.adapters.adapter_snapshots import (
    OTHER_TASK_ID,
    TASK_ID,
    make_oracle,
    standard_snapshot,
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


ADAPTER_FACTORIES: tuple[AdapterFactory, ...] = (
    AdapterFactory("lexical", lambda world: LexicalAdapter(world.snapshot)),
    AdapterFactory("capsule", lambda world: CapsuleAdapter(world.snapshot)),
    AdapterFactory("oracle", lambda world: OracleAdapter(world.snapshot, world.oracles)),
    AdapterFactory(
        "mcp-reference",
        lambda world: McpAdapter(profile_by_id("mcp-reference"), world.snapshot),
        marks=(pytest.mark.real_process,),
    ),
)


def factory_params() -> list[object]:
    """One pytest parameter per factory, identified by its name and carrying its marks."""
    return [pytest.param(f, id=f.name, marks=f.marks) for f in ADAPTER_FACTORIES]


def standard_world() -> AdapterWorld:
    """The standard snapshot with an oracle for each of its two tasks (see adapter_snapshots)."""
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
