"""report.html's charts: each is well-formed SVG carrying its title and every value it plots, text
is escaped, the same series draw the same bytes, and building the page imports no plotting
library."""

from __future__ import annotations

import statistics
import xml.etree.ElementTree as ET

import pytest

from agentic.contract.report import BenchmarkReport
from agentic.contract.schemas import parse_and_load
from agentic.fixture.loader import load_fixture
from agentic.report.charts import (
    RateBar,
    box_stats,
    distributions,
    grouped_rates,
    nice_ticks,
    rate_bars,
    value_text,
)
from agentic.report.html import render_html
from agentic.resources import default_fixture_dir, repo_root
from agentic.scoring.task_facts import task_facts
from tests.support.page_probe import modules_after_writing_a_page

SVG = "{http://www.w3.org/2000/svg}"
PLOTTING = ("matplotlib", "plotly", "bokeh", "altair", "seaborn", "pygal", "pylab")
BARS = (
    RateBar("capsule cold", 31 / 32, 0.843, 0.994, "31/32"),
    RateBar("lexical warm", 8 / 32, 0.133, 0.421, "8/32"),
    RateBar("empty", 0.0, 0.0, 0.0, "0 scored"),
)
GROUPS = ("ambiguity", "temporal")
SERIES: dict[str, list[float | None]] = {"capsule": [1.0, 0.75], "lexical": [0.25, None]}
COSTS = {"capsule": [1.0, 1.0, 1.0, 1.0], "lexical": [2.0, 2.0, 2.0, 1.0, 2.0, 9.0]}


