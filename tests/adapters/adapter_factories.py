"""Named adapter factories for the shared contract suite (test_adapter_contract.py).

Adding an adapter to the suite is one line in ADAPTER_FACTORIES: a name and a function from the
test world (snapshot + oracles) to an Adapter. The world's task sees collections c001 and c002;
c0ff belongs to another task, so every adapter must refuse it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from agentic.adapters.base import Adapter
from agentic.adapters.capsule import CapsuleAdapter
from agentic.adapters.lexical import LexicalAdapter
from agentic.adapters.oracle import OracleAdapter
from agentic.contract.oracle import HiddenOracle
from agentic.fixture.snapshot import CorpusSnapshot


@dataclass(frozen=True)
class AdapterWorld:
    snapshot: CorpusSnapshot
    oracles: Mapping[str, HiddenOracle]


@dataclass(frozen=True)
class AdapterFactory:
    name: str
    build: Callable[[AdapterWorld], Adapter]


ADAPTER_FACTORIES: tuple[AdapterFactory, ...] = (
    AdapterFactory("lexical", lambda world: LexicalAdapter(world.snapshot)),
    AdapterFactory("capsule", lambda world: CapsuleAdapter(world.snapshot)),
    AdapterFactory("oracle", lambda world: OracleAdapter(world.snapshot, world.oracles)),
)
