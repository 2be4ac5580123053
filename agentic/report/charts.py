"""report.html's charts, drawn by matplotlib into inline SVG: no network, no JavaScript.

Each function takes plain series and returns one ``<svg>`` element as text. Text stays text
(``svg.fonttype: none``, so the browser's font draws it and the file stays small), and the ids
matplotlib generates are salted with a constant and the date left out, so one report always
draws to the same bytes on one matplotlib version. Figures are made with ``Figure`` directly,
never through pyplot, so no global figure state or GUI backend is involved.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib
from matplotlib.figure import Figure
from matplotlib.typing import RcKeyType

# Okabe-Ito: distinguishable under the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "agentic-report",
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
_XML_PROLOGUE = re.compile(r"\A.*?(?=<svg)", re.DOTALL)
ROW_INCHES = 0.28
WIDTH_INCHES = 7.0


@dataclass(frozen=True)
class RateBar:
    label: str
    rate: float  # successes / scored
    low: float  # the interval's bounds
    high: float
    text: str  # shown at the bar's end, e.g. "12/32"


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return _XML_PROLOGUE.sub("", buffer.getvalue(), count=1)


def _height(rows: int) -> float:
    return max(1.6, 0.8 + ROW_INCHES * rows)


def rate_bars(bars: Sequence[RateBar], *, title: str) -> str:
    """Horizontal bars of success rates with their intervals as error bars, first bar on top."""
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(WIDTH_INCHES, _height(len(bars))))
        axes = figure.subplots()
        positions = list(range(len(bars)))[::-1]
        rates = [b.rate for b in bars]
        errors = [[b.rate - b.low for b in bars], [b.high - b.rate for b in bars]]
        axes.barh(positions, rates, color=PALETTE[0], height=0.6)
        axes.errorbar(rates, positions, xerr=errors, fmt="none", ecolor="#333333", capsize=3)
        for position, bar in zip(positions, bars, strict=True):
            axes.text(1.02, position, bar.text, va="center", fontsize=8)
        axes.set_yticks(positions, [b.label for b in bars])
        axes.set_xlim(0, 1)
        axes.set_xlabel("success rate (bars: 95% Wilson interval)")
        axes.set_title(title, loc="left")
        return _svg(figure)


def grouped_rates(
    groups: Sequence[str], series: Mapping[str, Sequence[float | None]], *, title: str
) -> str:
    """One row per group (e.g. task category), one bar per series (e.g. adapter) in each; a
    missing value (no scored pair) draws no bar."""
    names = list(series)
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(WIDTH_INCHES, _height(len(groups) * max(1, len(names)) // 2 + 1)))
        axes = figure.subplots()
        step = 0.8 / max(1, len(names))
        centers = list(range(len(groups)))[::-1]
        for index, name in enumerate(names):
            offsets = [c + 0.4 - step * (index + 0.5) for c in centers]
            values = [0.0 if v is None else v for v in series[name]]
            axes.barh(offsets, values, height=step, label=name, color=PALETTE[index % 8])
        axes.set_yticks(centers, list(groups))
        axes.set_xlim(0, 1)
        axes.set_xlabel("success rate")
        axes.set_title(title, loc="left")
        axes.legend(loc="lower right", fontsize=8, frameon=False)
        return _svg(figure)


def distributions(series: Mapping[str, Sequence[float]], *, title: str, unit: str) -> str:
    """A box plot per series (whiskers at 1.5 IQR, points beyond drawn), with the mean as a
    diamond: the spread of a per-pair cost, not only its sum."""
    names = [name for name, values in series.items() if values]
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(WIDTH_INCHES, _height(len(names))))
        axes = figure.subplots()
        if not names:
            axes.set_axis_off()
            axes.text(0.5, 0.5, "no pairs", ha="center", va="center")
            return _svg(figure)
        data = [list(series[name]) for name in names][::-1]
        axes.boxplot(
            data,
            orientation="horizontal",
            tick_labels=names[::-1],
            showmeans=True,
            meanprops={"marker": "D", "markerfacecolor": PALETTE[1], "markeredgecolor": "none"},
            medianprops={"color": PALETTE[0]},
            flierprops={"markersize": 3},
        )
        axes.set_xlabel(unit)
        axes.set_title(title, loc="left")
        return _svg(figure)
