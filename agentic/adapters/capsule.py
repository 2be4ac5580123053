"""The ``capsule`` adapter (evaluation only): one search returns a complete evidence bundle.
It follows contract v1, 5.2. ``get`` and ``multi_get`` are the lexical reads.

search = plan (``capsule_plan``) -> one lexical search per variant x scope -> read every hit URI
whole -> one candidate per non-blank line (``retrievalRank = uriIndex * 1000``, facets = the
facets found in its NFKC-lowercased text) -> ``marginal-facet-coverage-v1`` selection
(``capsule_select``) -> the ``gno-context-agent-v1`` payload as canonical JSON.

Budget: the byte check uses the complete model-visible result (``agentic.tools.visible_bytes``)
against ``task.budgets.maxModelVisibleBytes``. While selecting, the omission section is sized
as an upper bound (every possible reason counted as if every candidate were omitted for it, and
``t`` as ``false``, its longer spelling), so the final payload can never be larger than the one
a selection was checked with. If even the final result exceeds the budget the call fails with
``capsule_budget_exceeded``.

Backend invocations = 1 (planning) + variants x scopes + 2 per read URI + 2 (selection and
finalization); those stage counts and the variants form the retrieval fingerprint.

The bundle's evidence is exactly the selected lines; because the payload's ``e`` tuples carry
every one of them, the agent-visible projection hides the evidence list and the bytes are
charged once.

Speed: a search reads whole pages, tens of thousands of lines, and cites a few hundred. The
result is the same bytes as the plain reading above, but the work is proportional to what is
cited, not to what is read:

- each document's lines are normalized once per adapter (``LineTable``); the lines holding a
  facet are tested in C and kept as bit sets, which split the lines by the facets they hold;
- a line without a facet is only counted: it is omitted as ``redundant_coverage`` whatever
  happens (each line is its own coordinate, so never a duplicate or an overlap, and it has
  nothing to cover). For the same reason the lines need no collapse;
- the lines of one document with one facet set form one ``capsule_select.Group`` (``LineGroup``),
  whose candidates are built only when selection reaches them, on a light ``LineSpan``; only the
  selected lines become ``ToolEvidence``;
- the byte check adds up sizes of parts (``BundleBound``) instead of serializing the whole
  bundle once per selection round, and tells selection when nothing more can fit.

``tests/adapters/test_capsule.py`` checks the bundles against the search written plainly.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from agentic.adapters import ids, indexed, reads
from agentic.adapters.base import CallOutcome
from agentic.adapters.capsule_plan import CapsulePlan, normalize_text, plan_query
from agentic.adapters.capsule_select import (
    GLOBAL_BUDGET,
    OMISSION_REASONS,
    POSSIBLE_REASONS,
    REDUNDANT_COVERAGE,
    Candidate,
    Group,
    GroupSelection,
    Span,
    select_groups,
)
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.lexical import DEFAULT_LIMIT, search_scopes
from agentic.contract.canonical import canonical_bytes, canonical_text, fingerprint
from agentic.contract.json_access import as_int
from agentic.contract.jsrules import JS_WHITESPACE, utf16_key
from agentic.contract.receipt import ToolEvidence, ToolResult
from agentic.contract.strict_json import JsonArray, JsonObject, JsonValue
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusFile, CorpusSnapshot
from agentic.fixture.spans import span_hash
from agentic.tools import visible_bytes

ADAPTER_ID = ids.CAPSULE
PAYLOAD_VERSION = "gno-context-agent-v1"
RANK_STRIDE = 1000
CONFIG: JsonObject = {
    "adapter": ADAPTER_ID,
    "version": 1,
    "evalOnly": True,
    "retrieval": "fts5-bm25-query-variants",
    "selection": "marginal-facet-coverage-v1",
    "budget": "complete-model-visible-utf8-v1",
    "synthesis": False,
}


def retrieve_uris(
    context: indexed.SearchContext,
    plan: CapsulePlan,
    scopes: tuple[str, ...],
    limit: int,
    deadline: float,
) -> list[str]:
    """Hit URIs of every variant x scope search, unique, in first-seen order."""
    uris: dict[str, None] = {}
    for variant in plan.variants:
        for collection in scopes:
            for hit in context.index.search(variant, collection, limit, deadline=deadline):
                uris.setdefault(hit.uri)
    return list(uris)


# --- lines and their facets -----------------------------------------------------------------------


def normalized_lines(lines: tuple[str, ...]) -> list[str]:
    """``normalize_text`` of each line, done on the whole text at once. A line feed is a
    boundary for both steps: NFKC composes and reorders nothing across it (a starter in no
    composition) and nothing maps to it, and lowercasing looks across it for no final sigma (it
    is neither cased nor case-ignorable). The line count is checked all the same."""
    normalized = normalize_text("\n".join(lines)).split("\n")
    if len(normalized) != len(lines):
        return [normalize_text(line) for line in lines]
    return normalized


# ``bytes(map(...))`` of booleans is 0/1 bytes; as ASCII digits they read as a binary numeral.
_BINARY_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


@dataclass(frozen=True)
class LineTable:
    """One document's non-blank lines, NFKC-lowercased (``normalize_text``) once for all
    searches. Sets of them are ints whose bit i stands for ``lines[i]``."""

    uri_key: bytes  # the document URI's sort key (``utf16_key``)
    numbers: tuple[int, ...]  # 1-based line number of each non-blank line
    lines: tuple[str, ...]  # their normalized text

    @classmethod
    def of(cls, file: CorpusFile) -> LineTable:
        # ``js_trim`` (an empty result is a blank line), mapped in C.
        trimmed = list(map(str.strip, file.lines, itertools.repeat(JS_WHITESPACE)))
        return cls(
            uri_key=utf16_key(file.uri),
            numbers=tuple(itertools.compress(itertools.count(1), trimmed)),
            lines=tuple(itertools.compress(normalized_lines(file.lines), trimmed)),
        )

    def holding(self, facet: str) -> int:
        """The lines holding ``facet``. The substring tests run in C (``map``) and their
        results are read as one binary numeral, last line first: no Python code runs per line,
        and a search tests every line of its hits against every facet."""
        held = bytes(map(operator.contains, reversed(self.lines), itertools.repeat(facet)))
        return int(held.translate(_BINARY_DIGITS) or b"0", 2)

    def by_facets(self, facets: tuple[str, ...]) -> dict[tuple[str, ...], int]:
        """The lines holding each combination of facets that occurs (its facets in ``facets``
        order); lines holding none are left out. Each facet splits every set found so far in
        two: the lines holding it and the others."""
        found: dict[tuple[str, ...], int] = {(): (1 << len(self.lines)) - 1}
        for facet in facets:
            holding = self.holding(facet)
            if not holding:
                continue
            split: dict[tuple[str, ...], int] = {}
            for held, lines in found.items():
                inside, outside = lines & holding, lines & ~holding
                if inside:
                    split[(*held, facet)] = inside
                if outside:
                    split[held] = outside
            found = split
        found.pop((), None)
        return found


class LineTables:
    """The ``LineTable`` of each document read so far, built on its first read and kept for the
    adapter's life (about one more copy of the text read): an adapter serves one snapshot, whose
    files never change."""

    def __init__(self) -> None:
        self._tables: dict[tuple[str, str], LineTable] = {}

    def of(self, file: CorpusFile) -> LineTable:
        key = (file.uri, file.source_hash)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = LineTable.of(file)
        return table


class LineSpan(NamedTuple):
    """One line's coordinate and text, the values ``reads.line_evidence`` gives, without the
    two validated models it builds: selection handles many lines and cites few, and the cited
    ones become ``ToolEvidence`` at the end (``cited_evidence``)."""

    uri: str
    sourceHash: str
    startLine: int
    endLine: int
    spanHash: str
    text: str

    @classmethod
    def of(cls, file: CorpusFile, number: int) -> LineSpan:
        text = file.lines[number - 1]
        return cls(file.uri, file.source_hash, number, number, span_hash(text), text)


class LineGroup(Group):
    """The lines of one document holding the same facets: one rank, one line each, so their
    priority order is line order. A floor is a priority without its span hash (no two of these
    lines share a line number). Line numbers are read off the set's bits only as far as asked."""

    __slots__ = ("_facets", "_file", "_numbers", "_rank", "_rest", "_table")

    def __init__(
        self, file: CorpusFile, rank: int, facets: tuple[str, ...], table: LineTable, lines: int
    ) -> None:
        super().__init__(file.uri, frozenset(facets), lines.bit_count())
        self._file = file
        self._rank = rank
        self._facets = facets
        self._table = table
        self._rest = lines
        self._numbers: list[int] = []

    def _number(self, index: int) -> int:
        while len(self._numbers) <= index:
            lowest = self._rest & -self._rest
            self._numbers.append(self._table.numbers[lowest.bit_length() - 1])
            self._rest ^= lowest
        return self._numbers[index]

    def member(self, index: int) -> Candidate:
        span = LineSpan.of(self._file, self._number(index))
        return Candidate(evidence=span, retrieval_rank=self._rank, facets=self._facets)

    def floor(self, index: int) -> tuple[Any, ...]:
        number = self._number(index)
        coordinate = (self._table.uri_key, self._file.source_hash, number, number)
        return (-len(self._facets), self._rank, 0, coordinate)


