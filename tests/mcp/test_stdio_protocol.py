"""The reference server's stdio protocol (``server/stdio.py``) and its reading of arguments: the
JSON-RPC answers the SDK's servers give, and pydantic's lax mode, which the SDK's servers read a
function's parameters with."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from agentic.adapters.lexical_index import INDEX_FILE, build_index
from agentic.contract.strict_json import JsonObject, JsonValue
from agentic.fixture.loader import Fixture
from agentic.server import app
from agentic.server.stdio import HANDSHAKE_VERSIONS, ServerInfo, reply

SERVER = ServerInfo("test", "1", ({"name": "echo"},), lambda name, arguments: {"echo": arguments})


def ask(message: JsonObject) -> JsonObject | None:
    return reply(SERVER, json.dumps(message).encode())


def initialize(version: str) -> JsonObject | None:
    params: JsonObject = {"protocolVersion": version, "capabilities": {}, "clientInfo": {}}
    return ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_the_handshake_takes_a_version_it_knows(version: str) -> None:
    answer = initialize(version)
    assert answer is not None
    assert answer["result"] == {
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "test", "version": "1"},
    }


def test_the_handshake_offers_the_newest_version_for_one_it_does_not_know() -> None:
    answer = initialize("2099-01-01")
    assert answer is not None
    result = answer["result"]
    assert isinstance(result, dict)
    assert result["protocolVersion"] == HANDSHAKE_VERSIONS[-1]


def test_a_notification_gets_no_answer() -> None:
    assert ask({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None


def test_tools_are_listed_and_called() -> None:
    listed = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    called = ask(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"a": 1}},
        }
    )
    assert listed == {"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "echo"}]}}
    assert called == {"jsonrpc": "2.0", "id": 3, "result": {"echo": {"a": 1}}}


def test_an_unknown_method_is_method_not_found() -> None:
    answer = ask({"jsonrpc": "2.0", "id": 4, "method": "resources/list"})
    assert answer == {
        "jsonrpc": "2.0",
        "id": 4,
        "error": {"code": -32601, "message": "Method not found", "data": "resources/list"},
    }


def test_a_line_that_is_not_json_is_a_parse_error() -> None:
    answer = reply(SERVER, b"{not json\n")
    assert answer is not None
    assert (answer["id"], answer["error"]) == (None, {"code": -32700, "message": "Parse error"})


@pytest.mark.parametrize(
    "message", [[], {"id": 5, "method": "ping"}, {"jsonrpc": "2.0", "id": 5, "method": 7}]
)
def test_a_message_that_is_not_a_request_is_an_invalid_request(message: JsonValue) -> None:
    answer = reply(SERVER, json.dumps(message).encode())
    assert answer is not None
    error = answer["error"]
    assert isinstance(error, dict)
    assert error["code"] == -32600


def test_a_call_whose_arguments_are_not_an_object_is_invalid_params() -> None:
    params: JsonObject = {"name": "echo", "arguments": [1]}
    answer = ask({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": params})
    assert answer is not None
    error = answer["error"]
    assert isinstance(error, dict)
    assert error["code"] == -32602


def test_the_server_answers_in_order_and_a_stray_print_never_reaches_the_protocol(
    tiny_fixture: Fixture, tmp_path: Path
) -> None:
    build_index(tiny_fixture.snapshot, tmp_path / INDEX_FILE)
    # A search that prints while the server serves: the print must land on stderr.
    script = (
        "import sys\n"
        "from agentic.server import app\n"
        "from agentic.server.__main__ import main\n"
        "search = app.KnowledgeBase.search\n"
        "def noisy(self, *args):\n"
        "    print('noise while serving')\n"
        "    return search(self, *args)\n"
        "app.KnowledgeBase.search = noisy\n"
        "raise SystemExit(main(['--index', sys.argv[1]]))\n"
    )
    search: JsonObject = {"name": "kb_search", "arguments": {"query": "gateway"}}
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": search},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    ]
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    assert answers[1]["result"]["isError"] is False
    assert answers[2]["result"]["tools"] == list(app.TOOLS)
    assert "noise while serving" in done.stderr


# --- arguments, as pydantic's lax mode reads them --------------------------------------------

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["0", "1", "12", " 7 ", "yes", "No", "true", "off", "t", "x", "1.5", ""]),
    st.text(max_size=4),
)


def _same_as_pydantic(read: Callable[[JsonValue, str], Any], kind: Any, value: JsonValue) -> None:
    try:
        expected = TypeAdapter(kind).validate_python(value)
    except ValidationError:
        with pytest.raises(app.ArgumentError):
            read(value, "x")
        return
    assert read(value, "x") == expected
    assert type(read(value, "x")) is type(expected)


@given(JSON_SCALARS)
def test_an_integer_argument_reads_as_pydantic_reads_it(value: JsonValue) -> None:
    _same_as_pydantic(app._integer, int, value)


@given(JSON_SCALARS)
def test_a_boolean_argument_reads_as_pydantic_reads_it(value: JsonValue) -> None:
    _same_as_pydantic(app._boolean, bool, value)


@given(JSON_SCALARS)
def test_a_string_argument_reads_as_pydantic_reads_it(value: JsonValue) -> None:
    _same_as_pydantic(app._string, str, value)
