"""Helpers for backend-config tests: config files written as TOML text, and the CLI in a child
process (processes a run left behind are found with ``tests.support.processes``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp.adapter import McpSession
from agentic.adapters.mcp.backend_config import BackendConfig, parse_backend_config
from agentic.catalog.load import load_catalog
from agentic.contract.errors import ContractError
from agentic.contract.json_access import str_at
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from tests.support.processes import group_gone
from tests.support.tiny_fixture import TASK_A

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "backends"
STDIO_EXAMPLE = EXAMPLES / "notes-stdio" / "backend.toml"
HTTP_EXAMPLE = EXAMPLES / "notes-http" / "backend.toml"
SERVERS = Path(__file__).resolve().parent / "programs"
MISBEHAVING_STDIO = SERVERS / "misbehaving_stdio.py"
FAULTY_HTTP = SERVERS / "faulty_http.py"
TIMEOUT_S = 20.0
SHORT_S = 2.0  # a search's deadline in the fault tests: every fault ends well before it


def toml_key(key: str) -> str:
    """A key as TOML reads it back: bare when it can be, else quoted (a dotted server argument
    name such as ``searches.0.query`` is one key, not a nested table)."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def toml_value(value: Any) -> str:
    """TOML for the values configs use: strings, numbers, lists and inline tables (JSON's
    string escapes are valid TOML basic strings)."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value)


def config_text(document: JsonObject) -> str:
    """Top-level keys first, then one table per dict value (tools.* and results); a None value
    leaves its key out."""
    document = {key: value for key, value in document.items() if value is not None}
    lines = [f"{key} = {toml_value(v)}" for key, v in document.items() if not isinstance(v, dict)]
    for key, value in document.items():
        if not isinstance(value, dict):
            continue
        nested = {k: v for k, v in value.items() if isinstance(v, dict) and "name" in v}
        if nested:
            for name, table in nested.items():
                lines.append(f"[{key}.{name}]")
                lines.extend(f"{k} = {toml_value(v)}" for k, v in table.items())
        else:
            lines.append(f"[{key}]")
            lines.extend(f"{k} = {toml_value(v)}" for k, v in value.items())
    return "\n".join(lines) + "\n"


def stdio_config(mode: str = "ok", **changes: Any) -> JsonObject:
    """A config for the misbehaving stdio server in ``mode``."""
    document: JsonObject = {
        "id": "misbehaving",
        "transport": "stdio",
        "command": [sys.executable, str(MISBEHAVING_STDIO), mode],
        "tools": {
            "search": {"name": "find", "arguments": {"query": "q", "collection": "scope"}},
            "get": {"name": "read", "arguments": {"uri": "doc", "fromLine": "start"}},
        },
        "results": {"shape": "hits"},
    }
    document.update(changes)
    return document


def http_config(mode: str, **changes: Any) -> JsonObject:
    """A config for the faulty HTTP endpoint in ``mode``, started by the kit on a free port."""
    document: JsonObject = {
        "id": "faulty",
        "transport": "http",
        "command": [sys.executable, str(FAULTY_HTTP), "{port}", mode],
        "url": "http://127.0.0.1:{port}/mcp",
        "startup_timeout_s": 10,
        "tools": {"search": {"name": "find", "arguments": {"query": "q", "collection": "scope"}}},
        "results": {"shape": "hits"},
    }
    document.update(changes)
    return document


def write_config(folder: Path, document: JsonObject, name: str = "backend.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(config_text(document), encoding="utf-8")
    return path


def child_env(temp: Path | None = None) -> dict[str, str]:
    """This interpreter's folder first on PATH, so ``python3`` in the examples is this venv's;
    with ``temp``, the run's temporary folders (and so its servers' arguments) live there."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    env = {**os.environ, "PATH": path}
    if temp is not None:
        temp.mkdir(parents=True, exist_ok=True)
        env["TMPDIR"] = str(temp)
    return env


def agentic(
    *args: str, temp: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``agentic ARGS`` in a child process; see ``child_env`` for ``temp``."""
    return subprocess.run(
        [sys.executable, "-m", "agentic", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=child_env(temp),
        check=False,
    )


def parse_config(document: JsonObject) -> BackendConfig:
    """``document`` written as TOML and read back as the kit reads a config file."""
    return parse_backend_config(config_text(document).encode("utf-8"), source="test.toml")


def config_rejection(document: JsonObject) -> str:
    """The one-line message with which the kit refuses ``document`` as a config."""
    with pytest.raises(ContractError) as caught:
        parse_config(document)
    assert caught.value.code == "invalid_backend_config"
    assert "\n" not in caught.value.message
    return caught.value.message


@contextmanager
def attached(
    document: JsonObject, fixture: Fixture, tmp_path: Path, task_id: str = TASK_A
) -> Iterator[McpSession]:
    """A prepared, attached and reset session of the config ``document`` on ``fixture``; the
    server's process group is gone after it."""
    path = write_config(tmp_path / "config", document)
    catalog = load_catalog((path,), plugins=False)
    adapter = catalog.build_adapter(str_at(document, "id"), fixture.snapshot, {})
    prepared = adapter.prepare(fixture.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)
    session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    assert isinstance(session, McpSession)
    try:
        session.reset(fixture.task(task_id), readiness_probe=False, timeout_s=TIMEOUT_S)
        yield session
    finally:
        session.close()
        assert session.pid is None or group_gone(session.pid)


def search_failure(document: JsonObject, fixture: Fixture, tmp_path: Path) -> AdapterCallError:
    """The failure of one search of the config ``document``, within two seconds."""
    with (
        attached(document, fixture, tmp_path) as session,
        pytest.raises(AdapterCallError) as raised,
    ):
        session.call("search", {"query": "incident"}, timeout_s=SHORT_S)
    return raised.value
