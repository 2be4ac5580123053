from __future__ import annotations

from pathlib import Path

import pytest

from agentic.adapters.base import PreparedIndex
from agentic.adapters.mcp.adapter import McpAdapter
from agentic.adapters.mcp.profiles import profile_by_id
from agentic.fixture.loader import Fixture, load_fixture
from tests.mcp.support import TIMEOUT_S
from tests.support.tiny_fixture import write_tiny_fixture


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    return load_fixture(write_tiny_fixture(tmp_path_factory.mktemp("tiny") / "fixture"))


@pytest.fixture(scope="module")
def reference_adapter(tiny: Fixture) -> McpAdapter:
    return McpAdapter(profile_by_id("mcp-reference"), tiny.snapshot)


@pytest.fixture(scope="module")
def reference_prepared(
    reference_adapter: McpAdapter, tiny: Fixture, tmp_path_factory: pytest.TempPathFactory
) -> PreparedIndex:
    root: Path = tmp_path_factory.mktemp("mcp-reference")
    return reference_adapter.prepare(tiny.snapshot, root, timeout_s=TIMEOUT_S)
