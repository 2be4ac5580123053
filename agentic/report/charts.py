"""report.html's charts, drawn as inline SVG by plain string building: no plotting library, no
network, no script.

Each function takes plain series and returns one ``<svg>`` element as text. The element starts
with a ``<title>`` (the chart's accessible name) and a ``<desc>`` that states every value the
chart plots; each bar or box carries its own ``<title>`` too (a tooltip). Then come gridlines,
the marks, the labels, the x axis with its label, and a legend. Every text is escaped, every
coordinate is written with at most two decimals, and nothing depends on the clock or on ids, so
one report draws to the same bytes each time and several charts can share a page. Colours and
fonts are presentation attributes: no ``<style>``, no ``id``, nothing the page's policy has to
allow.

Text is laid out without font metrics: label margins are estimated from character counts (a
long label is shortened, its full text stays in the ``<title>`` of its mark and in ``<desc>``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

# Okabe-Ito: distinguishable under the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
INK = "#333333"
GRID = "#e1e4e8"
WIDTH = 560  # px; the page scales a chart down to its column
FONT = 11  # px
CHAR = 6.2  # px: an estimated average width of one character at FONT
LABEL_CHARS = 32  # longer labels are shortened at the axis
TITLE_BAND = 30  # px above the plot: the chart's heading
ROW = 22  # px per bar of rate_bars
BOX_ROW = 26  # px per box of distributions
GROUP_BAR = 8  # px per bar of grouped_rates
GROUP_GAP = 10  # px between two groups
RATE_TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
WHISKER = 1.5  # whiskers reach the furthest point within 1.5 IQR of the box


class RateBar(NamedTuple):
    label: str
    rate: float  # successes / scored
    low: float  # the interval's bounds
    high: float
    text: str  # shown at the bar's end, e.g. "12/32"


class BoxStats(NamedTuple):
    """A box plot's numbers: quartiles by linear interpolation, whiskers at the furthest value
    within 1.5 IQR of the box, the values beyond them (fliers, once each), and the mean."""

    size: int  # how many values
    low: float  # whisker ends
    q1: float
    median: float
    q3: float
    high: float
    mean: float
    fliers: tuple[float, ...]  # each value once
    outside: int  # how many values lie beyond the whiskers
    minimum: float
    maximum: float


# --- text ----------------------------------------------------------------------------------


def escape(text: str) -> str:
    """``text`` safe inside an SVG element or a double-quoted attribute."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _num(value: float) -> str:
    """A coordinate: at most two decimals, no trailing zeros, never ``-0``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def value_text(value: float) -> str:
    """A value as a reader sees it: thousands grouped, at most two decimals."""
    text = f"{value:,.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _rate(value: float) -> str:
    return f"{value:.3f}"


def _decimals(step: float) -> int:
    for decimals in range(7):
        scaled = step * 10**decimals
        if abs(scaled - round(scaled)) < 1e-6:
            return decimals
    return 6


def nice_ticks(low: float, high: float) -> tuple[float, ...]:
    """At most six round ticks (a step of 1, 2, 2.5 or 5 times a power of ten) covering
    ``[low, high]``, the first at or below ``low`` and the last at or above ``high``."""
    if high <= low:
        high = low + 1.0
    raw = (high - low) / 5
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * power >= raw * (1 - 1e-9))
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return tuple(round(i * step, 10) for i in range(first, last + 1))


def _tick_label(value: float, ticks: Sequence[float]) -> str:
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    decimals = _decimals(round(step, 10))
    return f"{value:,.{decimals}f}"


# --- box plot numbers ---------------------------------------------------------------------


def _percentile(ordered: Sequence[float], fraction: float) -> float:
    position = fraction * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def box_stats(values: Sequence[float]) -> BoxStats:
    """The numbers a box of ``values`` (not empty) draws."""
    ordered = sorted(values)
    q1, median, q3 = (_percentile(ordered, f) for f in (0.25, 0.5, 0.75))
    reach = WHISKER * (q3 - q1)
    inside = [v for v in ordered if q1 - reach <= v <= q3 + reach]
    low = min(inside) if inside else q1
    high = max(inside) if inside else q3
    outside = [v for v in ordered if v < low or v > high]
    mean = math.fsum(ordered) / len(ordered)
    return BoxStats(
        size=len(ordered),
        low=low,
        q1=q1,
        median=median,
        q3=q3,
        high=high,
        mean=mean,
        fliers=tuple(sorted(set(outside))),
        outside=len(outside),
        minimum=ordered[0],
        maximum=ordered[-1],
    )


# --- drawing --------------------------------------------------------------------------------


class _Plot(NamedTuple):
    """The plot area in px and the value range its x axis shows."""

    left: float
    top: float
    right: float
    bottom: float
    low: float
    high: float

    def x(self, value: float) -> float:
        clamped = min(max(value, self.low), self.high)
        return self.left + (clamped - self.low) / (self.high - self.low) * (self.right - self.left)


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def _label_margin(labels: Sequence[str]) -> float:
    longest = max((len(_short(label)) for label in labels), default=0)
    return 12 + CHAR * max(4, longest)


def _text(
    x: float,
    y: float,
    content: str,
    *,
    anchor: str = "start",
    size: int = FONT,
    fill: str = INK,
    bold: bool = False,
) -> str:
    """One line of text whose vertical middle is at ``y``."""
    weight = ' font-weight="600"' if bold else ""
    return (
        f'<text x="{_num(x)}" y="{_num(y + size * 0.35)}" text-anchor="{anchor}" '
        f'font-size="{size}" fill="{fill}"{weight}>{escape(content)}</text>'
    )


def _line(
    x1: float, y1: float, x2: float, y2: float, colour: str = INK, *, width: float = 1
) -> str:
    return (
        f'<line x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(x2)}" y2="{_num(y2)}" '
        f'stroke="{colour}" stroke-width="{_num(width)}"/>'
    )


def _rect(
    x: float, y: float, width: float, height: float, *, fill: str, tip: str = "", stroke: str = ""
) -> str:
    outline = f' stroke="{stroke}"' if stroke else ""
    attributes = (
        f'x="{_num(x)}" y="{_num(y)}" width="{_num(max(0.0, width))}" '
        f'height="{_num(height)}" fill="{fill}"{outline}'
    )
    if not tip:
        return f"<rect {attributes}/>"
    return f"<rect {attributes}><title>{escape(tip)}</title></rect>"


def _diamond(x: float, y: float, radius: float, fill: str) -> str:
    points = [(x, y - radius), (x + radius, y), (x, y + radius), (x - radius, y)]
    joined = " ".join(f"{_num(a)},{_num(b)}" for a, b in points)
    return f'<polygon points="{joined}" fill="{fill}"/>'


def _circle(x: float, y: float, radius: float = 2.5) -> str:
    return (
        f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(radius)}" fill="none" '
        f'stroke="{INK}" stroke-width="1"/>'
    )


def _x_axis(plot: _Plot, ticks: Sequence[float], label: str) -> list[str]:
    """Gridlines behind the marks; the axis lines, tick labels and axis label."""
    parts = [_line(plot.x(t), plot.top, plot.x(t), plot.bottom, GRID) for t in ticks]
    parts.append(_line(plot.left, plot.bottom, plot.right, plot.bottom))
    parts.append(_line(plot.left, plot.top, plot.left, plot.bottom))
    for tick in ticks:
        x = plot.x(tick)
        parts.append(_line(x, plot.bottom, x, plot.bottom + 4))
        parts.append(_text(x, plot.bottom + 13, _tick_label(tick, ticks), anchor="middle"))
    centre = (plot.left + plot.right) / 2
    parts.append(_text(centre, plot.bottom + 30, label, anchor="middle"))
    return parts


def _legend_key(kind: str, x: float, y: float, colour: str) -> str:
    if kind == "bar":
        return _rect(x, y - 5, 14, 10, fill=colour)
    if kind == "interval":
        ends = (_line(end, y - 4, end, y + 4, colour) for end in (x, x + 14))
        return _line(x, y, x + 14, y, colour) + "".join(ends)
    if kind == "box":
        return _rect(x + 1, y - 5, 12, 10, fill="#ffffff", stroke=colour)
    if kind == "median":
        return _line(x + 7, y - 6, x + 7, y + 6, colour, width=2)
    if kind == "mean":
        return _diamond(x + 7, y, 4.5, colour)
    return _circle(x + 7, y)


def _legend(items: Sequence[tuple[str, str, str]], left: float, top: float) -> tuple[str, float]:
    """(kind, colour, label) keys left to right from ``left``, wrapped at the chart's width;
    the legend's markup and the y below it."""
    parts: list[str] = []
    x, y = left, top + 8
    for kind, colour, label in items:
        width = 20 + CHAR * len(label) + 16
        if x > left and x + width > WIDTH - 8:
            x, y = left, y + 18
        parts.append(_legend_key(kind, x, y, colour))
        parts.append(_text(x + 20, y, label))
        x += width
    return "".join(parts), y + 12


