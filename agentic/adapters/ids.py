"""The built-in adapters' ids, each written once.

An adapter's module (its ``ADAPTER_ID``, which its configuration and so its config fingerprint
hold), its MCP profile (``mcp/profiles.PROFILES`` is keyed by the profile's id) and its catalog
entry (``catalog/builtins.py``) all read the id from here. This module imports nothing, so the
catalog names every built-in without importing one: a run pays only for the adapters it uses.
"""

from __future__ import annotations

CAPSULE = "capsule"
LEXICAL = "lexical"
ORACLE = "oracle"
MCP_REFERENCE = "mcp-reference"
GNO_MCP = "gno-mcp"
QMD_LEX = "qmd-lex"
QMD = "qmd"
