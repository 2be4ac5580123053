"""``python -m agentic``: the same command as ``agentic``."""

from agentic.cli import entry

entry()
