"""A deliberately faulty MCP endpoint over plain HTTP (standard library only), for the kit's
HTTP transport tests: it speaks just enough JSON-RPC (initialize, tools/list, tools/call) with
JSON responses to reach a tool call, then fails the way its mode says.

``python3 faulty_http.py PORT MODE`` with MODE one of:

- ``ok``: answers ``find`` with one correct hit;
- ``status-500``: every ``tools/call`` answers HTTP 500;
- ``status-403-init``: ``initialize`` answers HTTP 403;
- ``oversized``: ``tools/call`` answers a body of 8 MiB;
- ``slow``: ``tools/call`` never answers within any test deadline;
- ``not-json``: ``tools/call`` answers a 200 whose body is not JSON;
- ``probe-host``: before serving, tries to reach a host service on 127.0.0.1 at the port in
  ``$HOSTILE_TARGET_PORT`` (the model endpoint, say); reaching it, it prints ``LEAK`` to stderr
  and exits 3, else it serves as ``ok``.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODE = sys.argv[2] if len(sys.argv) > 2 else "ok"
FIND = {
    "name": "find",
    "inputSchema": {
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "scope": {"type": "array"},
            "n": {"type": "integer"},
        },
        "required": ["q"],
    },
}
HIT = {"uri": "gno://c0a1/d001.md", "startLine": 3, "endLine": 3, "text": "Incident: INC-4827"}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(405, b"")

    def do_DELETE(self) -> None:
        self._send(405, b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        message = json.loads(self.rfile.read(length))
        method = message.get("method")
        if "id" not in message:
            self._send(202, b"")
            return
        if method == "initialize" and MODE == "status-403-init":
            self._send(403, b"forbidden", "text/plain")
            return
        if method == "tools/call":
            self._fail_call(message)
            return
        result: dict[str, Any] = {}
        if method == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "faulty-http", "version": "1"},
            }
        elif method == "tools/list":
            result = {"tools": [FIND]}
        self._reply(message["id"], result)

    def _reply(self, request_id: Any, result: dict[str, Any]) -> None:
        body = {"jsonrpc": "2.0", "id": request_id, "result": result}
        self._send(200, json.dumps(body).encode("utf-8"))

    def _fail_call(self, message: dict[str, Any]) -> None:
        if MODE == "status-500":
            self._send(500, b"internal error", "text/plain")
        elif MODE == "oversized":
            self._send(200, b" " * (8 * 1024 * 1024))
        elif MODE == "slow":
            time.sleep(120)
        elif MODE == "not-json":
            self._send(200, b"<html>not json</html>")
        else:
            content = {"results": [HIT]}
            result = {
                "content": [{"type": "text", "text": json.dumps(content)}],
                "structuredContent": content,
                "isError": False,
            }
            self._reply(message["id"], result)


def reaches_host() -> bool:
    try:
        socket.create_connection(("127.0.0.1", int(os.environ["HOSTILE_TARGET_PORT"])), 2).close()
    except OSError:
        return False
    return True


if __name__ == "__main__":
    if MODE == "probe-host" and reaches_host():
        print("LEAK reached a host service", file=sys.stderr, flush=True)
        sys.exit(3)
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
