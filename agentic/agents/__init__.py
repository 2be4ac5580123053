"""Outer agents. They import only ``agentic.contract`` and ``agentic.tools``: an agent can never
reach the oracle, the manifest, paths or adapter internals."""
