"""What a pair's observations say of the LLM cache entries it used (``llm_cache.uses_notes``) and
how it is read back: ``used_keys`` for pruning a cache (all or nothing) and ``asked_order`` for
when a recording asked them."""

from __future__ import annotations

from agentic.agents.llm_cache import EntryUse, asked_order, used_keys, uses_notes
from agentic.runner.redaction import MAX_MESSAGE, redact


def _key(index: int) -> str:
    return f"{index:064x}"


def _uses(count: int) -> list[EntryUse]:
    return [EntryUse(_key(index), 200, "0" * 64) for index in range(1, count + 1)]


def test_every_answer_of_a_long_pair_is_named_in_a_note_no_diagnostic_clips() -> None:
    notes = uses_notes("record", _uses(40))
    assert all(redact(note) == note and len(note) <= MAX_MESSAGE for note in notes)
    assert used_keys(notes) == {_key(index) for index in range(1, 41)}


def test_the_notes_name_the_answers_in_the_order_asked() -> None:
    assert asked_order(uses_notes("reuse", _uses(3))) == [_key(1), _key(2), _key(3)]


def test_a_lane_whose_notes_miss_an_answer_they_count_prunes_nothing() -> None:
    notes = uses_notes("reuse", _uses(3))
    assert used_keys(notes[1:]) is None


def test_notes_that_name_no_entry_prune_nothing() -> None:
    summary = uses_notes("reuse", _uses(1))[-1]
    assert used_keys([summary, "another diagnostic"]) is None


def test_free_text_diagnostics_name_no_answer() -> None:
    assert asked_order(["tool_timeout: search exceeded 30 s", "llm_answer without fields"]) == []


def test_notes_that_name_no_answer_at_all_prune_nothing() -> None:
    # Notes another version of the kit wrote read as free text: never as "no answer was used".
    older = "llm_cache record: answer 1 of 1 " + _key(1)
    assert used_keys([older, "tool_timeout: search exceeded 30 s"]) is None
