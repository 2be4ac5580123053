"""What a pair records beyond the contract's receipt, as typed notes: one encoder, one decoder.

The contract leaves one place for what the kit measures of a pair beyond its canonical receipt:
``observations.diagnostics``, a list of strings, cut to ``redaction.MAX_MESSAGE`` characters
each. A kit note is one such string: its kind, ``": "``, and the RFC 8785 JSON of its fields,
each note short enough never to be cut. Everything else in diagnostics (an error's redacted
message, a backend's own remark) is free text, which ``decode`` leaves alone (None).

The notes:

- ``llm_usage``: the prompt and completion tokens an endpoint reported for a pair's requests;
- ``llm_answer``: one cache entry a pair recorded or reused, in the order it was asked (what a
  pruned cache must keep, and when each answer was given);
- ``llm_answers``: how many entries the pair used, and their digest;
- ``rate_limited``: a 429 the endpoint's agent waited out.

Readers (recording speed, cache pruning, the docs generator) call ``decode`` and match on the
type; no reader parses a note's text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentic.contract.canonical import canonical_text
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import parse_strict

Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
Count = Annotated[int, Field(ge=0)]
CacheMode = Literal["record", "reuse"]


class _Note(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class LlmUsage(_Note):
    """Tokens the endpoint reported (OpenAI ``usage``) over ``reported`` of ``requests``:
    ``prompt`` and ``completion`` tokens. (A field named for keys or tokens would read as a
    credential to the redaction every diagnostic passes through.)"""

    kind: Literal["llm_usage"] = "llm_usage"
    requests: Count
    reported: Count
    prompt: Count
    completion: Count


class LlmAnswer(_Note):
    """Answer ``index`` of ``of`` a pair used: ``entry`` is its cache key."""

    kind: Literal["llm_answer"] = "llm_answer"
    mode: CacheMode
    index: Annotated[int, Field(ge=1)]
    of: Annotated[int, Field(ge=1)]
    entry: Sha256


class LlmAnswers(_Note):
    """How many cache entries a pair used, and the digest of them in order."""

    kind: Literal["llm_answers"] = "llm_answers"
    mode: CacheMode
    count: Count
    digest: Sha256


class RateLimited(_Note):
    """A 429 waited out before ``attempt`` + 1."""

    kind: Literal["rate_limited"] = "rate_limited"
    waitedS: Annotated[float, Field(ge=0)]
    attempt: Annotated[int, Field(ge=1)]


PairNote = LlmUsage | LlmAnswer | LlmAnswers | RateLimited
KINDS: dict[str, type[PairNote]] = {
    "llm_usage": LlmUsage,
    "llm_answer": LlmAnswer,
    "llm_answers": LlmAnswers,
    "rate_limited": RateLimited,
}
SEPARATOR = ": "
N = TypeVar("N", LlmUsage, LlmAnswer, LlmAnswers, RateLimited)


def encode(note: PairNote) -> str:
    """The diagnostics string of ``note``: its kind, then its fields' canonical JSON."""
    fields = note.model_dump(exclude={"kind"})
    return f"{note.kind}{SEPARATOR}{canonical_text(fields)}"


def decode(text: str) -> PairNote | None:
    """The note ``text`` encodes; None for free text (no kit note's kind before the separator).
    A kit note's kind with fields that do not fit it is an error: such a note was written by no
    version of this module, so the report holding it is not one this kit can read."""
    kind, separator, payload = text.partition(SEPARATOR)
    model = KINDS.get(kind) if separator else None
    if model is None:
        return None
    try:
        return model.model_validate(parse_strict(payload, source=f"a {kind} note"))
    except (ContractError, ValidationError) as exc:
        raise ContractError(
            "invalid_report", f"a {kind} note does not fit its kind: {exc}"
        ) from None


def notes_of(texts: Iterable[str], kind: type[N]) -> Iterator[N]:
    """The notes of one kind among diagnostics, in order."""
    for text in texts:
        note = decode(text)
        if isinstance(note, kind):
            yield note
