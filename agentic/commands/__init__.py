"""Subcommands of the ``agentic`` CLI, one module each, and the work only subcommands do:
comparing two reports (``regression``), explaining the oracle ceiling's failures (``ceiling``),
joining a model's chunk packages (``model_parts``) and the options they share (``argtypes``)."""