def _svg(title: str, desc: str, height: float, parts: Sequence[str]) -> str:
    size = f'width="{WIDTH}" height="{_num(height)}" viewBox="0 0 {WIDTH} {_num(height)}"'
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" {size} '
        f'font-family="system-ui, sans-serif" font-size="{FONT}">'
        f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>"
        f'<rect x="0" y="0" width="{WIDTH}" height="{_num(height)}" fill="#ffffff"/>'
        f"{_text(8, 14, title, size=12, bold=True)}{''.join(parts)}</svg>"
    )


def _finish(
    title: str,
    desc: str,
    plot: _Plot,
    *,
    axis: list[str],
    marks: list[str],
    legend: Sequence[tuple[str, str, str]],
) -> str:
    keys, bottom = _legend(legend, plot.left, plot.bottom + 42)
    return _svg(title, desc, bottom + 4, [*axis, *marks, keys])


# --- the charts -----------------------------------------------------------------------------


def rate_bars(bars: Sequence[RateBar], *, title: str) -> str:
    """Horizontal bars of success rates with their intervals as error bars, first bar on top,
    each bar's ``text`` (e.g. ``12/32``) at the right of the plot."""
    plot = _Plot(
        left=_label_margin([b.label for b in bars]),
        top=TITLE_BAND,
        right=WIDTH - 8 - CHAR * max([4, *(len(b.text) for b in bars)]),
        bottom=TITLE_BAND + ROW * max(1, len(bars)),
        low=0.0,
        high=1.0,
    )
    marks: list[str] = []
    for index, bar in enumerate(bars):
        y = plot.top + ROW * (index + 0.5)
        tip = (
            f"{bar.label}: {bar.text}, success rate {_rate(bar.rate)}, "
            f"95% Wilson interval [{_rate(bar.low)}, {_rate(bar.high)}]"
        )
        marks.append(
            _rect(
                plot.left,
                y - ROW * 0.3,
                plot.x(bar.rate) - plot.left,
                ROW * 0.6,
                fill=PALETTE[0],
                tip=tip,
            )
        )
        low, high = plot.x(bar.low), plot.x(bar.high)
        marks.append(_line(low, y, high, y))
        marks.append(_line(low, y - 4, low, y + 4))
        marks.append(_line(high, y - 4, high, y + 4))
        marks.append(_text(plot.left - 6, y, _short(bar.label), anchor="end"))
        marks.append(_text(plot.right + 6, y, bar.text))
    desc = "; ".join(
        f"{b.label}: {b.text}, rate {_rate(b.rate)}, interval [{_rate(b.low)}, {_rate(b.high)}]"
        for b in bars
    )
    axis = _x_axis(plot, RATE_TICKS, "success rate (bars: 95% Wilson interval)")
    legend = [("bar", PALETTE[0], "success rate"), ("interval", INK, "95% Wilson interval")]
    return _finish(
        title, f"{title}. {desc or 'No cohorts.'}", plot, axis=axis, marks=marks, legend=legend
    )