@dataclass(frozen=True)
class LineGroups:
    """The candidates of a search (one per non-blank line of the hits) as selection groups, and
    how many were omitted as ``redundant_coverage`` before selection: the lines without a facet
    and, in a one-call task, those with fewer facets than the most (selection step 1)."""

    groups: list[Group]
    redundant: int
    total: int


def line_groups(
    files: Sequence[CorpusFile], facets: tuple[str, ...], tables: LineTables, *, one_call: bool
) -> LineGroups:
    """The lines of ``files`` (the hits, in retrieval order) grouped for selection."""
    groups: list[Group] = []
    total = 0
    for uri_index, file in enumerate(files):
        table = tables.of(file)
        total += len(table.lines)
        for held, lines in table.by_facets(facets).items():
            groups.append(LineGroup(file, uri_index * RANK_STRIDE, held, table, lines))
    if one_call and groups:
        most = max(len(g.facet_set) for g in groups)
        groups = [g for g in groups if len(g.facet_set) == most]
    return LineGroups(groups=groups, redundant=total - sum(g.size for g in groups), total=total)


def cited_evidence(
    files: Sequence[CorpusFile], selected: Sequence[Candidate]
) -> list[ToolEvidence]:
    """The selected lines as ``ToolEvidence``, built the way every read builds it."""
    by_uri = {file.uri: file for file in files}
    return [
        reads.line_evidence(by_uri[c.uri], c.evidence.startLine, reads.READ_HASH_REASON)
        for c in selected
    ]


