"""The data model of an MCP product profile: everything product-specific, as data plus named
pure functions, so one generic adapter (``adapter.py``) can drive any stdio MCP product.

A profile declares:

- identity: adapter id, configuration object (its fingerprint is the receipt's config fp),
  capability declaration and the server name the product must report at ``initialize``;
- preparation: ``prepare_native`` builds what the product needs under the prepared root and
  returns the index fingerprint; ``verify_native`` re-derives that fingerprint at attach time
  (None when the product's index cannot be inspected); ``command`` and ``environment`` derive
  the child process from the prepared root alone, so every attach can start a fresh process;
- the tool mapping: for each normalized tool, the product tool name, the input-schema properties
  it must declare, and the argument mapping (which may reject a call before any MCP traffic);
- the result parser (product result -> normalized ``CallOutcome``) and the readiness probe.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentic.adapters.base import CallOutcome
from agentic.contract.receipt import Capabilities
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusSnapshot

DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024


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
    structured: Any
    text: str
    resources: tuple[RawResource, ...] = ()


@dataclass(frozen=True)
class CallScope:
    """The one task a session currently serves, and the snapshot its evidence is checked on."""

    task: AgentTask
    snapshot: CorpusSnapshot

    @property
    def collections(self) -> tuple[str, ...]:
        return self.task.corpus.collections


# Maps the agent's (schema-valid) arguments to the product's; raises AdapterCallError to reject a
# call before MCP traffic (a foreign collection or URI, an unmappable filter).
ArgumentMapper = Callable[[dict[str, Any], CallScope], dict[str, Any]]


@dataclass(frozen=True)
class ToolBinding:
    normalized: str
    product: str
    required_fields: tuple[str, ...]
    map_arguments: ArgumentMapper


@dataclass(frozen=True)
class ParseInput:
    """Everything a result parser sees for one call."""

    tool: str
    arguments: dict[str, Any]
    product_arguments: dict[str, Any]
    scope: CallScope
    raw: RawResult


@dataclass(frozen=True)
class ReadinessProbe:
    """One real product call whose result is discarded; ``check`` raises when it proves nothing."""

    product_tool: str
    arguments: Callable[[CallScope], dict[str, Any]]
    check: Callable[[RawResult], None]


@dataclass(frozen=True)
class McpProfile:
    adapter_id: str
    config_json: str
    capabilities: Capabilities
    server_name: str
    prepare_native: Callable[[CorpusSnapshot, Path, float], NativeBuild]
    verify_native: Callable[[Path], str] | None
    command: Callable[[Path], tuple[str, ...]]
    environment: Callable[[Path, Path], dict[str, str]]  # (prepared root, run root) -> env
    bindings: tuple[ToolBinding, ...]
    parse: Callable[[ParseInput], CallOutcome]
    readiness: ReadinessProbe
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    close_grace_s: float = 1.0

    @property
    def config(self) -> dict[str, Any]:
        """A fresh copy of the configuration object."""
        value: dict[str, Any] = json.loads(self.config_json)
        return value

    def binding(self, normalized: str) -> ToolBinding | None:
        return next((b for b in self.bindings if b.normalized == normalized), None)
