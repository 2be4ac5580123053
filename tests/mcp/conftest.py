from __future__ import annotations

from pathlib import Path

import pytest

from agentic.adapters.base import PreparedIndex
from agentic.adapters.mcp.adapter import McpAdapter
from agentic.adapters.mcp.profiles import profile_by_id
from agentic.fixture.loader import Fixture
from tests.support.mcp import TIMEOUT_S


@pytest.fixture(scope="module")
def reference_adapter(tiny_fixture: Fixture) -> McpAdapter:
    return McpAdapter(profile_by_id("mcp-reference"), tiny_fixture.snapshot)


@pytest.fixture(scope="module")
def reference_prepared(
    reference_adapter: McpAdapter, tiny_fixture: Fixture, tmp_path_factory: pytest.TempPathFactory
) -> PreparedIndex:
    root: Path = tmp_path_factory.mktemp("mcp-reference")
    return reference_adapter.prepare(tiny_fixture.snapshot, root, timeout_s=TIMEOUT_S)
