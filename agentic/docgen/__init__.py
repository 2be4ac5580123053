"""Pages written from the code and the committed reports, never by hand: ``docs/reference.md``
(commands, exit codes, environment variables, error codes) and ``baselines/README.md`` (the
committed lanes' figures). A page generated from its source cannot drift from it, and a test
compares each committed page with a fresh rendering. ``python -m agentic.docgen`` rewrites them.
"""
