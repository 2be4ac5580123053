"""Capsule evidence selection, ``marginal-facet-coverage-v1`` (contract v1, 5.2 step 5).

1. One-call special case: when the task allows a single agent call, only the candidates with
   the highest facet count stay; every other one is omitted as ``redundant_coverage``.
2. Priority = (more facets, lower retrieval rank, shorter span, coordinate order).
3. Collapse, in priority order: an exact duplicate coordinate is omitted as ``duplicate``, a
   range overlapping a kept one of the same URI as ``overlap``.
4. Greedy rounds. Each round first omits as ``redundant_coverage`` every remaining candidate with
   no facet or whose facets are all covered by lines already selected from the same URI (coverage
   is per URI, so a second document backing the same facet is still chosen). Then the candidate
   covering most globally uncovered facets (ties by priority) is taken; if the result with it
   would not fit the byte budget (``fits`` says so) it is omitted as ``global_budget``, otherwise
   it is selected.

Selected lines come out in coordinate order; omissions in (coordinate, reason) order.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agentic.contract.jsrules import utf16_key
from agentic.contract.receipt import ToolEvidence

DUPLICATE = "duplicate"
OVERLAP = "overlap"
GLOBAL_BUDGET = "global_budget"
REDUNDANT_COVERAGE = "redundant_coverage"
# Every omission reason of the payload, in its fixed order; the last three never occur here.
OMISSION_REASONS: tuple[str, ...] = (
    DUPLICATE,
    OVERLAP,
    GLOBAL_BUDGET,
    REDUNDANT_COVERAGE,
    "document_share_cap",
    "filtered_by_scope",
    "invalid_coordinates",
)
POSSIBLE_REASONS: tuple[str, ...] = OMISSION_REASONS[:4]

Coordinate = tuple[bytes, str, int, int, str]


@dataclass(frozen=True)
class Candidate:
    evidence: ToolEvidence
    retrieval_rank: int
    facets: tuple[str, ...]
    # Derived once: a selection over a long page ranks thousands of candidates every round.
    facet_set: frozenset[str] = field(init=False, repr=False, compare=False)
    coordinate: Coordinate = field(init=False, repr=False, compare=False)
    priority: tuple[int, int, int, Coordinate] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        e = self.evidence
        coordinate = (utf16_key(e.uri), e.sourceHash, e.startLine, e.endLine, e.spanHash)
        priority = (-len(self.facets), self.retrieval_rank, e.endLine - e.startLine, coordinate)
        object.__setattr__(self, "facet_set", frozenset(self.facets))
        object.__setattr__(self, "coordinate", coordinate)
        object.__setattr__(self, "priority", priority)

    @property
    def uri(self) -> str:
        return self.evidence.uri


@dataclass(frozen=True)
class Omission:
    candidate: Candidate
    reason: str


@dataclass(frozen=True)
class Selection:
    selected: tuple[Candidate, ...]
    omissions: tuple[Omission, ...]

    def count(self, reason: str) -> int:
        return sum(1 for o in self.omissions if o.reason == reason)


Fits = Callable[[Sequence[Candidate]], bool]


def _one_call_filter(candidates: list[Candidate]) -> tuple[list[Candidate], list[Omission]]:
    if not candidates:
        return [], []
    most = max(len(c.facets) for c in candidates)
    kept = [c for c in candidates if len(c.facets) == most]
    dropped = [Omission(c, REDUNDANT_COVERAGE) for c in candidates if len(c.facets) != most]
    return kept, dropped


@dataclass
class _KeptRanges:
    """The line ranges kept from one URI. They never overlap (an overlapping one is omitted), so
    sorted by start they are sorted by end too and one bisection finds any overlap."""

    spans: set[tuple[int, int, str]] = field(default_factory=set)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)

    def omission(self, e: ToolEvidence) -> str | None:
        if (e.startLine, e.endLine, e.spanHash) in self.spans:
            return DUPLICATE
        first_reaching = bisect.bisect_left(self.ends, e.startLine)
        if first_reaching < len(self.starts) and self.starts[first_reaching] <= e.endLine:
            return OVERLAP
        return None

    def keep(self, e: ToolEvidence) -> None:
        self.spans.add((e.startLine, e.endLine, e.spanHash))
        at = bisect.bisect_left(self.starts, e.startLine)
        self.starts.insert(at, e.startLine)
        self.ends.insert(at, e.endLine)


def _collapse(candidates: list[Candidate]) -> tuple[list[Candidate], list[Omission]]:
    kept: list[Candidate] = []
    kept_by_uri: dict[str, _KeptRanges] = {}
    omitted: list[Omission] = []
    for candidate in sorted(candidates, key=lambda c: c.priority):
        ranges = kept_by_uri.setdefault(candidate.uri, _KeptRanges())
        reason = ranges.omission(candidate.evidence)
        if reason is None:
            kept.append(candidate)
            ranges.keep(candidate.evidence)
        else:
            omitted.append(Omission(candidate, reason))
    return kept, omitted


def select(
    candidates: Sequence[Candidate],
    *,
    one_call: bool,
    fits: Fits,
    tick: Callable[[], None] = lambda: None,
) -> Selection:
    """Select evidence lines; ``tick`` is called once per round (deadline checks)."""
    remaining = list(candidates)
    omissions: list[Omission] = []
    if one_call:
        remaining, dropped = _one_call_filter(remaining)
        omissions.extend(dropped)
    remaining, collapsed = _collapse(remaining)
    omissions.extend(collapsed)
    selected: list[Candidate] = []
    covered_by_uri: dict[str, set[str]] = {}
    covered: set[str] = set()
    # Redundancy can only change for the URI whose coverage grew last round (None: check all).
    grown: str | None = None
    check_all = True
    while True:
        tick()
        still: list[Candidate] = []
        for c in remaining:
            stale = check_all or c.evidence.uri == grown
            if stale and (not c.facets or c.facet_set <= covered_by_uri.get(c.uri, set())):
                omissions.append(Omission(c, REDUNDANT_COVERAGE))
            else:
                still.append(c)
        check_all, grown = False, None
        if not still:
            break
        # Only the best candidate matters: every order that comes out is sorted at the end.
        best = min(still, key=lambda c: (-len(c.facet_set - covered), c.priority))
        remaining = [c for c in still if c is not best]
        if not fits([*selected, best]):
            omissions.append(Omission(best, GLOBAL_BUDGET))
            continue
        selected.append(best)
        grown = best.uri
        covered_by_uri.setdefault(best.uri, set()).update(best.facets)
        covered.update(best.facets)
    return Selection(
        selected=tuple(sorted(selected, key=lambda c: c.coordinate)),
        omissions=tuple(sorted(omissions, key=lambda o: (o.candidate.coordinate, o.reason))),
    )
