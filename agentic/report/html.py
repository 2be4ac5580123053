"""report.html: one self-contained page a person reads in a minute, then drills into.

It shows, top to bottom: the verdict, success by adapter and by category (with intervals),
with the fixture at hand the attribution of failures to retrieval or the model (per adapter, and
each failed pair's cause), the spread of calls and bytes per pair, the task grid (which task
failed where, and why), and per task each pair's trajectory: its calls, their arguments, an
excerpt of each result, and the claims it cited, each citation read against the oracle's
required and forbidden lines.

The page is written beside the four contract artifacts and is never part of the canonical
projection. Everything is inline (CSS, SVG charts, a few lines of script): no request leaves
the page. Rendering is a pure function of the report (and of the task facts, when a fixture is
at hand), so one report renders to the same bytes each time; the charts are the kit's own SVG
(``charts.py``), so building the page loads no plotting library.

The report is first turned into plain rows (``html_view.py``'s ``build_page``), then written out
by the kit's own small HTML writer (``markup.py``), one function per section: every text of the
report is escaped on its way into the page, and only the kit's own SVG charts and fixed notes go
in as markup.
"""

from __future__ import annotations

from agentic.contract.report import BenchmarkReport
from agentic.report.attribution_table import ATTRIBUTION_HEADER, ATTRIBUTION_LEGEND
from agentic.report.html_view import (
    CallRow,
    Citation,
    Facts,
    GridCell,
    GridRow,
    Page,
    PairView,
    TaskView,
    build_page,
)
from agentic.report.markup import Html, element, join, lines
from agentic.report.pages import (
    BLANK,
    document,
    facts_list,
    page_script,
    script_source,
    table,
    verdict_badge,
)

# --- writing the page -------------------------------------------------------------------------


def _top_html(page: Page) -> list[Html]:
    return [
        element("h1", page.title),
        element("p", "Promotion: ", verdict_badge(page.verdict, page.verdict_tone)),
        *[element("p", note, attrs={"class": "note"}) for note in page.notes],
        facts_list(page.facts),
        BLANK,
    ]


def _summary_html(page: Page) -> list[Html]:
    section = [element("h2", "Summary", attrs={"id": "summary"})]
    if page.promotion_lines:
        section.append(element("ul", "\n", lines([element("li", x) for x in page.promotion_lines])))
    if page.promotion_failures:
        failures = [element("li", element("code", f)) for f in page.promotion_failures]
        section += [element("p", "Gate failures:"), element("ul", "\n", lines(failures))]
    rows = [element("tr", *[element("td", cell) for cell in row]) for row in page.cohort_rows]
    return [
        *section,
        table(page.cohort_header, rows, {"id": "cohorts"}),
        *_attribution_html(page),
        element("p", page.replays, attrs={"class": "muted"}),
        BLANK,
    ]


def _attribution_html(page: Page) -> list[Html]:
    """The per-cohort attribution table and the paired tests between adapters (with facts)."""
    if not page.attribution_rows:
        return []
    rows = [element("tr", *[element("td", cell) for cell in row]) for row in page.attribution_rows]
    tests = [element("li", line) for line in page.attribution_tests]
    return [
        element("h3", "Attribution: retrieval or the model", attrs={"id": "attribution"}),
        element("p", ATTRIBUTION_LEGEND, attrs={"class": "muted"}),
        table(ATTRIBUTION_HEADER, rows, {"id": "attribution-table"}),
        *(
            [
                element("p", "Between adapters (exact McNemar over matched pairs):"),
                element("ul", "\n", lines(tests)),
            ]
            if tests
            else []
        ),
    ]


def _charts_html(page: Page) -> list[Html]:
    # Html(svg): the charts are the kit's own SVG, which escapes every text it draws (charts.py).
    figures = [
        element("figure", Html(svg), element("figcaption", caption)) for caption, svg in page.charts
    ]
    return [
        element("h2", "Charts", attrs={"id": "charts"}),
        element("div", "\n", lines(figures), attrs={"class": "charts"}),
        BLANK,
    ]


# The kit's own prose, written as it is (no markup in it): its apostrophes stay plain.
GRID_NOTE = Html(
    "One row per task, one column per adapter: how many of its pairs passed (cold, warm, "
    "trials), and for a failure the first failing pair's reason (its receipt's failure code, or "
    "the terms of the success condition it missed). Click a cell for that pair's trajectory."
)


def _grid_cell_html(cell: GridCell) -> Html:
    text = (
        cell.text
        if cell.anchor is None
        else element("a", cell.text, attrs={"href": f"#{cell.anchor}"})
    )
    return element("td", text, attrs={"class": cell.tone})


def _grid_row_html(row: GridRow) -> Html:
    task = element("a", row.task_id, attrs={"href": f"#{row.anchor}", "class": "mono"})
    first = join([element("td", task), element("td", row.category)])
    return element(
        "tr",
        "\n",
        lines([first, *[_grid_cell_html(cell) for cell in row.cells]]),
        attrs={
            "data-failed": "yes" if row.failed else "no",
            "data-search": f"{row.task_id} {row.category}",
        },
    )


