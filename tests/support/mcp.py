"""Helpers for MCP adapter tests: fake-server profiles and canned results (process-tree checks
are in ``tests.support.processes``)."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from agentic.adapters.lexical_index import index_fingerprint
from agentic.adapters.mcp import reference
from agentic.adapters.mcp.process import isolated_environment
from agentic.adapters.mcp.profile import McpProfile, NativeBuild
from agentic.contract.strict_json import JsonObject
from agentic.fixture.snapshot import CorpusSnapshot

FAKE_SERVER = Path(__file__).resolve().parent / "programs" / "fake_kb_server.py"
TIMEOUT_S = 30.0
# Long enough for a loaded machine to answer a healthy call, short enough to keep hang tests fast.
HANG_TIMEOUT_S = 1.5

TASK_B = "t0000b02"
DOC_B = "gno://c0b2/d001.md"
DOC_B_LINES = [
    "# Atlas launch plan",
    "",
    "## Decision",
    "",
    "Launch date: 2026-09-14",
    "Owner: Priya Raman",
    "Approved by the steering group.",
]
FOREIGN_DOC = "gno://c0a1/d001.md"
FOREIGN_LINES = [
    "# North gateway deployment review",
    "",
    "Incident: INC-4827",
    "Status: resolved after rollback.",
]


def search_hit(uri: str, lines: Sequence[str], score: float = 1.0) -> JsonObject:
    return {
        "uri": uri,
        "title": lines[0].removeprefix("# "),
        "totalLines": len(lines),
        "startLine": 1,
        "endLine": len(lines),
        "text": "\n".join(lines),
        "score": score,
    }


def search_response(*hits: JsonObject) -> JsonObject:
    """A canned kb_search answer that echoes the call's query and collections."""
    return {"structured": {"query": "$query", "searched": "$collections", "results": list(hits)}}


def canned_responses(*hits: JsonObject) -> JsonObject:
    line = DOC_B_LINES[4]
    return {
        "kb_search": search_response(*(hits or (search_hit(DOC_B, DOC_B_LINES),))),
        "kb_get": {
            "structured": {
                "uri": DOC_B,
                "title": "Atlas launch plan",
                "totalLines": len(DOC_B_LINES),
                "startLine": 5,
                "endLine": 5,
                "text": line,
            }
        },
    }


def _no_native(snapshot: CorpusSnapshot, root: Path, timeout_s: float) -> NativeBuild:
    return NativeBuild(index_fingerprint=index_fingerprint(snapshot))


def fake_profile(
    work: Path,
    mode: str,
    *,
    responses: JsonObject | None = None,
    extra: Sequence[str] = (),
    max_message_bytes: int = 64 * 1024,
) -> McpProfile:
    """The mcp-reference profile (mapping and parser) in front of the fake server."""
    work.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, str(FAKE_SERVER), "--mode", mode, *extra]
    if responses is not None:
        path = work / "responses.json"
        path.write_text(json.dumps(responses), encoding="utf-8")
        argv += ["--responses", str(path)]
    command = tuple(argv)
    return dataclasses.replace(
        reference.PROFILE,
        server_name="fake-kb",
        prepare_native=_no_native,
        verify_native=None,
        command=lambda root: command,
        environment=lambda root, run_root: isolated_environment(run_root),
        sandbox_paths=lambda root: (FAKE_SERVER.parent, work),
        max_message_bytes=max_message_bytes,
        close_grace_s=0.2,
    )
