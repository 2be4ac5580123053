"""A pair's kit notes (``contract/pair_notes.py``): each note is one short diagnostics string
that decodes to the note it encodes; free text decodes to nothing; a kit note's kind with
fields that do not fit it is refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.contract.errors import ContractError
from agentic.contract.pair_notes import (
    LlmAnswer,
    LlmAnswers,
    LlmUsage,
    PairNote,
    RateLimited,
    decode,
    encode,
    notes_of,
)
from agentic.runner.redaction import MAX_MESSAGE, redact

counts = st.integers(min_value=0, max_value=10**9)
keys = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
modes = st.sampled_from(["record", "reuse"])
notes = st.one_of(
    st.builds(LlmUsage, requests=counts, reported=counts, prompt=counts,
              completion=counts),
    st.builds(LlmAnswer, mode=modes, index=st.integers(1, 10**6), of=st.integers(1, 10**6),
              entry=keys),
    st.builds(LlmAnswers, mode=modes, count=counts, digest=keys),
    st.builds(RateLimited, waitedS=st.floats(0, 3600, allow_nan=False), attempt=st.integers(1, 10)),
)  # fmt: skip


@given(notes)
def test_a_note_decodes_to_itself(note: PairNote) -> None:
    assert decode(encode(note)) == note


@given(notes)
def test_a_note_survives_redaction_whole(note: PairNote) -> None:
    text = encode(note)
    assert redact(text) == text and len(text) <= MAX_MESSAGE


@pytest.mark.parametrize(
    "text",
    ["tool_timeout: search exceeded 30 s", "no separator here", "kind_unknown: {}", ""],
)
def test_free_text_is_no_note(text: str) -> None:
    assert decode(text) is None


def test_a_notes_kind_with_fields_that_do_not_fit_is_refused() -> None:
    with pytest.raises(ContractError, match="llm_usage note does not fit"):
        decode('llm_usage: {"requests":1}')


def test_notes_of_one_kind_are_read_in_order_among_others() -> None:
    first, second = (RateLimited(waitedS=s, attempt=1) for s in (1.0, 2.0))
    summary = LlmAnswers(mode="record", count=0, digest="0" * 64)
    texts = [encode(first), "free text", encode(summary), encode(second)]
    assert list(notes_of(texts, RateLimited)) == [first, second]
