"""The kit's own reads for a search-only server (``reads = "snapshot"`` in its config).

Many search engines have no read tool. Left unmapped, ``get`` and ``multi_get`` are refused as
``disallowed_tool``, and an agent that reads after it searches fails on the engine's missing
read rather than on its search. With ``reads = "snapshot"`` the kit answers both from the
verified snapshot, exactly as the in-process adapters do (``agentic/adapters/reads.py``): the
same lines, content, hashes and provenance, the same ``maxBytes`` cut, so the same bytes are
charged to the agent's budget. The server is never called.

Such a read is the kit's, not the server's: it reports no backend invocations (the server did
no work) and each call's diagnostics say so, with how many documents it read
(``KIT_READ_NOTE``); a receipt's diagnostics thus count the kit's reads of its pair.
"""

from __future__ import annotations

from dataclasses import replace

from agentic.adapters import reads
from agentic.adapters.base import CallOutcome
from agentic.adapters.mcp.profile import CallScope, KitTool
from agentic.contract.json_access import as_array
from agentic.contract.strict_json import JsonObject

# One note per read the kit answered, in the receipt's diagnostics.
KIT_READ_NOTE = "kit read (reads = snapshot): {tool} of {count} document(s) from the snapshot"


def _read(tool: str) -> KitTool:
    serve = reads.get if tool == "get" else reads.multi_get

    def read(arguments: JsonObject, scope: CallScope) -> CallOutcome:
        task_scope = reads.TaskScope(task_id=scope.task.taskId, collections=scope.collections)
        # No deadline: the snapshot is in memory, and the read is bounded by its documents.
        outcome = serve(reads.SnapshotReader(scope.snapshot), task_scope, arguments, None)
        count = 1 if tool == "get" else len(as_array(arguments["uris"], "uris"))
        note = KIT_READ_NOTE.format(tool=tool, count=count)
        # The server did no work for it: no backend invocations are charged to it.
        return replace(outcome, backend_invocations=0, diagnostics=(note,))

    return read


def snapshot_reads() -> dict[str, KitTool]:
    """``get`` and ``multi_get``, answered from the snapshot."""
    return {tool: _read(tool) for tool in ("get", "multi_get")}