# --- the payload ----------------------------------------------------------------------------------


def _evidence_tuple(e: Span) -> JsonArray:
    return [
        e.uri,
        e.startLine,
        e.endLine,
        e.sourceHash,
        e.sourceHash,
        e.spanHash,
        e.text,
        None,
        None,
        [],
        "unavailable",
    ]


def _omission_section(counts: dict[str, int]) -> JsonArray:
    sparse: JsonArray = [
        [reason, counts[reason]] for reason in OMISSION_REASONS if counts.get(reason, 0) > 0
    ]
    return [sum(counts.values()), sparse]


def coverage_section(facets: tuple[str, ...], covered: set[str] | frozenset[str]) -> JsonArray:
    return [
        [f for f in facets if f in covered],
        [[f, "facet_not_found"] for f in facets if f not in covered],
    ]


def bundle_result(payload: JsonObject, evidence: Sequence[ToolEvidence]) -> ToolResult:
    return ToolResult(
        status="ok",
        resultRole="evidence_bundle",
        content=canonical_text(payload),
        evidence=tuple(evidence),
        errorCode=None,
    )


@dataclass(frozen=True)
class Bundler:
    """What a search's bundle says besides its evidence, coverage and omissions."""

    task: AgentTask
    plan: CapsulePlan
    index_fingerprint: str
    config_fingerprint: str
    retrieval_fingerprint: str

    def payload(
        self,
        evidence: Sequence[Span],
        covered: set[str] | frozenset[str],
        omission_counts: dict[str, int],
        budget_hit: bool,
    ) -> JsonObject:
        max_bytes = self.task.budgets.maxModelVisibleBytes
        return {
            "v": PAYLOAD_VERSION,
            "id": fingerprint(
                {
                    "taskId": self.task.taskId,
                    "query": self.plan.query,
                    "evidence": [e.spanHash for e in evidence],
                }
            ),
            "b": [max(1, max_bytes // 4), max_bytes, None, None, "model_visible_utf8", None],
            "r": [
                "fast",
                self.index_fingerprint,
                self.config_fingerprint,
                self.retrieval_fingerprint,
                None,
                None,
                ["lexicalSearch"],
                [],
            ],
            "e": [_evidence_tuple(e) for e in evidence],
            "g": ["untrusted_data", "hard_delimited", []],
            "c": coverage_section(self.plan.facets, covered),
            "o": _omission_section(omission_counts),
            "t": budget_hit,
            "trust": "untrusted_data",
        }

    def result(
        self,
        evidence: Sequence[ToolEvidence],
        covered: set[str] | frozenset[str],
        omission_counts: dict[str, int],
        budget_hit: bool,
    ) -> ToolResult:
        return bundle_result(self.payload(evidence, covered, omission_counts, budget_hit), evidence)


def _least_bytes(e: Span) -> int:
    """A lower bound of ``_string_bytes(_evidence_tuple(e))``: every character of its strings
    takes at least one byte, escaped or not."""
    return len(e.uri) + 2 * len(e.sourceHash) + len(e.spanHash) + len(e.text)


def least_line_bytes(files: Sequence[CorpusFile]) -> int:
    """A lower bound of ``_least_bytes`` over the lines of ``files``: a non-blank line has a
    character, and a span hash is a sha256 hex like a source hash."""
    return min((len(f.uri) + 3 * len(f.source_hash) + 1 for f in files), default=0)


def _string_bytes(value: JsonValue) -> int:
    """UTF-8 bytes of ``value``'s canonical JSON once written inside a JSON string, quotes
    excluded: what it adds to the projected result as a part of the content."""
    return len(canonical_bytes(canonical_text(value))) - 2


class BundleBound:
    """Visible bytes of the bound bundle (worst omission counts, ``t`` false) of any selection,
    summed from parts: serializing the whole bundle every selection round made selection
    quadratic in the lines of the hits.

    The projected result is canonical JSON whose one varying part is the content string, the
    canonical payload; in the payload only the ``e`` tuples and the coverage section vary with
    the selection (``id`` is always a sha256 hex). JSON escaping is per character, so

        bytes(selected) = bytes([]) + sum(tuple(c)) + (len(selected) - 1) commas
                          + coverage(covered) - coverage(nothing covered).

    ``select_groups`` asks about the selection so far plus one candidate, and the selection so
    far only grows by appending, so running totals are kept (and recomputed if it ever did not).
    """

    def __init__(
        self, empty_bytes: int, facets: tuple[str, ...], budget: int, least_tuple: int
    ) -> None:
        """``least_tuple``: a lower bound of ``_least_bytes`` over every candidate."""
        self._empty = empty_bytes
        self._facets = facets
        self._budget = budget
        self._least_tuple = least_tuple
        self._coverage: dict[frozenset[str], int] = {}
        self._nothing_covered = self._coverage_bytes(frozenset())
        # An entry of the "not found" list is the facet as covered plus a good 20 bytes; moving
        # facets between the lists saves at most the one comma of a list left empty.
        self._least_coverage = self._coverage_bytes(frozenset(facets)) - 1
        self._prefix: list[Candidate] = []
        self._prefix_tuples = 0
        self._prefix_covered: set[str] = set()
        self._last_tuple: tuple[Candidate | None, int] = (None, 0)  # the last one serialized

    def size(self, chosen: Sequence[Candidate]) -> int:
        if not chosen:
            return self._empty
        return self._all_but_last_tuple(chosen) + self._tuple_bytes(chosen[-1])

    def fits(self, chosen: Sequence[Candidate]) -> bool:
        """``size(chosen) <= budget``; a candidate whose tuple is too large even at its least
        (``_least_bytes``) is refused without serializing it."""
        if not chosen:
            return self._empty <= self._budget
        rest = self._all_but_last_tuple(chosen)
        e = chosen[-1].evidence
        if rest + _least_bytes(e) > self._budget:
            return False
        return rest + self._tuple_bytes(chosen[-1]) <= self._budget

    def full(self, selected: Sequence[Candidate]) -> bool:
        """No candidate at all would fit beside ``selected``, even the least tuple with every
        facet covered (the least coverage section): ``select_groups`` may stop trying."""
        self._advance(selected)
        rest = self._empty + self._prefix_tuples + len(selected) - self._nothing_covered
        return rest + self._least_coverage + self._least_tuple > self._budget

    def _all_but_last_tuple(self, chosen: Sequence[Candidate]) -> int:
        self._advance(chosen[:-1])
        coverage = self._coverage_bytes(frozenset(self._prefix_covered | chosen[-1].facet_set))
        commas = len(chosen) - 1
        return self._empty + self._prefix_tuples + commas + coverage - self._nothing_covered

    def _advance(self, prefix: Sequence[Candidate]) -> None:
        known = len(self._prefix)
        if list(prefix[:known]) != self._prefix:
            self._prefix, self._prefix_tuples, self._prefix_covered = [], 0, set()
            known = 0
        for candidate in prefix[known:]:
            self._prefix.append(candidate)
            self._prefix_tuples += self._tuple_bytes(candidate)
            self._prefix_covered.update(candidate.facets)

    def _tuple_bytes(self, candidate: Candidate) -> int:
        """A candidate's tuple bytes; a selected one was just serialized when it was tried."""
        last, size = self._last_tuple
        if candidate is not last:
            size = _string_bytes(_evidence_tuple(candidate.evidence))
            self._last_tuple = (candidate, size)
        return size

    def _coverage_bytes(self, covered: frozenset[str]) -> int:
        size = self._coverage.get(covered)
        if size is None:
            size = self._coverage[covered] = _string_bytes(coverage_section(self._facets, covered))
        return size


# --- the search -----------------------------------------------------------------------------------


def _omission_counts(lines: LineGroups, outcome: GroupSelection) -> dict[str, int]:
    """Per reason; the lines are never duplicates or overlaps (see the module docstring)."""
    counts = {reason: outcome.count(reason) for reason in OMISSION_REASONS}
    counts[REDUNDANT_COVERAGE] += lines.redundant
    return counts


def select_bundle(
    bundler: Bundler,
    files: Sequence[CorpusFile],
    tables: LineTables,
    tick: Callable[[], None] = lambda: None,
) -> ToolResult:
    """The bundle of the lines of ``files`` (the hits, in retrieval order) within the task's
    byte budget; ``tick`` is called once per selection round (deadline checks)."""
    budget = bundler.task.budgets.maxModelVisibleBytes
    one_call = bundler.task.budgets.maxAgentCalls == 1
    lines = line_groups(files, bundler.plan.facets, tables, one_call=one_call)
    worst_counts = {reason: lines.total for reason in POSSIBLE_REASONS}
    empty_bytes = visible_bytes(bundler.result([], set(), worst_counts, False))
    bound = BundleBound(empty_bytes, bundler.plan.facets, budget, least_line_bytes(files))
    outcome = select_groups(lines.groups, fits=bound.fits, full=bound.full, tick=tick)
    counts = _omission_counts(lines, outcome)
    evidence = cited_evidence(files, outcome.selected)
    covered = {f for c in outcome.selected for f in c.facets}
    result = bundler.result(evidence, covered, counts, counts[GLOBAL_BUDGET] > 0)
    if visible_bytes(result) > budget:
        raise AdapterCallError(
            "capsule_budget_exceeded", "product_error", "evidence bundle exceeds the byte budget"
        )
    return result


def capsule_search(
    context: indexed.SearchContext,
    arguments: JsonObject,
    deadline: float,
    *,
    tables: LineTables | None = None,
) -> CallOutcome:
    """One capsule search; ``tables`` are the adapter's line tables (a fresh set if none)."""
    task = context.task
    plan = plan_query(str(arguments["query"]), tuple(c.claimKey for c in task.claims))
    scopes = search_scopes(context, arguments)
    limit = as_int(arguments.get("limit", DEFAULT_LIMIT), "limit")
    uris = retrieve_uris(context, plan, scopes, limit, deadline)
    reader = reads.DocumentReader(index=context.index, snapshot=context.snapshot)
    files = [reader.read(uri, deadline) for uri in uris]
    stages = {
        "queryPlanning": 1,
        "lexicalSearch": len(plan.variants) * len(scopes),
        "sourceRead": reads.INVOCATIONS_PER_READ * len(uris),
        "selection": 1,
        "finalization": 1,
    }
    bundler = Bundler(
        task=task,
        plan=plan,
        index_fingerprint=context.index_fingerprint,
        config_fingerprint=context.config_fingerprint,
        retrieval_fingerprint=fingerprint({"variants": list(plan.variants), "stages": stages}),
    )
    tick = functools.partial(indexed.check_deadline, deadline)
    result = select_bundle(bundler, files, tables or LineTables(), tick)
    return CallOutcome(result=result, backend_invocations=sum(stages.values()))


class CapsuleAdapter(indexed.IndexedAdapter):
    """One-call evidence bundles over the shared lexical index (evaluation only)."""

    def __init__(self, snapshot: CorpusSnapshot) -> None:
        search = functools.partial(capsule_search, tables=LineTables())
        super().__init__(ADAPTER_ID, CONFIG, search, snapshot)
