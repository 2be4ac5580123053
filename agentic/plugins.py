"""The public plugin API: everything an adapter or agent package imports from the kit.

A plugin registers through the entry-point groups ``agentic.adapters`` (an :class:`AdapterEntry`,
or a zero-argument callable returning one) and ``agentic.agents`` (an :class:`AgentEntry`, or a
callable returning one); ``docs/plugins.md`` walks through a complete one.

What is stable: the names in ``__all__``, imported from this module, with the fields, signatures
and behaviour their own docstrings describe, plus the two entry-point groups and the frozen tool
contract (``agentic tools --fingerprint``). Changing any of them is a breaking change of the kit.
What is not: where these names are defined (module paths under ``agentic`` are internal and do
move) and everything not listed here. Import from ``agentic.plugins``, never from the module a
name happens to live in today.

Importing this module loads the contract models, the lexical index and the protocols, and no
adapter or agent implementation and no optional dependency (MCP, llama.cpp, HTTP clients): a
plugin's entry module costs the kit's start-up little, and nothing at all until a command loads
the catalog.
"""

from __future__ import annotations

from agentic.adapters.base import (
    Adapter,
    AdapterSession,
    CallOutcome,
    PreparedIndex,
    ResetInfo,
    check_tool_call,
    declared_capabilities,
    ok_outcome,
)
from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.indexed import IndexedAdapter, SearchContext, SearchFn, check_deadline
from agentic.adapters.lexical_index import Hit, LexicalIndex
from agentic.adapters.reads import (
    TaskScope,
    line_evidence,
    nonblank_evidence,
    read_content,
    scope_violation,
    snapshot_file,
    source_outcome,
)
from agentic.agents.base import (
    Agent,
    AgentSession,
    AgentStepError,
    KeepsStepDeadline,
    ReportsNotes,
    TokenCount,
)
from agentic.catalog.entries import (
    AdapterEntry,
    AdapterInputs,
    AgentContext,
    AgentEntry,
    OpenedAgent,
)
from agentic.contract.canonical import canonical_text, fingerprint
from agentic.contract.errors import ContractError, FailureClass
from agentic.contract.receipt import Capabilities, CapabilityState, ToolEvidence, ToolResult
from agentic.contract.report import AgentEndpoint, Trial
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonObject, JsonValue
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusFile, CorpusSnapshot
from agentic.tools import TOOL_NAMES, tool_definitions

__all__ = [
    "TOOL_NAMES",
    "Adapter",
    "AdapterCallError",
    "AdapterEntry",
    "AdapterError",
    "AdapterInputs",
    "AdapterSession",
    "Agent",
    "AgentContext",
    "AgentEndpoint",
    "AgentEntry",
    "AgentSession",
    "AgentStepError",
    "AgentTask",
    "CallOutcome",
    "Capabilities",
    "CapabilityState",
    "ContractError",
    "CorpusFile",
    "CorpusSnapshot",
    "FailureClass",
    "Hit",
    "IndexedAdapter",
    "JsonObject",
    "JsonValue",
    "KeepsStepDeadline",
    "LexicalIndex",
    "OpenedAgent",
    "PreparedIndex",
    "ReportsNotes",
    "ResetInfo",
    "SearchContext",
    "SearchFn",
    "TaskScope",
    "TokenCount",
    "ToolEvidence",
    "ToolResult",
    "Trial",
    "VisibleCall",
    "canonical_text",
    "check_deadline",
    "check_tool_call",
    "declared_capabilities",
    "fingerprint",
    "line_evidence",
    "nonblank_evidence",
    "ok_outcome",
    "read_content",
    "scope_violation",
    "snapshot_file",
    "source_outcome",
    "tool_definitions",
]
