"""The attribution table's numbers, on cases small enough to compute by hand: a Wilson
interval of 3/4, and the exact McNemar p-value of a few discordant pairs."""

from __future__ import annotations

from agentic.report.attribution_table import count_rate, discordance_text
from agentic.scoring.attribution import Discordance


def test_a_rate_reads_count_rate_and_its_wilson_interval() -> None:
    # 3/4 at z = 1.96: center 4.9208/7.8415 = 0.6275, half 2.5633/7.8415 = 0.3269.
    assert count_rate(3, 4) == "3/4 0.750 [0.301, 0.954]"


def test_a_rate_over_no_pairs_is_a_dash() -> None:
    assert count_rate(0, 0) == "-"


def test_six_discordant_pairs_one_way_are_beyond_noise() -> None:
    # Two-sided exact: 2 * (1/2)^6 = 0.03125 < 0.05.
    assert discordance_text("success", "capsule", "lexical", Discordance(10, 6, 0)) == (
        "success: 10 matched pairs, 6 only capsule, 0 only lexical, "
        "exact McNemar p=0.0312: beyond noise"
    )


def test_three_discordant_pairs_one_way_are_within_noise() -> None:
    # 2 * (1/2)^3 = 0.25.
    assert discordance_text("evidenceDelivered", "a", "b", Discordance(5, 0, 3)) == (
        "evidence delivered: 5 matched pairs, 0 only a, 3 only b, "
        "exact McNemar p=0.25: within noise"
    )


def test_adapters_with_no_pair_in_common_say_so() -> None:
    assert discordance_text("success", "a", "b", Discordance(0, 0, 0)) == (
        "success: no matched pairs"
    )
