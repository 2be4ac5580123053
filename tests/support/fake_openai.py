"""A scripted OpenAI-compatible endpoint on 127.0.0.1, for unit tests of the openai-chat agent
beside the tests against llama.cpp's real server (tests/agents/test_openai_server.py).

``FakeEndpoint`` serves ``GET /v1/models`` and ``POST /v1/chat/completions`` from a Python
function, over real HTTP (``http.server`` in a thread), so the agent's client, timeouts and
status handling run exactly as against a real endpoint. ``scripted_reply`` is a deterministic
policy: search with the task's goal first, then answer ``final_answer`` citing the first
evidence span of the last result (or abstain when there is none).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agentic.contract.json_access import as_objects, objects_at, str_at
from agentic.contract.strict_json import JsonObject

MODEL_ID = "fake-model"
Reply = tuple[int, dict[str, str], bytes]
Policy = Callable[[JsonObject], Reply]


def json_reply(value: Any, status: int = 200) -> Reply:
    return status, {"Content-Type": "application/json"}, json.dumps(value).encode("utf-8")


def tool_call_reply(name: str, arguments: str) -> Reply:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
    }
    return json_reply({"id": "x", "choices": [{"index": 0, "message": message}]})


def _last_evidence(body: JsonObject) -> JsonObject | None:
    tool_messages = [m for m in objects_at(body, "messages") if m["role"] == "tool"]
    if not tool_messages:
        return None
    result: JsonObject = json.loads(str_at(tool_messages[-1], "content"))
    evidence = as_objects(result.get("evidence") or [], "evidence")
    return evidence[0] if evidence else None


def scripted_reply(body: JsonObject) -> Reply:
    """Search with the goal, then cite the first span seen for the first claim (or abstain)."""
    if not any(m["role"] == "tool" for m in objects_at(body, "messages")):
        goal = str_at(body, "messages", 1, "content").splitlines()[0].removeprefix("Goal: ")
        return tool_call_reply("search", json.dumps({"query": goal}))
    evidence = _last_evidence(body)
    if evidence is None:
        envelope = {
            "schemaVersion": "1.0",
            "claims": [],
            "gaps": [],
            "abstained": True,
            "stopReason": "abstained",
        }
    else:
        citation = {k: evidence[k] for k in evidence if k != "text"}
        line = str_at(evidence, "text").split("\n")[0]
        task_turn = str_at(body, "messages", 1, "content")
        claim_key = task_turn.split("Claims:\n- ")[1].split(":")[0]
        envelope = {
            "schemaVersion": "1.0",
            "claims": [
                {
                    "claimKey": claim_key,
                    "value": {"type": "string", "value": line[:40]},
                    "citations": [citation],
                }
            ],
            "gaps": [],
            "abstained": False,
            "stopReason": "complete",
        }
    return tool_call_reply("final_answer", json.dumps(envelope))


@dataclass
class FakeEndpoint:
    policy: Policy = scripted_reply
    models: tuple[str, ...] = (MODEL_ID,)
    requests: list[JsonObject] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)  # each request's header, if any
    port: int = 0
    # What ``GET /v1/models`` answers instead of the listing of ``models`` (a hostile reply).
    models_reply: Reply | None = None
    queries: list[str] = field(default_factory=list)  # each request's query string, if any

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _handler(endpoint: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet: the tests read what they need from ``requests``

        def _send(self, reply: Reply) -> None:
            status, headers, data = reply
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _path(self) -> str:
            """The request's path; its query (a key passed as ``?api-key=``) is noted."""
            path, _, query = self.path.partition("?")
            if query:
                endpoint.queries.append(query)
            return path

        def do_GET(self) -> None:
            listing = self._path().rstrip("/") == "/v1/models"
            if listing and endpoint.models_reply is not None:
                self._send(endpoint.models_reply)
            elif listing:
                data = [{"id": m, "object": "model"} for m in endpoint.models]
                self._send(json_reply({"object": "list", "data": data}))
            else:
                self._send(json_reply({"error": "not found"}, 404))

        def do_POST(self) -> None:
            self._path()
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            endpoint.requests.append(body)
            if "Authorization" in self.headers:
                endpoint.authorizations.append(self.headers["Authorization"])
            self._send(endpoint.policy(body))

    return Handler


class _Server(ThreadingHTTPServer):
    # Non-daemon handlers: server_close joins them, so a handler still busy when its test ends
    # (a hung policy) cannot print its error into the next test's captured stderr.
    daemon_threads = False


@contextmanager
def serving(endpoint: FakeEndpoint) -> Iterator[FakeEndpoint]:
    server = _Server(("127.0.0.1", 0), _handler(endpoint))
    endpoint.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, name="fake-openai", daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def config_text(base_url: str, **overrides: Any) -> str:
    """An agent config (TOML) for ``base_url``; ``overrides`` replace or add keys."""
    values: JsonObject = {
        "id": "test-endpoint",
        "kind": "openai-chat",
        "base_url": base_url,
        "model": MODEL_ID,
        "temperature": 0.0,
        "seed": 1,
        "max_output_tokens": 256,
        "timeout_s": 10.0,
        **overrides,
    }
    return "".join(f"{key} = {_toml(value)}\n" for key, value in values.items())


def _toml(value: Any) -> str:
    """A TOML value: JSON's scalars and arrays are TOML's; a table is written inline."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)
