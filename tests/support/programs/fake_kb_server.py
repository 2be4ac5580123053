"""A misbehaving-on-demand MCP server speaking raw JSON-RPC over stdio (no SDK, fast start).

It lists the reference server's tool names (kb_search / kb_get / kb_multi_get) and answers
``tools/call`` from a JSON file of canned results, unless ``--mode`` tells it to misbehave:

  ok              answer from the responses file
  hang            never answer a tools/call
  hang_with_child spawn a grandchild (pid written to --pid-file), then never answer
  crash           exit with status 3 in the middle of a tools/call
  garbage         write a non-JSON line on stdout instead of answering
  bad_envelope    answer with a result that is not a CallToolResult (content is not a list)
  oversized       answer with a text block of --oversize bytes
  noisy           write --noise bytes to stderr before every answer, then answer normally
  schema_missing  list kb_search without its ``collections`` property

Responses file: ``{"<tool>": {"structured": {...}, "isError": false}}``. Inside ``structured``
the string ``"$query"`` is replaced by the call's ``query`` argument and ``"$collections"`` by
its ``collections`` argument, so one canned search answers any query.

``--log FILE`` appends one line per ``tools/call`` (the tool name), so tests can count calls.
``--self-pid-file FILE`` receives the server's own pid at start.

Usage: fake_kb_server.py --mode MODE [--responses FILE] [--pid-file FILE] [--log FILE]
       [--self-pid-file FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

_STRING = {"type": "string"}
_POSITIVE = {"type": "integer", "minimum": 1}
_BOOL = {"type": "boolean"}
_FOREVER_S = 3600


def _tools(mode: str) -> list[dict[str, Any]]:
    search_props: dict[str, Any] = {
        "query": _STRING,
        "collections": {"type": "array", "items": _STRING},
        "limit": _POSITIVE,
    }
    if mode == "schema_missing":
        del search_props["collections"]
    return [
        {"name": "kb_search", "inputSchema": {"type": "object", "properties": search_props}},
        {
            "name": "kb_get",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "uri": _STRING,
                    "fromLine": _POSITIVE,
                    "lineCount": _POSITIVE,
                    "lineNumbers": _BOOL,
                },
            },
        },
        {
            "name": "kb_multi_get",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "uris": {"type": "array", "items": _STRING},
                    "maxBytes": _POSITIVE,
                    "lineNumbers": _BOOL,
                },
            },
        },
    ]


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _result(request_id: Any, result: dict[str, Any]) -> None:
    _send({"jsonrpc": "2.0", "id": request_id, "result": result})


def _fill(value: Any, arguments: dict[str, Any]) -> Any:
    if value == "$query":
        return arguments.get("query")
    if value == "$collections":
        return arguments.get("collections", [])
    if isinstance(value, dict):
        return {key: _fill(item, arguments) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, arguments) for item in value]
    return value


def _misbehave(args: argparse.Namespace) -> None:
    """Modes that never answer: each ends the process or blocks forever."""
    if args.mode == "hang":
        time.sleep(_FOREVER_S)
    if args.mode == "hang_with_child":
        child = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({_FOREVER_S})"])
        with open(args.pid_file, "w", encoding="utf-8") as handle:
            handle.write(str(child.pid))
        time.sleep(_FOREVER_S)
    if args.mode == "crash":
        sys.stdout.write('{"jsonrpc": "2.0", "id": ')
        sys.stdout.flush()
        os._exit(3)
    if args.mode == "garbage":
        sys.stdout.write("this is not JSON-RPC\n")
        sys.stdout.flush()
        time.sleep(_FOREVER_S)


def _call(args: argparse.Namespace, responses: dict[str, Any], request: dict[str, Any]) -> None:
    request_id = request["id"]
    name = request["params"]["name"]
    arguments = request["params"].get("arguments") or {}
    if args.log:
        with open(args.log, "a", encoding="utf-8") as handle:
            handle.write(name + "\n")
    if args.mode == "noisy":
        sys.stderr.write("x" * args.noise)
        sys.stderr.flush()
    _misbehave(args)
    if args.mode == "bad_envelope":
        _result(request_id, {"content": "not a list of blocks"})
        return
    if args.mode == "oversized":
        _result(request_id, {"content": [{"type": "text", "text": "y" * args.oversize}]})
        return
    canned = responses[name]
    structured = _fill(canned["structured"], arguments)
    _result(
        request_id,
        {
            "content": [{"type": "text", "text": json.dumps(structured)}],
            "structuredContent": structured,
            "isError": canned.get("isError", False),
        },
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--responses")
    parser.add_argument("--pid-file")
    parser.add_argument("--log")
    parser.add_argument("--self-pid-file")
    parser.add_argument("--oversize", type=int, default=2_000_000)
    parser.add_argument("--noise", type=int, default=1_000_000)
    args = parser.parse_args()
    if args.self_pid_file:
        with open(args.self_pid_file, "w", encoding="utf-8") as handle:
            handle.write(str(os.getpid()))
    responses: dict[str, Any] = {}
    if args.responses:
        with open(args.responses, encoding="utf-8") as handle:
            responses = json.load(handle)
    for line in sys.stdin:
        request = json.loads(line)
        method = request.get("method")
        if "id" not in request:
            continue  # a notification (initialized, cancelled): nothing to answer
        if method == "initialize":
            _result(
                request["id"],
                {
                    "protocolVersion": request["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "fake-kb", "version": "0"},
                },
            )
        elif method == "tools/list":
            _result(request["id"], {"tools": _tools(args.mode)})
        elif method == "tools/call":
            _call(args, responses, request)
        else:
            error = {"code": -32601, "message": method}
            _send({"jsonrpc": "2.0", "id": request["id"], "error": error})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
