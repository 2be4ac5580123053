"""Paging (``paging.py``, ``[tools.search.paging]``): the kit asks a paging server for pages until
the agent's limit of in-scope hits, an empty or repeated page, or ``max_pages``. The server here
is real (``paging_server.py``): pages of one hit, another task's collection first, so a single
page holds nothing in the task's scope."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.base import CallOutcome
from agentic.adapters.mcp.backend_config import Paging
from agentic.adapters.mcp.configured import configured_profile
from agentic.adapters.mcp.paging import PageRead, more_pages, next_position
from agentic.fixture.loader import Fixture
from tests.support.backends import SERVERS, TIMEOUT_S, attached, config_rejection, parse_config
from tests.support.snapshots import snapshot_from

NORTH, SOUTH = "gno://c0a1/d001.md", "gno://c0a1/d002.md"
# "status budget": c0c3/d001.md lines 1 and 3 (outside task A's scope), then c0a1's d002 and d001.
QUERY = "status budget"


def config(mode: str = "offset", paging: dict[str, Any] | None = None) -> dict[str, Any]:
    search: dict[str, Any] = {
        "name": "search",
        "arguments": {"query": "query"},
        "results": {
            "shape": "records",
            "path": "result.matches",
            "fields": {"uri": "path", "line": "line", "text": "text"},
        },
    }
    if paging is not None:
        search["paging"] = paging
    return {
        "id": "paging",
        "transport": "stdio",
        "command": [sys.executable, str(SERVERS / "paging_server.py"), "{corpus}", mode, "1"],
        "ids": {"form": "path"},
        "reads": "snapshot",
        "tools": {"search": search},
    }


def search(document: dict[str, Any], fixture: Fixture, tmp_path: Path, limit: int) -> CallOutcome:
    with attached(document, fixture, tmp_path) as session:
        return session.call("search", {"query": QUERY, "limit": limit}, timeout_s=TIMEOUT_S)


def shown(outcome: CallOutcome) -> list[tuple[str, int]]:
    found = json.loads(outcome.result.content)["results"]
    return [(hit["uri"], hit["startLine"]) for hit in found]


def calls(outcome: CallOutcome) -> int:
    note = next(n for n in outcome.diagnostics if n.startswith("search: "))
    return int(note.split()[1])


# -- the rule ------------------------------------------------------------------------------------


def page(*hits: str, in_scope: tuple[str, ...] = ()) -> PageRead:
    return PageRead(hits=hits, in_scope=in_scope)


def test_another_page_is_asked_while_the_limit_is_not_reached() -> None:
    assert more_pages([page("a", in_scope=("a",))], limit=2, max_pages=5)


def test_paging_stops_at_the_agents_limit_of_in_scope_hits() -> None:
    assert not more_pages([page("a", "b", in_scope=("a", "b"))], limit=2, max_pages=5)


def test_paging_stops_after_an_empty_page() -> None:
    assert not more_pages([page("a"), page()], limit=10, max_pages=5)


def test_paging_stops_after_a_page_that_only_repeats() -> None:
    assert not more_pages([page("a", "b"), page("b", "a")], limit=10, max_pages=5)


def test_paging_stops_at_max_pages() -> None:
    assert not more_pages([page("a"), page("b")], limit=10, max_pages=2)


def test_the_next_offset_is_the_number_of_hits_received() -> None:
    assert next_position(Paging(offset="skip"), [page("a", "b"), page("c")]) == 3


def test_the_next_page_number_counts_from_the_first() -> None:
    assert next_position(Paging(page="p", first_page=0), [page("a"), page("b")]) == 2


def test_paging_names_one_argument() -> None:
    document = config(paging={"offset": "offset", "page": "page"})
    assert "paging names the server's 'offset' or its 'page' argument: one" in (
        config_rejection(document)
    )


def test_the_paging_argument_cannot_also_be_mapped() -> None:
    document = config(paging={"offset": "query"})
    assert "paging's argument is also mapped or fixed" in config_rejection(document)


def test_the_server_must_declare_the_paging_argument() -> None:
    backend = parse_config(config(paging={"offset": "skip"}))
    profile = configured_profile(backend, SERVERS, snapshot_from({"c0a1/a.md": "x\n"}))
    search = profile.binding("search")
    assert search is not None and "skip" in search.required_fields


def test_max_pages_is_bounded() -> None:
    assert "max_pages" in config_rejection(config(paging={"offset": "offset", "max_pages": 50}))


# -- a real paging server ------------------------------------------------------------------------


@pytest.mark.real_process
def test_one_page_of_a_server_holds_nothing_in_scope(tmp_path: Path, tiny_fixture: Fixture) -> None:
    outcome = search(config(), tiny_fixture, tmp_path, limit=2)
    assert shown(outcome) == []


@pytest.mark.real_process
def test_offsets_page_until_the_agents_limit_of_in_scope_hits(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    outcome = search(config(paging={"offset": "offset"}), tiny_fixture, tmp_path, limit=2)
    assert shown(outcome) == [(SOUTH, 4), (NORTH, 4)]
    assert calls(outcome) == 4


@pytest.mark.real_process
def test_paging_ends_at_an_empty_page(tmp_path: Path, tiny_fixture: Fixture) -> None:
    outcome = search(config(paging={"offset": "offset"}), tiny_fixture, tmp_path, limit=10)
    assert shown(outcome) == [(SOUTH, 4), (NORTH, 4)]
    assert calls(outcome) == 5


@pytest.mark.real_process
def test_paging_ends_at_max_pages(tmp_path: Path, tiny_fixture: Fixture) -> None:
    document = config(paging={"offset": "offset", "max_pages": 3})
    outcome = search(document, tiny_fixture, tmp_path, limit=10)
    assert (shown(outcome), calls(outcome)) == ([(SOUTH, 4)], 3)


@pytest.mark.real_process
def test_page_numbers_page_as_offsets_do(tmp_path: Path, tiny_fixture: Fixture) -> None:
    outcome = search(config("page", paging={"page": "page"}), tiny_fixture, tmp_path, limit=2)
    assert shown(outcome) == [(SOUTH, 4), (NORTH, 4)]


@pytest.mark.real_process
def test_a_server_that_ignores_the_offset_is_asked_twice(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    outcome = search(config("stuck", paging={"offset": "offset"}), tiny_fixture, tmp_path, limit=2)
    assert (shown(outcome), calls(outcome)) == ([], 2)
