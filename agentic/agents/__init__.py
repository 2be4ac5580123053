"""The agents that ask: the fixture agent, the local model and an OpenAI-compatible endpoint.
They import only ``agentic.contract`` and ``agentic.tools``: an agent can never
reach the oracle, the manifest, paths or adapter internals."""
