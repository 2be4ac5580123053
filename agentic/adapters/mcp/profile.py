"""The data model of an MCP product profile: everything product-specific, as data plus named
pure functions, so one generic adapter (``adapter.py``) can drive any MCP product, over stdio or
streamable HTTP.

A profile declares:

- identity: adapter id, configuration object (its fingerprint is the receipt's config fp),
  capability declaration and the server name the product must report at ``initialize``;
- transport: stdio (the default) or streamable HTTP (``http``);
- preparation: ``prepare_native`` builds what the product needs under the prepared root and
  returns the index fingerprint; ``verify_native`` re-derives that fingerprint at attach time
  (None when the product's index cannot be inspected); ``command`` and ``environment`` derive
  the child process from the prepared root alone, so every attach can start a fresh process;
- the tool mapping: for each normalized tool, the product tool name, the input-schema properties
  it must declare, and the argument mapping (which may reject a call before any MCP traffic);
- the result parser (product result -> normalized ``CallOutcome``) and the readiness probe;
- tools the kit answers itself, never calling the product (``kit_tools``: the snapshot reads of
  a search-only server).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentic.adapters.base import CallOutcome
from agentic.adapters.sandbox import View
from agentic.contract.credentials import NO_SECRETS, Secrets
from agentic.contract.receipt import Capabilities
from agentic.contract.strict_json import JsonObject, JsonValue
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot

DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def no_extra_paths(root: Path) -> tuple[Path, ...]:
    return ()


@dataclass(frozen=True)
class NativeBuild:
    """What ``prepare_native`` produced under the prepared root."""

    index_fingerprint: str
    details: Mapping[str, str | int | float | bool | None] = field(default_factory=dict)


@dataclass(frozen=True)
class RawResource:
    """One embedded text resource of a product result (e.g. a document a read returned)."""

    uri: str
    text: str


@dataclass(frozen=True)
class RawResult:
    """A product's tool result, reduced to what parsers may read."""

    is_error: bool
    structured: JsonValue
    text: str
    resources: tuple[RawResource, ...] = ()


@dataclass(frozen=True)
class CallScope:
    """The one task a session currently serves, the snapshot its evidence is checked on, and the
    input schemas of the product's tools as the attached server listed them."""

    task: AgentTask
    snapshot: CorpusSnapshot
    product_schemas: Mapping[str, Mapping[str, JsonValue]] = field(default_factory=dict)
    # The attached server's prepared root (a server may name documents by absolute paths in it).
    prepared_root: Path | None = None

    @property
    def collections(self) -> tuple[str, ...]:
        return self.task.corpus.collections


# Maps the agent's (schema-valid) arguments to the product's; raises AdapterCallError to reject a
# call before MCP traffic (a foreign collection or URI, an unmappable filter).
ArgumentMapper = Callable[[JsonObject, CallScope], JsonObject]


# A contract tool the kit answers itself (the product is never called): the agent's
# (schema-valid) arguments and the task's scope to the outcome.
KitTool = Callable[[JsonObject, CallScope], CallOutcome]


# The product calls of one contract call as rankings: each ranking's calls in order (one ranking
# per word of a split query, say, each with one call per collection).
Plan = tuple[tuple[JsonObject, ...], ...]
# After a product call's pages so far: the next page's product arguments, or None when done.
# Given the agent's arguments, the scope, the first page's product arguments and the replies.
NextPage = Callable[[JsonObject, CallScope, JsonObject, Sequence[RawResult]], JsonObject | None]


@dataclass(frozen=True)
class FanOut:
    """One contract call answered by several product calls (one per collection, for a server
    that scopes a search to a single collection; one per word, for a server that matches its
    whole query as one string): ``split`` plans them as rankings (None: a single call, as
    ``map_arguments`` maps it); ``merge`` joins the results in that order into one result for
    the parser (None: the parser gets every result, in ``ParseInput.parts`` and, by ranking, in
    ``ParseInput.ranked``); ``next_page`` (None: no paging) has each planned call page on."""

    split: Callable[[JsonObject, CallScope], Plan | None]
    merge: Callable[[Sequence[RawResult]], RawResult] | None
    next_page: NextPage | None = None