def parsed(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # raises on anything that is not well-formed XML
    assert root.tag == f"{SVG}svg"
    return root


def title(root: ET.Element) -> str:
    element = root.find(f"{SVG}title")
    assert element is not None
    return element.text or ""


def all_text(root: ET.Element) -> str:
    """Every text of the chart: visible labels, the description, each mark's tooltip."""
    return " ".join("".join(element.itertext()) for element in root.iter())


def tooltips(root: ET.Element, tag: str) -> list[str]:
    found = (element.find(f"{SVG}title") for element in root.iter(f"{SVG}{tag}"))
    return [element.text or "" for element in found if element is not None]


def baseline_report() -> BenchmarkReport:
    root = repo_root()
    assert root is not None
    path = root / "baselines" / "fixture-agent" / "report.json"
    return parse_and_load("benchmark-report", path.read_bytes(), source=str(path))


# --- one chart at a time --------------------------------------------------------------------


def test_rate_bars_are_svg_with_their_title_counts_and_intervals() -> None:
    root = parsed(rate_bars(BARS, title="Success by cohort"))
    assert title(root) == "Success by cohort"
    text = all_text(root)
    for bar in BARS:
        assert bar.label in text
        assert bar.text in text
    assert "0.969" in text and "[0.843, 0.994]" in text
    assert "success rate (bars: 95% Wilson interval)" in text
    assert len(tooltips(root, "rect")) == len(BARS)


def test_grouped_rates_are_svg_with_their_title_each_value_and_a_legend() -> None:
    root = parsed(grouped_rates(GROUPS, SERIES, title="Success by category"))
    assert title(root) == "Success by category"
    text = all_text(root)
    for word in ("ambiguity", "temporal", "capsule", "lexical", "success rate"):
        assert word in text
    tips = tooltips(root, "rect")
    assert tips == [
        "ambiguity, capsule: 1.000",
        "ambiguity, lexical: 0.250",
        "temporal, capsule: 0.750",
    ]
    assert "temporal: capsule 0.750, lexical no scored pair" in text


def test_distributions_are_svg_with_their_title_and_each_boxs_numbers() -> None:
    root = parsed(distributions(COSTS, title="Agent calls per pair", unit="calls"))
    assert title(root) == "Agent calls per pair"
    text = all_text(root)
    assert "calls" in text
    capsule_tip, lexical_tip = tooltips(root, "rect")
    assert capsule_tip.startswith("capsule: 4 pairs, median 1, mean 1,")
    assert lexical_tip.startswith("lexical: 6 pairs, median 2, mean 3,")
    assert "min 1, max 9, 2 beyond the whiskers" in lexical_tip
    assert capsule_tip in text and lexical_tip in text  # in the description too
    # one circle per value beyond the whiskers (1 and 9), one more in the legend
    assert len(list(root.iter(f"{SVG}circle"))) == 3


def test_a_chart_without_pairs_says_so() -> None:
    root = parsed(distributions({"capsule": []}, title="Agent calls per pair", unit="calls"))
    assert "no pairs" in all_text(root)


def test_every_text_is_escaped() -> None:
    label = 'a<b> & "c"'
    for svg in (
        rate_bars([RateBar(label, 0.5, 0.25, 0.75, "1/2")], title=label),
        grouped_rates([label], {label: [0.5]}, title=label),
        distributions({label: [1.0, 2.0]}, title=label, unit=label),
    ):
        root = parsed(svg)
        assert title(root) == label
        assert label in all_text(root)


def test_the_same_series_draw_the_same_bytes() -> None:
    assert rate_bars(BARS, title="t") == rate_bars(list(BARS), title="t")
    assert grouped_rates(GROUPS, SERIES, title="t") == grouped_rates(GROUPS, SERIES, title="t")
    assert distributions(COSTS, title="t", unit="u") == distributions(COSTS, title="t", unit="u")


# --- the numbers behind the marks -----------------------------------------------------------


@pytest.mark.parametrize(
    "values", [[1.0], [1.0, 2.0], [3.0, 1.0, 2.0, 10.0], [float(n * n) for n in range(17)]]
)
def test_box_quartiles_interpolate_linearly(values: list[float]) -> None:
    stats = box_stats(values)
    if len(values) > 1:
        assert [stats.q1, stats.median, stats.q3] == pytest.approx(
            statistics.quantiles(values, n=4, method="inclusive")
        )
    assert stats.mean == pytest.approx(statistics.fmean(values))
    assert (stats.minimum, stats.maximum, stats.size) == (min(values), max(values), len(values))


def test_whiskers_stop_at_the_last_value_within_one_and_a_half_iqr() -> None:
    stats = box_stats([1.0, 2.0, 2.0, 2.0, 2.0, 9.0])
    assert (stats.low, stats.q1, stats.q3, stats.high) == (2.0, 2.0, 2.0, 2.0)
    assert stats.fliers == (1.0, 9.0)
    assert stats.outside == 2


@pytest.mark.parametrize(
    ("low", "high", "ticks"),
    [
        (0.0, 2.0, (0.0, 0.5, 1.0, 1.5, 2.0)),
        (0.0, 47_000.0, (0.0, 10_000.0, 20_000.0, 30_000.0, 40_000.0, 50_000.0)),
        (0.0, 0.0, (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)),
        (0.0, 1.0, (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)),
    ],
)
def test_axis_ticks_are_round_and_cover_the_values(
    low: float, high: float, ticks: tuple[float, ...]
) -> None:
    assert nice_ticks(low, high) == pytest.approx(ticks)


def test_values_read_as_a_person_writes_them() -> None:
    assert [value_text(v) for v in (19234.5, 1000.0, 0.25, -0.0)] == [
        "19,234.5",
        "1,000",
        "0.25",
        "0",
    ]


# --- on the page ----------------------------------------------------------------------------


def test_each_chart_on_the_page_is_well_formed_and_titled() -> None:
    page = render_html(baseline_report(), task_facts(load_fixture(default_fixture_dir())))
    text = page.decode("utf-8")
    charts = [text[start : text.index("</svg>", start) + 6] for start in _starts(text, "<svg")]
    assert [title(parsed(svg)) for svg in charts] == [
        "Success by cohort",
        "Success by category",
        "Agent calls per pair",
        "Model-visible bytes per pair",
    ]


def _starts(text: str, needle: str) -> list[int]:
    starts, at = [], text.find(needle)
    while at >= 0:
        starts.append(at)
        at = text.find(needle, at + 1)
    return starts


def test_building_the_page_imports_no_plotting_library() -> None:
    modules = modules_after_writing_a_page()
    assert "agentic.report.charts" in modules
    assert [m for m in modules if m.split(".")[0] in PLOTTING] == []
