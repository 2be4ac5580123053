from agentic.cli import entry

entry()
