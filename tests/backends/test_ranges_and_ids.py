"""A real server that names places as search engines do, scored by a config alone, under the
sandbox: a line range in one string (``3-4``, ``L3-L4``, ``3:4``), a document id made of two
fields or groups (``{collection}/{file}``), and a read that takes another id than its search
returns (per-tool ``ids``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from agentic.fixture.loader import Fixture
from tests.support.backends import SERVERS, TIMEOUT_S, attached

pytestmark = pytest.mark.real_process

SERVER = SERVERS / "ranged_server.py"
INCIDENT = "gno://c0a1/d001.md"
GREP = r"^(?P<collection>\S+) (?P<file>\S+) (?P<lines>\d+-\d+): (?P<text>.*)$"


def config(form: str = "dash", search: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "id": "ranged",
        "transport": "stdio",
        "command": [sys.executable, str(SERVER), "{corpus}", form],
        "ids": {"form": "path", "drop_extension": True},
        "tools": {
            "search": search
            or {
                "name": "find",
                "arguments": {"query": "q"},
                "results": {
                    "shape": "records",
                    "path": "result.matches",
                    "fields": {"lines": "lines"},
                    "id_template": "{collection}/{file}",
                },
            },
            "get": {
                "name": "fetch",
                "arguments": {"uri": "path"},
                "ids": {"form": "path", "prefix": "{corpus}/"},
                "results": {"shape": "document", "error": "^Error"},
            },
        },
    }


def evidence_lines(outcome: Any) -> list[tuple[str, int]]:
    return [(e.uri, e.startLine) for e in outcome.result.evidence]


@pytest.mark.parametrize("form", ["dash", "prefixed", "colon"])
def test_a_range_in_one_string_claims_its_lines(
    tmp_path: Path, tiny_fixture: Fixture, form: str
) -> None:
    with attached(config(form), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "INC-4827"}, timeout_s=TIMEOUT_S)
    assert evidence_lines(outcome) == [(INCIDENT, 3), (INCIDENT, 4)]


def test_the_agent_sees_the_range_as_start_and_end_lines(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(config(), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "INC-4827"}, timeout_s=TIMEOUT_S)
    assert (
        outcome.result.content
        == f'{{"results":[{{"endLine":4,"startLine":3,"uri":"{INCIDENT}"}}]}}'
    )


def test_an_id_composed_from_text_groups_names_the_document(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    grep = {
        "name": "grep",
        "arguments": {"query": "q"},
        "results": {"shape": "lines", "pattern": GREP, "id_template": "{collection}/{file}"},
    }
    with attached(config(search=grep), tiny_fixture, tmp_path) as session:
        outcome = session.call("search", {"query": "INC-4827"}, timeout_s=TIMEOUT_S)
    assert evidence_lines(outcome) == [(INCIDENT, 3)]


def test_a_read_is_sent_its_own_tools_id_form(tmp_path: Path, tiny_fixture: Fixture) -> None:
    with attached(config(), tiny_fixture, tmp_path) as session:
        outcome = session.call("get", {"uri": INCIDENT}, timeout_s=TIMEOUT_S)
    assert evidence_lines(outcome) == [(INCIDENT, 1), (INCIDENT, 3), (INCIDENT, 4)]
