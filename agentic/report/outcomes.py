"""Why a pair did not succeed, in the terms of the scorer's success condition.

A scored pair succeeds when ``completed`` and not ``unnecessaryRead`` and ``collectionCorrect``
and ``filtersCorrect`` and its receipt's failure class is ``none`` (``scoring/score.py``). Each
missed term is named here with its field name, so a reader can find it in report.json; a
missed ``completed`` says which claim lists made it so. Derived text, never canonical.
"""

from __future__ import annotations

from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import TaskScore
from agentic.contract.text import clip

# An invalid output can be a whole schema message; a grid cell shows its start.
MAX_INVALID_CHARS = 48


def missed_terms(receipt: CanonicalReceipt, score: TaskScore) -> tuple[str, ...]:
    """The terms of the success condition this pair missed, in the condition's order (empty
    for a success). A failed receipt is named by its code alone: the failure decides the pair,
    and the terms it leaves unmet (no envelope, so not completed, say) are its consequences,
    which would hide the one real cause."""
    failure = receipt.failure
    if failure.class_ != "none":
        return (f"failure {failure.code or failure.class_}",)
    if not score.scored:
        return (f"excluded {score.exclusionReason}",)
    terms: list[str] = []
    if not score.completed:
        terms.append(f"incomplete: {incomplete_reason(receipt, score)}")
    if score.unnecessaryRead:
        terms.append("unnecessaryRead")
    if not score.collectionCorrect:
        terms.append("not collectionCorrect")
    if not score.filtersCorrect:
        terms.append("not filtersCorrect")
    return tuple(terms)


def incomplete_reason(receipt: CanonicalReceipt, score: TaskScore) -> str:
    """What kept a scored pair from ``completed``: the score's claim lists and invalid outputs,
    else how the envelope stopped."""
    return "; ".join(
        kind if detail is None else f"{kind} {detail}"
        for kind, detail in incomplete_causes(receipt, score)
    )


def incomplete_causes(receipt: CanonicalReceipt, score: TaskScore) -> list[tuple[str, str | None]]:
    """``incomplete_reason`` as (kind, particulars) pairs, first cause first: the kinds
    (``missing``, ``unsupported``, ``invalid``, ``no final envelope``, ...) can be counted."""
    causes: list[tuple[str, str | None]] = [
        (label, ",".join(keys))
        for label, keys in (
            ("missing", score.missingRequiredClaims),
            ("unsupported", score.unsupportedClaims),
            ("forbidden evidence", score.forbiddenEvidenceClaims),
        )
        if keys
    ]
    if score.invalidOutputs:
        causes.append(("invalid", _invalid_text(score.invalidOutputs)))
    if causes:
        return causes
    envelope = receipt.finalEnvelope
    if envelope is None:
        return [("no final envelope", None)]
    if envelope.abstained or envelope.stopReason != "complete":
        abstained = ", abstained" if envelope.abstained else ""
        return [("stopReason", f"{envelope.stopReason}{abstained}")]
    # Every claim supported and a complete stop, yet not completed: only a task that expects
    # an abstention scores an answer so (scoring/score.py, _correct_abstention).
    return [("answered where an abstention was expected", None)]


def _invalid_text(outputs: tuple[str, ...]) -> str:
    first = clip(outputs[0], MAX_INVALID_CHARS)
    more = f" (+{len(outputs) - 1} more)" if len(outputs) > 1 else ""
    return first + more
