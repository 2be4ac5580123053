"""agentic: a reproducible, judge-free evaluation kit for agentic retrieval (contract v1.0)."""

__version__ = "0.1.0"