def grouped_rates(
    groups: Sequence[str], series: Mapping[str, Sequence[float | None]], *, title: str
) -> str:
    """One row per group (e.g. task category), one bar per series (e.g. adapter) in each, in
    the series' order from the top; a missing value (no scored pair) draws no bar."""
    names = list(series)
    band = GROUP_BAR * max(1, len(names)) + GROUP_GAP
    plot = _Plot(
        left=_label_margin(groups),
        top=TITLE_BAND,
        right=WIDTH - 16,
        bottom=TITLE_BAND + band * max(1, len(groups)),
        low=0.0,
        high=1.0,
    )
    marks: list[str] = []
    described: list[str] = []
    for row, group in enumerate(groups):
        top = plot.top + band * row + GROUP_GAP / 2
        marks.append(
            _text(plot.left - 6, top + GROUP_BAR * len(names) / 2, _short(group), anchor="end")
        )
        values: list[str] = []
        for index, name in enumerate(names):
            value = series[name][row]
            if value is None:
                values.append(f"{name} no scored pair")
                continue
            values.append(f"{name} {_rate(value)}")
            marks.append(
                _rect(
                    plot.left,
                    top + GROUP_BAR * index,
                    plot.x(value) - plot.left,
                    GROUP_BAR,
                    fill=PALETTE[index % len(PALETTE)],
                    tip=f"{group}, {name}: {_rate(value)}",
                )
            )
        described.append(f"{group}: {', '.join(values)}")
    axis = _x_axis(plot, RATE_TICKS, "success rate")
    legend = [("bar", PALETTE[i % len(PALETTE)], name) for i, name in enumerate(names)]
    desc = f"{title}. {'; '.join(described) or 'No groups.'}"
    return _finish(title, desc, plot, axis=axis, marks=marks, legend=legend)


