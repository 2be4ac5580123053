"""The reference MCP retrieval server (``agentic serve``)."""
