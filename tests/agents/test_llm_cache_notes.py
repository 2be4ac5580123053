"""What a pair's observations say of the LLM cache entries it used (``llm_cache.uses_notes``) and
how it is read back: ``used_keys`` for pruning a cache (all or nothing) and ``asked_order`` for
when a recording asked them (as far as the notes go)."""

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
    assert asked_order(uses_notes("replay", _uses(3))) == [_key(1), _key(2), _key(3)]


def test_a_lane_whose_notes_miss_an_answer_they_count_prunes_nothing() -> None:
    notes = uses_notes("replay", _uses(3))
    assert used_keys(notes[1:]) is None


def test_notes_that_name_no_entry_prune_nothing() -> None:
    oldest = "llm_cache replay: 1 entry, digest sha256:" + "a" * 64
    assert used_keys([oldest, "another diagnostic"]) is None


def test_a_whole_note_of_the_older_single_kind_still_names_its_keys() -> None:
    listed = f"llm_cache record: 2 entries ({_key(1)} {_key(2)}), digest sha256:" + "a" * 64
    assert used_keys([listed]) == {_key(1), _key(2)}


def test_a_single_note_clipped_short_prunes_nothing_but_keeps_its_first_keys_in_order() -> None:
    clipped = f"llm_cache record: 3 entries ({_key(1)} {_key(2)} {_key(3)[:30]}"
    assert used_keys([clipped]) is None
    assert asked_order([clipped]) == [_key(1), _key(2)]
