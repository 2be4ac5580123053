"""The MCP stdio transport and lifecycle of the reference server: JSON-RPC 2.0 messages, one per
line, answered in order.

The server needs four methods of the protocol, and this module speaks exactly those: the
``initialize`` handshake (the client's version when it is one of ``HANDSHAKE_VERSIONS``, else the
newest), ``ping``, ``tools/list`` and ``tools/call``. Notifications (``notifications/initialized``,
a cancellation) need no answer and get none; any other method is JSON-RPC's ``-32601``, a line
that is not a JSON-RPC request ``-32700`` or ``-32600``. It is written here rather than taken
from the MCP SDK because the ``mcp-reference`` adapter starts the server for every cold pair:
importing the SDK's server took about 0.6 s of a quiet machine's 0.7 s start-up, and this module
imports nothing but the standard library. The kit's client stays the SDK's
(``adapters/mcp/client.py``), and the conformance tests hold this server to the SDK server's
answers.

Stdout carries the protocol alone: its descriptor is kept for the replies and descriptor 1 is
pointed at stderr while the server runs, so a stray print cannot corrupt a message.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import BinaryIO

from agentic.contract.errors import AgenticError
from agentic.contract.strict_json import JsonObject, JsonValue

# Revisions the initialize handshake negotiates, oldest first (the SDK's list, v2).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
JSONRPC = "2.0"
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

# A tool call's arguments -> its result (``content``, ``structuredContent``, ``isError``).
CallTool = Callable[[str, JsonObject], JsonObject]


@dataclass(frozen=True)
class ServerInfo:
    """What the handshake says of the server, and what it serves."""

    name: str
    version: str
    tools: tuple[JsonObject, ...]  # each tool's name, description and inputSchema
    call_tool: CallTool


class _RequestError(AgenticError):
    """A request the server refuses: JSON-RPC's error object, sent back in place of a result."""

    def __init__(self, code: int, message: str, data: JsonValue = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def negotiated_version(params: Mapping[str, JsonValue]) -> str:
    requested = params.get("protocolVersion")
    return requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def _initialize(server: ServerInfo, params: JsonObject) -> JsonObject:
    return {
        "protocolVersion": negotiated_version(params),
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": server.name, "version": server.version},
    }


def _call(server: ServerInfo, params: JsonObject) -> JsonObject:
    name = params.get("name")
    arguments = params.get("arguments", {})
    if not isinstance(name, str):
        raise _RequestError(INVALID_PARAMS, "Invalid params", "tools/call needs a tool name")
    if not isinstance(arguments, dict):
        raise _RequestError(INVALID_PARAMS, "Invalid params", "arguments must be an object")
    return server.call_tool(name, arguments)


def answer(server: ServerInfo, method: str, params: JsonObject) -> JsonObject:
    """The result of one request, or ``_RequestError``."""
    if method == "initialize":
        return _initialize(server, params)
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": list(server.tools)}
    if method == "tools/call":
        return _call(server, params)
    raise _RequestError(METHOD_NOT_FOUND, "Method not found", method)


def _error(identity: JsonValue, error: _RequestError) -> JsonObject:
    body: JsonObject = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": JSONRPC, "id": identity, "error": body}


def reply(server: ServerInfo, line: bytes) -> JsonObject | None:
    """The message that answers one line of input; None for a notification."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return _error(None, _RequestError(PARSE_ERROR, "Parse error"))
    if not isinstance(message, dict) or message.get("jsonrpc") != JSONRPC:
        return _error(None, _RequestError(INVALID_REQUEST, "Invalid Request"))
    method, identity = message.get("method"), message.get("id")
    if "id" not in message:
        return None  # a notification: nothing to answer
    params = message.get("params", {})
    if not isinstance(method, str) or not isinstance(params, dict):
        return _error(identity, _RequestError(INVALID_REQUEST, "Invalid Request"))
    try:
        result = answer(server, method, params)
    except _RequestError as exc:
        return _error(identity, exc)
    return {"jsonrpc": JSONRPC, "id": identity, "result": result}


def _lines(stream: BinaryIO) -> Iterator[bytes]:
    for line in stream:
        if line.strip():
            yield line


def serve_stdio(server: ServerInfo) -> None:
    """Answer the requests on stdin, in order, until it closes."""
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        for line in _lines(sys.stdin.buffer):
            message = reply(server, line)
            if message is None:
                continue
            text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
            protocol_out.write(text.encode("utf-8") + b"\n")
            protocol_out.flush()
    finally:
        protocol_out.close()
