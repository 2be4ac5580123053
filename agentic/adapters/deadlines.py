"""Deadlines of adapter work that are the user's settings, with their defaults.

Kept apart from ``base.py`` (the adapter protocol and its pydantic types) so that a command can
declare its options without importing those.
"""

from __future__ import annotations

# The preparation deadline: an index built once and unmeasured, so it may take long (qmd's
# `update` on a loaded two-core machine ran past 30 s). Every command that prepares adapters
# takes it as PREPARE_TIMEOUT_OPTION, and every message of a preparation past it names that.
PREPARE_TIMEOUT_S = 600.0
PREPARE_TIMEOUT_OPTION = "--prepare-timeout-ms"
