from __future__ import annotations

import pytest

from agentic.fixture.loader import Fixture, load_fixture
from tests.support.tiny_fixture import write_tiny_fixture


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    return load_fixture(write_tiny_fixture(tmp_path_factory.mktemp("tiny") / "fixture"))
