"""The lane report, built and rendered.
It is assembled with its fingerprints (``assemble.py``), then turned into its artifacts and
pages (``report.md``, ``report.html``, the ``agentic compare --html`` page), with the statistics
they show. Its model is ``contract/report.py``. The ranking and generation tiers build their own
reports (``ranking/report.py``, ``generation/report.py``). Writing files is ``output/``'s."""