def _box_text(name: str, stats: BoxStats) -> str:
    return (
        f"{name}: {stats.size} pairs, median {value_text(stats.median)}, "
        f"mean {value_text(stats.mean)}, quartiles {value_text(stats.q1)} to "
        f"{value_text(stats.q3)}, whiskers {value_text(stats.low)} to {value_text(stats.high)}, "
        f"min {value_text(stats.minimum)}, max {value_text(stats.maximum)}, "
        f"{stats.outside} beyond the whiskers"
    )


def distributions(series: Mapping[str, Sequence[float]], *, title: str, unit: str) -> str:
    """A box plot per series, first on top (whiskers at 1.5 IQR, points beyond drawn), with the
    mean as a diamond: the spread of a per-pair cost, not only its sum. The axis starts at zero
    (or below, for a negative value)."""
    stats = {name: box_stats(values) for name, values in series.items() if values}
    if not stats:
        return _svg(
            title, f"{title}. No pairs.", 80, [_text(WIDTH / 2, 50, "no pairs", anchor="middle")]
        )
    ticks = nice_ticks(
        min(0.0, *(s.minimum for s in stats.values())), max(s.maximum for s in stats.values())
    )
    plot = _Plot(
        left=_label_margin(list(stats)),
        top=TITLE_BAND,
        right=WIDTH - 8 - CHAR * len(_tick_label(ticks[-1], ticks)) / 2,
        bottom=TITLE_BAND + BOX_ROW * len(stats),
        low=ticks[0],
        high=ticks[-1],
    )
    marks: list[str] = []
    for index, (name, box) in enumerate(stats.items()):
        y = plot.top + BOX_ROW * (index + 0.5)
        marks.append(_text(plot.left - 6, y, _short(name), anchor="end"))
        for end, edge in ((box.low, box.q1), (box.high, box.q3)):
            marks.append(_line(plot.x(end), y, plot.x(edge), y))
            marks.append(_line(plot.x(end), y - 5, plot.x(end), y + 5))
        q1, q3 = plot.x(box.q1), plot.x(box.q3)
        marks.append(
            _rect(q1, y - 7, q3 - q1, 14, fill="#ffffff", tip=_box_text(name, box), stroke=INK)
        )
        median = plot.x(box.median)
        marks.append(_line(median, y - 7, median, y + 7, PALETTE[0], width=2))
        marks.append(_diamond(plot.x(box.mean), y, 4.5, PALETTE[1]))
        marks.extend(_circle(plot.x(v), y) for v in box.fliers)
    axis = _x_axis(plot, ticks, unit)
    legend = [
        ("box", INK, "quartiles"),
        ("median", PALETTE[0], "median"),
        ("mean", PALETTE[1], "mean"),
        ("flier", INK, f"beyond {WHISKER} IQR"),
    ]
    desc = f"{title} ({unit}). " + "; ".join(_box_text(n, s) for n, s in stats.items())
    return _finish(title, desc, plot, axis=axis, marks=marks, legend=legend)
