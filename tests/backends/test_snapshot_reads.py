"""A search-only server (``reads = "snapshot"``): the kit answers ``get`` and ``multi_get`` from
the verified snapshot as its own reads, never calling the server, so the fixture agent (which
reads after it searches) succeeds where the missing read tool failed it as ``disallowed_tool``.
The server here is real (``search_only_server.py``), run under the sandbox as a lane runs it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp.configured import mapping_statements, unmapped_tools
from agentic.adapters.reads import READ_HASH_REASON
from agentic.contract.strict_json import JsonArray
from agentic.fixture.loader import Fixture
from tests.support.backends import (
    SERVERS,
    TIMEOUT_S,
    agentic,
    attached,
    config_rejection,
    parse_config,
    write_config,
)
from tests.support.tiny_fixture import TASK_A

SERVER = SERVERS / "search_only_server.py"
INCIDENT = "gno://c0a1/d001.md"
GREP = r"^(?P<uri>[^:\n]+\.md):(?P<line>\d+): (?P<text>.*)$"


def search_only(reads: str | None = "snapshot") -> dict[str, Any]:
    return {
        "id": "search-only",
        "transport": "stdio",
        "command": [sys.executable, str(SERVER), "{corpus}", "lines"],
        "ids": {"form": "path"},
        "reads": reads,
        "tools": {
            "search": {
                "name": "search",
                "arguments": {"query": "query"},
                "results": {"shape": "lines", "pattern": GREP, "empty": "^No matches found"},
            }
        },
    }


def test_reads_from_the_snapshot_beside_a_mapped_read_tool_is_refused() -> None:
    document = search_only()
    document["tools"]["get"] = {"name": "search", "arguments": {"uri": "query"}}
    assert "reads = 'snapshot' answers get and multi_get" in config_rejection(document)


def test_the_check_says_the_kit_answers_both_reads() -> None:
    said = "answered by the kit from the verified snapshot (reads = snapshot), never by the server"
    lines = unmapped_tools(parse_config(search_only()))
    assert [line.split(": not mapped: ")[0] for line in lines] == ["get", "multi_get"]
    assert all(said in line for line in lines)


def test_the_report_states_the_kits_reads() -> None:
    statement = mapping_statements(parse_config(search_only()))["reads"]
    assert statement.startswith("get and multi_get answered by the kit from the verified snapshot")


@pytest.mark.real_process
def test_a_get_is_the_snapshots_lines_with_a_kit_reads_provenance(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with attached(search_only(), tiny_fixture, tmp_path) as session:
        outcome = session.call("get", {"uri": INCIDENT}, timeout_s=TIMEOUT_S)
    evidence = outcome.result.evidence
    assert [(e.uri, e.startLine) for e in evidence] == [(INCIDENT, 1), (INCIDENT, 3), (INCIDENT, 4)]
    assert {e.backendHashUnavailableReason for e in evidence} == {READ_HASH_REASON}
    assert outcome.result.content == (
        "# North gateway deployment review\nIncident: INC-4827\nStatus: resolved after rollback."
    )


@pytest.mark.real_process
def test_a_kit_read_is_noted_and_charges_the_server_no_invocation(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    uris: JsonArray = [INCIDENT, "gno://c0a1/d002.md"]
    with attached(search_only(), tiny_fixture, tmp_path) as session:
        outcome = session.call("multi_get", {"uris": uris, "maxBytes": 60}, timeout_s=TIMEOUT_S)
    assert outcome.backend_invocations == 0
    assert outcome.diagnostics == (
        "kit read (reads = snapshot): multi_get of 2 document(s) from the snapshot",
    )
    assert [e.startLine for e in outcome.result.evidence] == [1, 3]  # maxBytes cut as contracted


@pytest.mark.real_process
def test_a_kit_read_outside_the_tasks_collections_is_a_scope_violation(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    with (
        attached(search_only(), tiny_fixture, tmp_path) as session,
        pytest.raises(AdapterCallError) as raised,
    ):
        session.call("get", {"uri": "gno://c0c3/d001.md"}, timeout_s=TIMEOUT_S)
    assert raised.value.code == "task_scope_violation"


def _lane(tmp_path: Path, fixture_dir: Path, document: dict[str, Any]) -> dict[str, Any]:
    config = write_config(tmp_path / "config", document)
    out = tmp_path / "out"
    done = agentic(
        "run", "--fixture", str(fixture_dir), "--backend", str(config), "--adapter",
        "search-only", "--task", TASK_A, "--lifecycle", "cold", "--promote", "none",
        "--out", str(out), "--quiet", temp=tmp_path / "tmp",
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return report


@pytest.mark.real_process
def test_without_snapshot_reads_the_fixture_agent_fails_on_the_missing_read(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    report = _lane(tmp_path, tiny_fixture_dir, search_only(reads=None))
    assert [r["canonical"]["failure"]["code"] for r in report["receipts"]] == ["disallowed_tool"]


@pytest.mark.real_process
def test_with_snapshot_reads_the_fixture_agent_succeeds(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    report = _lane(tmp_path, tiny_fixture_dir, search_only())
    assert [s["score"]["success"] for s in report["scores"]] == [1]
    assert report["receipts"][0]["observations"]["diagnostics"][-1] == (
        "kit read (reads = snapshot): get of 1 document(s) from the snapshot"
    )
