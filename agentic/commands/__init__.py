"""Subcommands of the ``agentic`` CLI, one module each."""
