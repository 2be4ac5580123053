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

How the rounds run fast (a search over long pages has thousands of candidates, and as many
rounds once the budget is reached, so scanning every candidate per round was quadratic):

- Candidates of one URI with one facet set form a ``Group``: they always have the same uncovered
  facets and turn redundant together, so they are tried in priority order, and once one is
  selected the rest are redundant. Only a group's next member is on the heap, and a group may
  build its members when first needed (the capsule builds few of its lines' candidates).
- A count of uncovered facets can only fall as coverage grows, so the heap is keyed by the count
  last computed, then priority, or a floor of it while the member is not built: a stored entry
  is never above the true one, and an entry that is built and still true when it comes out on
  top is the round's best.
- Once the budget can take no candidate at all (``full``), the rest are omitted at once, as
  each would be refused in its round.

``tests/adapters/test_capsule_select.py`` holds the rule written plainly and checks that both
agree.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentic.contract.jsrules import utf16_key

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
Priority = tuple[int, int, int, Coordinate]


class Span(Protocol):
    """What selection and the bundle read of a candidate's evidence; ``ToolEvidence`` has it, and
    so does anything lighter that a caller turns into ``ToolEvidence`` once selected. The names
    are the contract's (camelCase), as on ``ToolEvidence``."""

    @property
    def uri(self) -> str: ...
    @property
    def sourceHash(self) -> str: ...  # noqa: N802
    @property
    def startLine(self) -> int: ...  # noqa: N802
    @property
    def endLine(self) -> int: ...  # noqa: N802
    @property
    def spanHash(self) -> str: ...  # noqa: N802
    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class Candidate:
    evidence: Span
    retrieval_rank: int
    facets: tuple[str, ...]
    # Derived once: a selection over a long page ranks thousands of candidates every round.
    facet_set: frozenset[str] = field(init=False, repr=False, compare=False)
    coordinate: Coordinate = field(init=False, repr=False, compare=False)
    priority: Priority = field(init=False, repr=False, compare=False)

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
Full = Callable[[Sequence[Candidate]], bool]


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

    def omission(self, e: Span) -> str | None:
        if (e.startLine, e.endLine, e.spanHash) in self.spans:
            return DUPLICATE
        first_reaching = bisect.bisect_left(self.ends, e.startLine)
        if first_reaching < len(self.starts) and self.starts[first_reaching] <= e.endLine:
            return OVERLAP
        return None

    def keep(self, e: Span) -> None:
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


class Group:
    """Collapsed candidates of one URI with one (non-empty) facet set, in priority order.
    ``member(i)`` builds the i-th of ``size``, asked once and only when it is needed;
    ``floor(i)`` is a lower bound of its priority that costs less, so that a member is built only
    when it comes out on top of the heap (most never do)."""

    __slots__ = ("facet_set", "size", "tried", "uri")

    def __init__(self, uri: str, facet_set: frozenset[str], size: int) -> None:
        self.uri = uri
        self.facet_set = facet_set
        self.size = size
        self.tried = 0  # members taken out of the group so far, selected or over budget

    def member(self, index: int) -> Candidate:
        raise NotImplementedError

    def floor(self, index: int) -> tuple[Any, ...]:
        raise NotImplementedError


class BuiltGroup(Group):
    """A group of candidates already built: a floor is the priority itself."""

    __slots__ = ("_candidates",)

    def __init__(self, candidates: Sequence[Candidate]) -> None:
        super().__init__(candidates[0].uri, candidates[0].facet_set, len(candidates))
        self._candidates = candidates

    def member(self, index: int) -> Candidate:
        return self._candidates[index]

    def floor(self, index: int) -> Priority:
        return self._candidates[index].priority


@dataclass(frozen=True)
class Omitted:
    """Members ``start`` to ``stop - 1`` of a group, omitted for one reason (and perhaps never
    built)."""

    group: Group
    start: int
    stop: int
    reason: str


@dataclass(frozen=True)
class GroupSelection:
    """The greedy rounds' outcome: ``selected`` in coordinate order, and every other member of
    the groups in ``omitted``."""

    selected: tuple[Candidate, ...]
    omitted: tuple[Omitted, ...]

    def count(self, reason: str) -> int:
        return sum(o.stop - o.start for o in self.omitted if o.reason == reason)


class _Rounds:
    """The groups not yet used up, on a heap of (minus the uncovered facets of the group when last
    keyed, the priority of its next member or while that is not built its floor, group position,
    the member or None, group). Every entry is at most what it stands for, so one whose member is
    built and whose key is still true when it comes out on top is the round's best. Priorities
    are unique after the collapse; the position breaks any tie as the first of equals would."""

    def __init__(self, groups: Iterable[Group]) -> None:
        self._heap: list[tuple[int, tuple[Any, ...], int, Candidate | None, Group]] = []
        self.covered_by_uri: dict[str, set[str]] = {}
        self.covered: set[str] = set()
        self.omitted: list[Omitted] = []
        for position, group in enumerate(groups):
            self._heap.append((-len(group.facet_set), group.floor(0), position, None, group))
        heapq.heapify(self._heap)

    def push(
        self, position: int, group: Group, head: Candidate | None, order: tuple[Any, ...]
    ) -> None:
        """Put a group's next member (``head``, or None until built) back on the heap, keyed by
        what the group covers now."""
        key = -len(group.facet_set - self.covered)
        heapq.heappush(self._heap, (key, order, position, head, group))

    def push_next(self, position: int, group: Group) -> None:
        self.push(position, group, None, group.floor(group.tried))

    def redundant(self, group: Group) -> bool:
        """Its facets are covered in its URI; it stays so, as coverage only grows."""
        return group.facet_set <= self.covered_by_uri.get(group.uri, set())

    def best(self) -> tuple[int, Candidate, Group] | None:
        """The round's best and its group, out of the heap; groups found redundant on the way
        are used up."""
        while self._heap:
            key, order, position, head, group = heapq.heappop(self._heap)
            if self.redundant(group):
                self.omit_rest(group, REDUNDANT_COVERAGE)
            elif -len(group.facet_set - self.covered) != key:
                self.push(position, group, head, order)
            elif head is None:
                head = group.member(group.tried)
                self.push(position, group, head, head.priority)
            else:
                group.tried += 1
                return position, head, group
        return None

    def cover(self, candidate: Candidate) -> None:
        self.covered_by_uri.setdefault(candidate.uri, set()).update(candidate.facets)
        self.covered.update(candidate.facets)

    def omit_rest(self, group: Group, reason: str) -> None:
        if group.tried < group.size:
            self.omitted.append(Omitted(group, group.tried, group.size, reason))

    def refuse_all(self) -> None:
        """Use every group up when nothing can be selected any more: each member left would be
        tried and refused in turn, or found redundant first, and coverage would not change."""
        for *_, group in self._heap:
            self.omit_rest(group, REDUNDANT_COVERAGE if self.redundant(group) else GLOBAL_BUDGET)
        self._heap.clear()


def select_groups(
    groups: Iterable[Group],
    *,
    fits: Fits,
    tick: Callable[[], None] = lambda: None,
    full: Full | None = None,
) -> GroupSelection:
    """Step 4 over groups of candidates already filtered (step 1) and collapsed (step 3), none
    without a facet; ``tick`` is called once per round (deadline checks).

    ``fits`` is always asked about the selection so far plus one candidate, and the selection so
    far only grows, by appending: a ``fits`` may keep running totals (the capsule's bound does).
    ``full(selected)``, if given, says that no candidate at all would fit beside ``selected``:
    the rest are then omitted at once instead of being refused one round each (a search over
    long pages reaches its budget early and has thousands left).
    """
    rounds = _Rounds(groups)
    selected: list[Candidate] = []
    while True:
        tick()
        found = rounds.best()
        if found is None:
            break
        position, best, group = found
        if not fits([*selected, best]):
            rounds.omitted.append(Omitted(group, group.tried - 1, group.tried, GLOBAL_BUDGET))
            if group.tried < group.size:
                rounds.push_next(position, group)
            continue
        selected.append(best)
        rounds.cover(best)
        rounds.omit_rest(group, REDUNDANT_COVERAGE)
        if full is not None and full(selected):
            rounds.refuse_all()
    return GroupSelection(
        selected=tuple(sorted(selected, key=lambda c: c.coordinate)),
        omitted=tuple(rounds.omitted),
    )


def _groups(candidates: list[Candidate]) -> list[Group]:
    """Candidates (in priority order) grouped by URI and facet set, keeping that order."""
    members: dict[tuple[str, frozenset[str]], list[Candidate]] = {}
    for candidate in candidates:
        members.setdefault((candidate.uri, candidate.facet_set), []).append(candidate)
    return [BuiltGroup(group) for group in members.values()]


def select(
    candidates: Sequence[Candidate],
    *,
    one_call: bool,
    fits: Fits,
    tick: Callable[[], None] = lambda: None,
    full: Full | None = None,
) -> Selection:
    """Select evidence lines; ``tick``, ``fits`` and ``full`` as for ``select_groups``."""
    remaining = list(candidates)
    omissions: list[Omission] = []
    if one_call:
        remaining, dropped = _one_call_filter(remaining)
        omissions.extend(dropped)
    remaining, collapsed = _collapse(remaining)
    omissions.extend(collapsed)
    # Round one omits every candidate without a facet; nothing is covered yet.
    omissions.extend(Omission(c, REDUNDANT_COVERAGE) for c in remaining if not c.facets)
    groups = _groups([c for c in remaining if c.facets])
    outcome = select_groups(groups, fits=fits, tick=tick, full=full)
    omissions.extend(
        Omission(o.group.member(n), o.reason)
        for o in outcome.omitted
        for n in range(o.start, o.stop)
    )
    return Selection(
        selected=outcome.selected,
        omissions=tuple(sorted(omissions, key=lambda o: (o.candidate.coordinate, o.reason))),
    )
