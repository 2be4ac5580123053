"""Helpers shared by the test folders, one module per concept.

Fixtures every folder uses (the Hypothesis profile, ``tiny_fixture_dir``, ``tiny_fixture``,
``tiny_fixture_with_goldens``) are in ``tests/conftest.py``; a folder's own ``conftest.py`` holds
only fixtures local to that folder. Programs the tests start as child processes are under
``programs/``.
"""
