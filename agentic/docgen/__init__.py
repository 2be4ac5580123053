"""Pages written from the code and the committed reports, never by hand.

They are ``docs/reference.md`` (commands, exit codes, environment variables, error codes),
``docs/modules.md`` (every module, from its docstring) and ``baselines/README.md`` (the
committed lanes' figures). A page generated from its source cannot drift from it. A test
compares each committed page with a fresh rendering. ``python -m agentic.docgen`` rewrites them.
"""
