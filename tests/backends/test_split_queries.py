"""Query forms against real servers of that kind (``tests/support/programs``): a server that
matches its whole query as one substring finds nothing for a query of several words unless the
kit asks once per word (``query_split = "words"``, merged round-robin by rank), and a server whose
query is SQLite FTS5 syntax fails on the agent's punctuation unless the kit escapes it
(``query_syntax = "fts5"``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.base import CallOutcome
from agentic.adapters.errors import AdapterCallError
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from tests.support.backends import SERVERS, TIMEOUT_S, attached

pytestmark = pytest.mark.real_process

GREP = r"^(?P<uri>[^:\n]+\.md):(?P<line>\d+): (?P<text>.*)$"
NORTH, SOUTH = "gno://c0a1/d001.md", "gno://c0a1/d002.md"


def config(server: str, **search: Any) -> dict[str, Any]:
    return {
        "id": server.replace("_", "-"),
        "transport": "stdio",
        "command": [sys.executable, str(SERVERS / f"{server}.py"), "{corpus}"],
        "ids": {"form": "path"},
        "reads": "snapshot",
        "tools": {
            "search": {
                "name": "search",
                "arguments": {"query": "query"},
                "results": {"shape": "lines", "pattern": GREP, "empty": "^No matches found"},
            }
            | search
        },
    }


def search(
    document: dict[str, Any], fixture: Fixture, tmp_path: Path, query: str, limit: int = 10
) -> CallOutcome:
    with attached(document, fixture, tmp_path) as session:
        arguments: JsonObject = {"query": query, "limit": limit}
        return session.call("search", arguments, timeout_s=TIMEOUT_S)


def shown(outcome: CallOutcome) -> list[tuple[str, int]]:
    found = json.loads(outcome.result.content)["results"]
    return [(hit["uri"], hit["startLine"]) for hit in found]


def test_a_whole_query_substring_server_finds_nothing_for_several_words(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    outcome = search(config("substring_server"), tiny_fixture, tmp_path, "gateway INC-4827")
    assert shown(outcome) == []


def test_a_split_query_merges_each_words_hits_rank_by_rank(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    document = config("substring_server", query_split="words")
    outcome = search(document, tiny_fixture, tmp_path, "gateway INC-4827")
    assert shown(outcome) == [(NORTH, 1), (NORTH, 3), (SOUTH, 1)]


def test_a_line_two_words_found_is_shown_once(tmp_path: Path, tiny_fixture: Fixture) -> None:
    document = config("substring_server", query_split="words")
    outcome = search(document, tiny_fixture, tmp_path, "gateway deployment")
    assert shown(outcome) == [(NORTH, 1), (SOUTH, 1)]
    assert (
        "search: 2 server call(s) in 2 ranking(s), merged round-robin by rank, de-duplicated "
        "by (document, line)"
    ) in outcome.diagnostics


def test_a_split_query_shows_at_most_the_agents_limit(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    document = config("substring_server", query_split="words")
    outcome = search(document, tiny_fixture, tmp_path, "gateway incident", limit=3)
    assert shown(outcome) == [(NORTH, 1), (NORTH, 3), (SOUTH, 1)]


def test_an_fts5_server_fails_on_the_agents_punctuation_unescaped(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with pytest.raises(AdapterCallError) as raised:
        search(config("fts5_server"), tiny_fixture, tmp_path, "INC-4827")
    assert raised.value.code == "tool_call_failed"


def test_an_fts5_escaped_identifier_is_found(tmp_path: Path, tiny_fixture: Fixture) -> None:
    outcome = search(config("fts5_server", query_syntax="fts5"), tiny_fixture, tmp_path, "INC-4827")
    assert shown(outcome) == [(NORTH, 3)]


def test_an_fts5_escaped_column_prefix_is_text(tmp_path: Path, tiny_fixture: Fixture) -> None:
    document = config("fts5_server", query_syntax="fts5")
    outcome = search(document, tiny_fixture, tmp_path, "Status: resolved")
    assert shown(outcome) == [(NORTH, 4)]
