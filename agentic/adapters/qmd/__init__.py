"""qmd (npm ``@tobilu/qmd``) as a real comparator backend, driven over its stdio MCP server.

Two lanes share everything but their retrieval mode:

- ``qmd-lex``: lexical sub-queries only, ``rerank: false``, no model ever loaded (``plan.py``);
- ``qmd``: the full product (query expansion, vectors, reranking) with its three GGUF models
  pinned by name, size and sha256 (``models.py``); it fails closed when they are not cached.

Install and pins: ``install.py`` (Node 22 and qmd from the committed npm lock), ``lockfile.py``
(``locks/qmd.lock.json``: versions, lock hash, the listed MCP tools). Preparation and isolation:
``native.py`` (with ``proc.py`` for bounded one-shot commands). Result parsing: ``results.py``.
The MCP profiles themselves: ``profiles.py``. Benchmark hook: ``timing.py``. Setup and lock
recording: ``agentic.commands.qmd_setup`` (``agentic qmd setup|check|record``).
"""
