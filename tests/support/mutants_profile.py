"""A pytest plugin for `nox -s mutants` only (``-p tests.support.mutants_profile``, set in
pyproject.toml's [tool.mutmut]): a cheaper Hypothesis profile for the thousands of mutant runs.

Registered and selected before the root conftest loads its profile (it loads the one
``AGENTIC_HYPOTHESIS_PROFILE`` names). Ten derandomized examples and no shrinking: a mutant is
killed by the first failing example, and a minimal one is of no use to anybody there.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

PROFILE = "agentic-mutants"

settings.register_profile(
    PROFILE,
    max_examples=10,
    deadline=None,
    derandomize=True,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
os.environ["AGENTIC_HYPOTHESIS_PROFILE"] = PROFILE
