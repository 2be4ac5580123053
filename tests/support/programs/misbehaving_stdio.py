"""A stdio MCP server (public ``mcp`` SDK only) that misbehaves on purpose, for the kit's
backend-config tests. ``python3 misbehaving_stdio.py MODE``; every mode serves ``find`` (and,
unless said otherwise, ``read``) over the tiny test fixture's documents, answering a fixed hit:

- ``ok``: a correct hit (``gno://c0a1/d001.md`` line 3);
- ``foreign``: a hit in a collection outside the task's scope;
- ``file-uri``: a ``file://`` URI;
- ``past-end``: a range past the document's end;
- ``mismatch``: a hit whose text differs from the document (never evidence);
- ``slow``: ``find`` sleeps far past any deadline;
- ``crash``: ``find`` exits the process;
- ``leaky-crash``: ``read`` writes credentials, its user, host and home to stderr, then exits
  (``LEAKED`` lists the credentials; the names are this machine's);
- ``echo-token``: ``read`` writes the bare value of ``$BACKEND_TOKEN`` (no credential shape) to
  stderr, then exits;
- ``no-read``: lists no ``read`` tool;
- ``no-scope``: ``find`` has no ``scope`` argument.
"""

from __future__ import annotations

import os
import pwd
import socket
import sys
import time
from typing import Any

from mcp.server.mcpserver import MCPServer

LEAKED = ("sk-live-0123456789abcdefABCD", "opaque-bearer-value-42", "hunter2-hunter2")


def leak() -> None:
    """What a careless product prints before it dies: secrets and who and where it runs."""
    account = pwd.getpwuid(os.getuid())
    print(
        f"fatal: OPENAI_API_KEY={LEAKED[0]} Authorization: Bearer {LEAKED[1]} "
        f"DB_PASSWORD={LEAKED[2]} user {account.pw_name} on {socket.gethostname()} "
        f"home {account.pw_dir}",
        file=sys.stderr,
        flush=True,
    )


HITS: dict[str, dict[str, Any]] = {
    "ok": {"uri": "gno://c0a1/d001.md", "startLine": 3, "endLine": 3, "text": "Incident: INC-4827"},
    "foreign": {"uri": "gno://c0c3/d001.md", "startLine": 1, "endLine": 1, "text": "# Harbor"},
    "file-uri": {"uri": "file:///etc/passwd", "startLine": 1, "endLine": 1, "text": "root"},
    "past-end": {"uri": "gno://c0a1/d001.md", "startLine": 3, "endLine": 40, "text": "x"},
    "mismatch": {"uri": "gno://c0a1/d001.md", "startLine": 3, "endLine": 3, "text": "INC-0000"},
}


def build(mode: str) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(f"misbehaving-{mode}", log_level="WARNING")

    def find(q: str, scope: list[str] | None = None, n: int = 5) -> dict[str, Any]:
        """Search; the answer depends on the server's mode."""
        if mode == "slow":
            time.sleep(120)
        if mode == "crash":
            os._exit(3)
        return {"results": [HITS.get(mode, HITS["ok"])]}

    def find_unscoped(q: str, n: int = 5) -> dict[str, Any]:
        """Search without a scope argument."""
        return {"results": [HITS["ok"]]}

    server.tool(name="find")(find_unscoped if mode == "no-scope" else find)

    if mode != "no-read":

        @server.tool()
        def read(doc: str, start: int = 1, count: int | None = None) -> dict[str, Any]:
            """Read a range (the fixed hit's document only)."""
            if mode == "leaky-crash":
                leak()
                os._exit(3)
            if mode == "echo-token":
                print(f"cannot open {os.environ['BACKEND_TOKEN']}", file=sys.stderr, flush=True)
                os._exit(3)
            return {"results": [HITS["ok"]]}

    return server


if __name__ == "__main__":
    if sys.argv[1] == "slow-start":
        time.sleep(float(os.environ["SLOW_START_S"]))
    build(sys.argv[1]).run()
