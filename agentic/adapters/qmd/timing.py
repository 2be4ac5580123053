"""Benchmark hook: qmd's cold start, measured the way a cold trial pays it.

``cold_start_seconds`` times one fresh ``qmd mcp`` process on a byte-identical clone of a prepared
index, from spawn to the first lexical search result (the clone itself is made before the clock
starts). ``nox -s bench`` sets it beside ``mcp-reference``'s own hook.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from agentic.adapters.mcp.client import ConnectionLimits, first_result_seconds
from agentic.adapters.mcp.process import ChildSpec
from agentic.adapters.qmd import native
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject


def cold_start_seconds(
    root: Path, *, query: str, collection: str, timeout_s: float = 60.0
) -> float:
    """Seconds from spawning ``qmd mcp`` on ``root`` (a prepared qmd root) to its first result
    for the lexical ``query`` in the fixture ``collection``."""
    with tempfile.TemporaryDirectory(prefix="agentic-qmd-cold-") as run_dir:
        run_root = Path(run_dir)
        settings = native.RunSettings.load(root)
        env = native.run_environment(root, run_root)
        spec = ChildSpec(settings.argv("mcp"), env, run_root, native.run_view(root, run_root))
        arguments: JsonObject = {
            "searches": [{"type": "lex", "query": query}],
            "collections": [native.collection_name(collection)],
            "rerank": False,
            "limit": 1,
        }
        limits = ConnectionLimits(max_message_bytes=1 << 22)
        elapsed, result = first_result_seconds(
            spec, limits, "query", arguments, timeout_s=timeout_s
        )
    if result.is_error:
        raise ContractError("qmd_preflight_failed", "the cold-start search failed")
    return elapsed
