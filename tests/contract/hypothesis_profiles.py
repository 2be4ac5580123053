"""Hypothesis profiles of the contract and adapter suites.

``agentic-fast`` (the default) is derandomized, so a CI run explores the same examples every
time and stays within the suite's time budget on a shared machine. ``agentic-thorough`` explores
randomly and much more; select it with ``AGENTIC_HYPOTHESIS_PROFILE=agentic-thorough``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

FAST = "agentic-fast"
THOROUGH = "agentic-thorough"

settings.register_profile(
    FAST,
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(THOROUGH, max_examples=1000, deadline=None)


def load_selected_profile() -> None:
    settings.load_profile(os.environ.get("AGENTIC_HYPOTHESIS_PROFILE", FAST))
