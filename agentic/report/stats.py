"""Small, exact statistics for reading a run: how sure a success rate is, and whether two runs
differ beyond noise. Pure functions over counts; nothing here is canonical.

- ``wilson_interval(k, n)``: the Wilson score interval of a success rate k/n (95% by default).
  Unlike the normal approximation it stays inside [0, 1] and is honest at 0/n and n/n, which is
  where small benchmark cohorts live.
- ``paired_difference(worse, better)``: the two-sided exact McNemar test (a sign test on the
  discordant pairs). Only pairs that changed outcome carry information; under "no difference"
  each is equally likely to go either way, so the count one way is Binomial(b + c, 1/2). The
  p-value is computed with exact integers (``fractions.Fraction``), so it is reproducible to the
  last bit on every machine.

Both assume independent units: one scored pair per task. Cold and warm runs of one task, or
several trials of it, are not independent, so callers test each cohort on its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

# The 0.975 quantile of the standard normal distribution (two-sided 95%).
Z_95 = 1.959963984540054
ALPHA = 0.05


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def text(self) -> str:
        return f"[{self.low:.3f}, {self.high:.3f}]"


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> Interval:
    """The Wilson score interval of ``successes`` out of ``trials`` (``trials`` > 0)."""
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, trials > 0: {successes}/{trials}")
    z2 = z * z
    center = (successes + z2 / 2) / (trials + z2)
    half = z * math.sqrt(successes * (trials - successes) / trials + z2 / 4) / (trials + z2)
    # At 0/n (n/n) the true lower (upper) bound is exactly 0 (1); rounding would leave a hair
    # inside or outside the edge, so the edge is set, not computed.
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == trials else min(1.0, center + half)
    return Interval(low, high)


def exact_binomial_two_sided(k: int, n: int) -> float:
    """Two-sided p-value of seeing ``k`` of ``n`` fair coin flips go one way: twice the smaller
    tail, capped at 1 (the distribution is symmetric, so this is the exact test)."""
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n: {k}/{n}")
    if n == 0:
        return 1.0
    smaller = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(smaller + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


@dataclass(frozen=True)
class PairedDifference:
    """Discordant pairs between two runs: ``worse`` went pass -> fail, ``better`` fail -> pass."""

    worse: int
    better: int
    p_value: float

    @property
    def beyond_noise(self) -> bool:
        return self.p_value < ALPHA

    def text(self) -> str:
        verdict = "beyond noise" if self.beyond_noise else "within noise"
        return (
            f"{self.worse} pass->fail, {self.better} fail->pass, "
            f"exact McNemar p={p_text(self.p_value)}: {verdict} (alpha {ALPHA:g})"
        )


def paired_difference(worse: int, better: int) -> PairedDifference:
    if worse < 0 or better < 0:
        raise ValueError(f"counts must be >= 0: {worse}, {better}")
    return PairedDifference(worse, better, exact_binomial_two_sided(worse, worse + better))


def p_text(p: float) -> str:
    """A p-value in 3 significant digits: short, and the same text for the same float."""
    return f"{p:.3g}"
