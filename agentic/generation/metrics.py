"""Deterministic answer metrics: regexes and number matching only, no judge model.

- ``correct``: every ``mustInclude`` regex matches and no ``mustNotInclude`` regex does
  (case-insensitive ``re.search``).
- ``refused``: the answer declines (first-person "I don't know"-style phrasings, "there is no
  information"). ``refusalCorrect``: refused exactly when the golden expects a refusal, so hedging
  on an answerable question fails as surely as answering an out-of-corpus one.
- ``passed`` = correct and refusalCorrect: the pass/fail that repeats check for stability.
- ``leaked``: the answer narrates retrieval ("according to the context", "Context 2", "the
  knowledge base"), which the prompt forbids.
- ``thinkTagLeak``: a reasoning tag (``<think>`` and kin) reached the answer.
- groundedness: of the answer's numbers above 10, the share that also occur in the injected
  context. Small integers are left out because "step 2" and "3 layers" appear in any prose and
  would swamp the signal. It only sees numbers: an answer that invents a name or a procedure
  scores 1.0, so it is a fabrication detector, not a faithfulness guarantee. An answer with no
  such number has no groundedness (null) rather than a free 1.0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from agentic.ranking.goldens import Golden

MIN_GROUNDED_NUMBER = 10

_REFUSALS = re.compile(
    r"\bI\s+(?:do\s+not|don't|cannot|can't|could\s+not|couldn't|am\s+unable\s+to)\s+"
    r"(?:know|find|answer|determine|tell)\b"
    r"|\bI'm\s+(?:not\s+sure|unable\s+to)\b"
    r"|\bthere(?:\s+is|'s)\s+no\s+(?:information|mention|record|data)\b"
    r"|\bnot\s+enough\s+information\b"
    r"|\bunable\s+to\s+(?:find|answer|determine)\b",
    re.IGNORECASE,
)
_LEAKS = re.compile(
    r"\bcontext\s*#?\s*\d+\b"
    r"|\b(?:according\s+to|based\s+on|as\s+stated\s+in|as\s+mentioned\s+in)\s+the\s+"
    r"(?:provided\s+|given\s+|retrieved\s+|reference\s+)?"
    r"(?:context|passages?|documents?|sources?|search\s+results|reference\s+text)\b"
    r"|\b(?:provided|given|retrieved|supplied)\s+(?:context|passages?|documents?|sources?)\b"
    r"|\breference\s+text\b"
    r"|\bknowledge\s+base\b",
    re.IGNORECASE,
)
_THINK_TAG = re.compile(r"<\s*/?\s*(?:think|thinking|reasoning|reflection)\s*>", re.IGNORECASE)
# ASCII digits only; 1,234,567 is one number when its groups are thousands, otherwise the comma
# separates two numbers.
_NUMBER = re.compile(r"[0-9]+(?:,[0-9]+)*(?:\.[0-9]+)?")
_THOUSANDS = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")


def _normalize_apostrophes(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u02bc", "'")


def is_refusal(answer: str) -> bool:
    return _REFUSALS.search(_normalize_apostrophes(answer)) is not None


def leaks_retrieval(answer: str) -> bool:
    return _LEAKS.search(answer) is not None


def has_think_tag(answer: str) -> bool:
    return _THINK_TAG.search(answer) is not None


def numbers(text: str) -> list[str]:
    """Numbers above MIN_GROUNDED_NUMBER in text order, normalized (``1,200.50`` -> ``1200.5``)."""
    found: list[str] = []
    for match in _NUMBER.finditer(text):
        token = match.group(0)
        parts = [token.replace(",", "")] if _THOUSANDS.fullmatch(token) else token.split(",")
        for part in parts:
            value = Decimal(part)
            if value > MIN_GROUNDED_NUMBER:
                found.append(format(value.normalize(), "f"))
    return found


def matches_all(patterns: tuple[str, ...], answer: str) -> bool:
    return all(re.search(p, answer, re.IGNORECASE) for p in patterns)


def matches_any(patterns: tuple[str, ...], answer: str) -> bool:
    return any(re.search(p, answer, re.IGNORECASE) for p in patterns)


@dataclass(frozen=True)
class AnswerScore:
    correct: bool
    refused: bool
    refusalCorrect: bool
    leaked: bool
    thinkTagLeak: bool
    numericClaims: int
    groundedClaims: int

    @property
    def passed(self) -> bool:
        return self.correct and self.refusalCorrect

    @property
    def groundedness(self) -> float | None:
        return self.groundedClaims / self.numericClaims if self.numericClaims else None


def score_answer(answer: str, golden: Golden, context: str) -> AnswerScore:
    """Score one answer to ``golden`` given the context text that was injected ('' for none)."""
    refused = is_refusal(answer)
    claimed = numbers(answer)
    available = set(numbers(context))
    return AnswerScore(
        correct=matches_all(golden.mustInclude, answer)
        and not matches_any(golden.mustNotInclude, answer),
        refused=refused,
        refusalCorrect=refused == golden.expectRefusal,
        leaked=leaks_retrieval(answer),
        thinkTagLeak=has_think_tag(answer),
        numericClaims=len(claimed),
        groundedClaims=sum(1 for n in claimed if n in available),
    )
