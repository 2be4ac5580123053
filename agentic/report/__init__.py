"""The lane report built and rendered: assembled with its fingerprints (``assemble.py``), turned
into its artifacts and pages (``report.md``, ``report.html``, the ``agentic compare --html``
page), with the statistics they show. Its model is ``contract/report.py``; the ranking and
generation tiers build their own reports (``ranking/report.py``, ``generation/report.py``);
writing files is ``output/``'s."""
