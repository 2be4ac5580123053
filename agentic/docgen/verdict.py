"""A real model's verdict on the backends of one lane, read from its committed report.

What a backend's users ask of a lane run by a real model: how often does the agent succeed with
each backend (and how sure is that rate), is one backend better than another beyond noise, does
the scripted fixture agent rank the backends as the model does, and what does the model get
wrong. Everything here is a pure function of report documents (``report.json`` as parsed):

- success per adapter with its Wilson 95% interval;
- the exact McNemar test between every two adapters, paired by task (and trial): only the tasks
  one adapter passes and the other fails carry information;
- the agreement of two rankings (the model's and the fixture agent's, on the adapters both
  ran), pair by pair of adapters: the same order, the opposite one, or a tie on one side;
- the primary cause of each failed pair (``report.outcomes.missed_terms``, its first term),
  counted per adapter.

Only one lifecycle is read (``cold`` by default): cold and warm pairs of one task are not
independent, and the statistics assume independent units (``report/stats.py``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from agentic.contract.json_access import member, object_at, objects_at
from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import TaskScore
from agentic.contract.strict_json import JsonObject
from agentic.report.outcomes import incomplete_causes, missed_terms
from agentic.report.stats import Interval, PairedDifference, paired_difference, wilson_interval

# One pair of a lane: its task and trial.
Unit = tuple[str, str]


@dataclass(frozen=True)
class AdapterSuccess:
    adapter: str
    successes: int
    pairs: int

    @property
    def rate(self) -> float:
        return self.successes / self.pairs

    @property
    def interval(self) -> Interval:
        return wilson_interval(self.successes, self.pairs)


@dataclass(frozen=True)
class AdapterPair:
    """Adapter ``first`` against ``second`` over the units both scored: ``difference.worse``
    counts the units only ``first`` passes, ``difference.better`` those only ``second`` passes."""

    first: str
    second: str
    units: int
    difference: PairedDifference


Order = Literal["agree", "disagree", "tie"]


@dataclass(frozen=True)
class RankAgreement:
    """How two rankings order ``first`` and ``second``: each as ``>``, ``<`` or ``=``."""

    first: str
    second: str
    model: str
    scripted: str

    @property
    def order(self) -> Order:
        if "=" in (self.model, self.scripted):
            return "tie"
        return "agree" if self.model == self.scripted else "disagree"


def outcomes(document: JsonObject, lifecycle: str = "cold") -> dict[str, dict[Unit, bool]]:
    """Each adapter's scored pairs of ``lifecycle``: success by (task, trial). Excluded pairs
    are left out (a lane of a real model must have none; its report says so if it does)."""
    by_adapter: dict[str, dict[Unit, bool]] = {}
    for record in objects_at(document, "scores"):
        score = object_at(record, "score")
        if record["lifecycle"] != lifecycle or not score["scored"]:
            continue
        unit = (str(record["taskId"]), str(record["trialId"]))
        by_adapter.setdefault(str(record["adapterId"]), {})[unit] = bool(score["success"])
    return dict(sorted(by_adapter.items()))


def successes(by_adapter: Mapping[str, Mapping[Unit, bool]]) -> list[AdapterSuccess]:
    """Each adapter's success, best first (ties by name)."""
    rows = [AdapterSuccess(a, sum(units.values()), len(units)) for a, units in by_adapter.items()]
    return sorted((row for row in rows if row.pairs), key=lambda row: (-row.rate, row.adapter))


def adapter_pairs(by_adapter: Mapping[str, Mapping[Unit, bool]]) -> list[AdapterPair]:
    """The exact McNemar test of every two adapters, on the units both scored."""
    tests = []
    for first, second in itertools.combinations(sorted(by_adapter), 2):
        shared = sorted(by_adapter[first].keys() & by_adapter[second].keys())
        only_first = sum(by_adapter[first][u] and not by_adapter[second][u] for u in shared)
        only_second = sum(by_adapter[second][u] and not by_adapter[first][u] for u in shared)
        difference = paired_difference(only_first, only_second)
        tests.append(AdapterPair(first, second, len(shared), difference))
    return tests


def _relation(rates: Mapping[str, float], first: str, second: str) -> str:
    if rates[first] == rates[second]:
        return "="
    return ">" if rates[first] > rates[second] else "<"


def rank_agreement(
    model: Sequence[AdapterSuccess], scripted: Sequence[AdapterSuccess]
) -> list[RankAgreement]:
    """For every two adapters both rankings hold, whether they order them alike."""
    model_rates = {row.adapter: row.rate for row in model}
    scripted_rates = {row.adapter: row.rate for row in scripted}
    shared = sorted(model_rates.keys() & scripted_rates.keys())
    return [
        RankAgreement(
            first,
            second,
            _relation(model_rates, first, second),
            _relation(scripted_rates, first, second),
        )
        for first, second in itertools.combinations(shared, 2)
    ]


def primary_cause(receipt: CanonicalReceipt, score: TaskScore) -> str:
    """A failed pair's first missed term without its particulars (the claim keys): the kind of
    thing that went wrong, so that causes can be counted. An incomplete pair is told apart by
    what it lacked first (``report.outcomes.incomplete_causes``)."""
    terms = missed_terms(receipt, score)
    if not terms:
        return "success"
    if terms[0].startswith("incomplete"):
        return f"incomplete: {incomplete_causes(receipt, score)[0][0]}"
    return terms[0]


def failure_causes(document: JsonObject, lifecycle: str = "cold") -> dict[str, Counter[str]]:
    """Each adapter's failed pairs of ``lifecycle``, counted by primary cause."""
    canonicals = [object_at(receipt, "canonical") for receipt in objects_at(document, "receipts")]
    receipts = {
        _key(canonical): canonical
        for canonical in canonicals
        if canonical["lifecycle"] == lifecycle
    }
    causes: dict[str, Counter[str]] = {}
    for record in objects_at(document, "scores"):
        if record["lifecycle"] != lifecycle or member(record, "score", "success"):
            continue
        canonical = receipts[_key(record)]
        receipt = CanonicalReceipt.model_validate(canonical)
        score = TaskScore.model_validate(record["score"])
        causes.setdefault(str(record["adapterId"]), Counter())[primary_cause(receipt, score)] += 1
    return dict(sorted(causes.items()))


def _key(document: JsonObject) -> tuple[str, str, str]:
    return (str(document["adapterId"]), str(document["taskId"]), str(document["trialId"]))