def _grid_html(page: Page) -> list[Html]:
    only_failures = element("input", attrs={"type": "checkbox", "id": "only-failures"})
    search = element(
        "input",
        attrs={"type": "search", "id": "task-filter", "placeholder": "task id or category"},
    )
    controls = [
        element("label", only_failures, " only tasks with a failure"),
        element("label", "filter ", search),
        element("span", attrs={"class": "muted", "id": "shown-count"}),
    ]
    header = ("task", "category", *page.adapters)
    return [
        element("h2", "Tasks", attrs={"id": "grid"}),
        element("p", GRID_NOTE, attrs={"class": "muted"}),
        element("div", "\n", lines(controls), attrs={"class": "controls"}),
        table(header, [_grid_row_html(row) for row in page.grid], {"id": "task-grid"}),
        BLANK,
    ]


TRAJECTORIES_NOTE = Html(
    "Per task, each pair: its calls (arguments, status, an excerpt of the result the agent was "
    "shown, the spans it returned), then the claims of its final envelope with each citation "
    "read against the oracle's lines."
)
CALL_HEADER = ("#", "tool", "arguments", "result", "excerpt shown", "spans returned")
CITATION_HEADER = ("claim", "value", "cited lines", "against the oracle")
BREAK = element("br")


def _call_html(call: CallRow) -> Html:
    result: list[object] = [f"{call.status} ({call.role})"]
    if call.failure:
        result += [BREAK, element("span", call.failure, attrs={"class": "bad"})]
    if not call.delivered:
        result += [BREAK, element("span", "not delivered", attrs={"class": "muted"})]
    cells = [
        join(
            [
                element("td", call.number),
                element("td", call.tool),
                element("td", element("code", call.arguments)),
            ]
        ),
        element("td", *result),
        element("td", element("pre", call.excerpt, attrs={"class": "excerpt"})),
        element("td", call.evidence, attrs={"class": "mono"}),
    ]
    return element("tr", "\n", lines(cells))


def _citation_html(c: Citation) -> Html:
    return element(
        "tr",
        element("td", c.claim_key, attrs={"class": "mono"}),
        element("td", element("code", c.value)),
        element("td", c.where, attrs={"class": "mono"}),
        element("td", c.verdict, attrs={"class": c.tone}),
    )


def _envelope_html(pair: PairView) -> list[Html]:
    if pair.abstained is None:
        return [element("p", "No final envelope.", attrs={"class": "muted"})]
    gaps = f"; gaps {', '.join(pair.gaps)}" if pair.gaps else ""
    answer = "abstained" if pair.abstained else "answered"
    section = [element("p", f"Final envelope: {answer}{gaps}.")]
    if pair.citations:
        section.append(table(CITATION_HEADER, [_citation_html(c) for c in pair.citations]))
    if pair.uncited_required:
        uncited = element("span", "; ".join(pair.uncited_required), attrs={"class": "mono"})
        section.append(element("p", "Required lines not cited: ", uncited))
    return section


def _pair_html(pair: PairView) -> Html:
    outcome = (
        element("span", "pass", attrs={"class": "ok"})
        if pair.success
        else element("span", "FAIL", attrs={"class": "ko"})
    )
    reasons = f" — {'; '.join(pair.reasons)}" if pair.reasons else ""
    cause = [" ", element("span", pair.cause, attrs={"class": "bad"})] if pair.cause else []
    summary = element(
        "summary",
        outcome,
        *cause,
        f" {pair.adapter} · {pair.lifecycle} · {pair.trial} — {pair.agent_calls} calls, "
        f"{pair.visible_bytes} bytes, stop {pair.stop_reason}{reasons}",
    )
    calls = (
        table(CALL_HEADER, [_call_html(call) for call in pair.calls])
        if pair.calls
        else element("p", "No calls.", attrs={"class": "muted"})
    )
    return element(
        "details",
        "\n",
        lines([summary, calls, *_envelope_html(pair)]),
        attrs={"id": pair.anchor, "class": "pair"},
    )


def _task_html(task: TaskView) -> Html:
    summary = element(
        "summary",
        element("span", task.task_id, attrs={"class": "mono"}),
        " ",
        element("span", task.category, attrs={"class": "muted"}),
        f" — {task.passed}/{len(task.pairs)} pairs passed",
    )
    oracle = (
        [element("p", f"Oracle lines: {'; '.join(task.oracle_lines)}", attrs={"class": "muted"})]
        if task.oracle_lines
        else []
    )
    return element(
        "details",
        "\n",
        lines([summary, *oracle, *[_pair_html(pair) for pair in task.pairs]]),
        attrs={"id": task.anchor, "class": "task"},
    )


def _trajectories_html(page: Page) -> list[Html]:
    return [
        element("h2", "Trajectories", attrs={"id": "trajectories"}),
        element("p", TRAJECTORIES_NOTE, attrs={"class": "muted"}),
        *[_task_html(task) for task in page.tasks],
    ]


def render_html(report: BenchmarkReport, facts: Facts | None = None) -> bytes:
    """The page of one lane report, as UTF-8 bytes."""
    page = build_page(report, facts)
    script = page_script()
    body = [
        *_top_html(page),
        *_summary_html(page),
        *_charts_html(page),
        *_grid_html(page),
        *_trajectories_html(page),
        element("script", script),
    ]
    return document(page.title, body, script_source(script))