@dataclass(frozen=True)
class ToolBinding:
    normalized: str
    product: str
    required_fields: tuple[str, ...]
    map_arguments: ArgumentMapper
    fan_out: FanOut | None = None


@dataclass(frozen=True)
class ParseInput:
    """Everything a result parser sees for one call."""

    tool: str
    arguments: JsonObject
    product_arguments: JsonObject
    scope: CallScope
    raw: RawResult
    # Each product call's result, in order, when a fan-out leaves merging to the parser.
    parts: tuple[RawResult, ...] = ()
    # The same results by ranking, as ``FanOut.split`` planned them (each call's pages after it).
    ranked: tuple[tuple[RawResult, ...], ...] = ()


@dataclass(frozen=True)
class ReadinessProbe:
    """One real product call whose result is discarded; ``check`` raises when it proves nothing."""

    product_tool: str
    arguments: Callable[[CallScope], JsonObject]
    check: Callable[[RawResult], None]


@dataclass(frozen=True)
class ReadyWait:
    """A server that answers before it is ready: after every start, ``product_tool`` is called
    with ``arguments`` every ``interval_s`` until ``not_ready`` says the reply is a real one,
    within the start-up budget."""

    product_tool: str
    arguments: Callable[[Path], JsonObject]  # for a prepared root
    not_ready: Callable[[RawResult], bool]
    interval_s: float


@dataclass(frozen=True)
class HttpEndpoint:
    """A streamable-HTTP product. ``url`` may hold ``{port}``: then the kit picks a free port per
    start and substitutes it in ``url`` and in the command's arguments. ``starts_server``: the kit
    runs the profile's command and waits for the port; otherwise the user runs the server."""

    url: str
    starts_server: bool

    def resolve(self, port: int | None) -> str:
        return self.url if port is None else self.url.replace("{port}", str(port))

    @property
    def needs_port(self) -> bool:
        return "{port}" in self.url


@dataclass(frozen=True)
class McpProfile:
    adapter_id: str
    config_json: str
    capabilities: Capabilities
    server_name: str | None  # None: any server name is accepted (and recorded)
    prepare_native: Callable[[CorpusSnapshot, Path, float], NativeBuild]
    verify_native: Callable[[Path], str] | None
    command: Callable[[Path], tuple[str, ...]]
    environment: Callable[[Path, Path], dict[str, str]]  # (prepared root, run root) -> env
    bindings: tuple[ToolBinding, ...]
    parse: Callable[[ParseInput], CallOutcome]
    readiness: ReadinessProbe
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    close_grace_s: float = 1.0
    http: HttpEndpoint | None = None  # None: stdio
    # What the server needs to see under the sandbox besides the system runtime, its
    # executable's prefix, its prepared root (read-only) and its run root (writable).
    sandbox_paths: Callable[[Path], tuple[Path, ...]] = no_extra_paths
    # How long the product may take from spawn to initialized, and to pass its readiness probe
    # (a backend config's ``startup_timeout_s``); None: the run's operation timeout.
    startup_timeout_s: float | None = None
    # Values no message about this product may carry (a backend config's ``secret_env``).
    secrets: Secrets = NO_SECRETS
    # What under the prepared root the server may change (a writable corpus copy, its home).
    writable_paths: Callable[[Path], tuple[Path, ...]] = no_extra_paths
    wait_ready: ReadyWait | None = None
    # Whether non-JSON lines on a stdio server's stdout are skipped (``ConnectionLimits``).
    skip_stdout_text: bool = False
    # Contract tools the kit answers without the product, by name (none: every call goes to it).
    kit_tools: Mapping[str, KitTool] = field(default_factory=dict)

    def view(self, root: Path, run_root: Path) -> View:
        """What one server process of this profile may see (see ``sandbox.py``)."""
        writable = (*self.writable_paths(root), run_root)
        return View(read_only=(root, *self.sandbox_paths(root)), writable=writable)

    @property
    def config(self) -> JsonObject:
        """A fresh copy of the configuration object."""
        value: JsonObject = json.loads(self.config_json)
        return value

    def binding(self, normalized: str) -> ToolBinding | None:
        return next((b for b in self.bindings if b.normalized == normalized), None)
