"""The statistics of report.md and ``agentic compare``: Wilson intervals and the exact paired
test, against published values and their defining properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.report.stats import (
    exact_binomial_two_sided,
    paired_difference,
    wilson_interval,
)

counts = st.integers(min_value=1, max_value=400).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
)


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", table I.
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # The bundled fixture's lexical cohort: 8 of 32 tasks.
        (8, 32, 0.1325, 0.4211),
    ],
)
def test_wilson_matches_published_values(
    successes: int, trials: int, low: float, high: float
) -> None:
    interval = wilson_interval(successes, trials)
    assert (round(interval.low, 4), round(interval.high, 4)) == (low, high)


@given(counts)
def test_wilson_contains_the_observed_rate_within_zero_and_one(count: tuple[int, int]) -> None:
    k, n = count
    interval = wilson_interval(k, n)
    assert 0.0 <= interval.low <= k / n <= interval.high <= 1.0


@given(counts)
def test_wilson_is_symmetric_in_successes_and_failures(count: tuple[int, int]) -> None:
    k, n = count
    interval, mirrored = wilson_interval(k, n), wilson_interval(n - k, n)
    assert math.isclose(interval.low, 1 - mirrored.high, abs_tol=1e-12)
    assert math.isclose(interval.high, 1 - mirrored.low, abs_tol=1e-12)


@given(counts)
def test_one_more_success_never_lowers_either_bound(count: tuple[int, int]) -> None:
    k, n = count
    if k == n:
        return
    interval, more = wilson_interval(k, n), wilson_interval(k + 1, n)
    assert more.low >= interval.low and more.high >= interval.high


@given(counts)
def test_four_times_the_data_at_the_same_rate_narrows_the_interval(count: tuple[int, int]) -> None:
    k, n = count
    small, large = wilson_interval(k, n), wilson_interval(4 * k, 4 * n)
    assert large.high - large.low < small.high - small.low


@pytest.mark.parametrize(("successes", "trials"), [(1, 0), (-1, 3), (4, 3)])
def test_wilson_refuses_impossible_counts(successes: int, trials: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, trials)


@pytest.mark.parametrize(
    ("k", "n", "p"),
    [
        (0, 5, 0.0625),  # 2 / 2**5
        (0, 6, 0.03125),  # 2 / 2**6
        (1, 6, 0.21875),  # 2 * (1 + 6) / 2**6
        (1, 7, 0.125),  # 2 * (1 + 7) / 2**7
        (2, 12, 0.03857421875),  # 2 * (1 + 12 + 66) / 2**12
        (3, 6, 1.0),
        (0, 0, 1.0),
        (0, 1, 1.0),
    ],
)
def test_the_exact_binomial_p_value_matches_hand_computed_values(k: int, n: int, p: float) -> None:
    assert exact_binomial_two_sided(k, n) == p


@given(st.integers(0, 60), st.integers(0, 60))
def test_the_paired_test_ignores_which_way_the_pairs_flipped(worse: int, better: int) -> None:
    assert paired_difference(worse, better).p_value == paired_difference(better, worse).p_value


@given(st.integers(0, 60), st.integers(0, 60))
def test_the_p_value_is_a_probability_and_one_for_a_balanced_count(worse: int, better: int) -> None:
    p = paired_difference(worse, better).p_value
    assert 0.0 < p <= 1.0
    if worse == better:
        assert p == 1.0


@given(st.integers(0, 60), st.integers(0, 60))
def test_one_more_flip_the_same_way_never_raises_the_p_value(worse: int, better: int) -> None:
    low, high = sorted((worse, better))
    assert paired_difference(low, high + 1).p_value <= paired_difference(low, high).p_value


def test_one_flipped_task_is_never_beyond_noise() -> None:
    assert not paired_difference(1, 0).beyond_noise


def test_six_flips_one_way_and_none_back_are_beyond_noise() -> None:
    assert paired_difference(6, 0).beyond_noise
    assert not paired_difference(5, 0).beyond_noise
