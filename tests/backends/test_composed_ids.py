"""Document ids in any form: composed from several record fields or pattern groups with a
template, and a tool whose own ``ids`` differ from the config's ``[ids]``."""

from __future__ import annotations

import json
from typing import Any

from agentic.adapters.mcp.backend_config import BackendConfig, IdMapping
from agentic.adapters.mcp.mapped import MappedReplies
from agentic.adapters.mcp.profile import CallScope, ParseInput, RawResult
from agentic.adapters.mcp.server_ids import ServerIds, document_ids
from tests.support.backends import config_rejection, parse_config
from tests.support.snapshots import make_task, snapshot_from

SNAPSHOT = snapshot_from({"c0a1/area/page.md": "# Retention\n\nKeep records for 30 days.\n"})
RECORDS = {
    "shape": "records",
    "path": "hits",
    "fields": {"line": "n", "text": "t"},
    "id_template": "{repo}/{file.path}",
}
LINE = "Keep records for 30 days."
GREP = r"^(?P<repo>\w+)::(?P<path>\S+):(?P<line>\d+): (?P<text>.*)$"


def config(results: dict[str, Any], **tool: Any) -> dict[str, Any]:
    return {
        "id": "ids",
        "transport": "stdio",
        "command": ["server"],
        "ids": {"form": "path"},
        "tools": {
            "search": {"name": "find", "arguments": {"query": "q"}, "results": results} | tool
        },
    }


def uris(backend: BackendConfig, reply: str, ids: IdMapping | None = None) -> list[str]:
    table = ServerIds(document_ids(ids or backend.ids_of("search"), SNAPSHOT), lambda root: "")
    mapped = MappedReplies(
        config=backend, ids=table, emulated_multi_get=False, tool_ids={"search": table}
    )
    raw = RawResult(is_error=False, structured=None, text=reply)
    scope = CallScope(task=make_task(["c0a1"]), snapshot=SNAPSHOT)
    outcome = mapped.parse(ParseInput("search", {"query": "x"}, {}, scope, raw, ()))
    return [item.uri for item in outcome.result.evidence]


def test_a_template_composes_the_id_from_record_fields() -> None:
    record = {"repo": "c0a1", "file": {"path": "area/page.md"}, "n": 3, "t": LINE}
    reply = json.dumps({"hits": [record]})
    assert uris(parse_config(config(RECORDS)), reply) == ["gno://c0a1/area/page.md"]


def test_a_template_composes_the_id_from_pattern_groups() -> None:
    lines = {"shape": "lines", "pattern": GREP, "id_template": "{repo}/{path}"}
    reply = "c0a1::area/page.md:3: Keep records for 30 days."
    assert uris(parse_config(config(lines)), reply) == ["gno://c0a1/area/page.md"]


def test_a_tools_own_ids_override_the_configs() -> None:
    backend = parse_config(config(RECORDS, ids={"form": "permalink"}))
    record = {"repo": "c0a1", "file": {"path": "area/page"}, "n": 3, "t": LINE}
    reply = json.dumps({"hits": [record]})
    assert backend.ids_of("search").form == "permalink"
    assert uris(backend, reply) == ["gno://c0a1/area/page.md"]


def test_records_naming_both_a_uri_field_and_a_template_are_refused() -> None:
    both = RECORDS | {"fields": {"uri": "file", "line": "n"}}
    assert "fields.uri or id_template: one" in config_rejection(config(both))


def test_a_template_part_the_pattern_does_not_capture_is_refused() -> None:
    lines = {"shape": "lines", "pattern": GREP, "id_template": "{repo}/{file}"}
    assert "no others than" in config_rejection(config(lines))
