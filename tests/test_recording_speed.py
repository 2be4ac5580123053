"""How long a recorded real-model lane took to record (``docgen/recording.py``): a pair's
seconds count only when it was recorded in one go, told from its cached answers' ``created``
seconds and from which answers other pairs share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentic.agents.llm_cache import EntryUse, uses_notes
from agentic.contract.pair_notes import LlmUsage, encode
from agentic.docgen.recording import cache_bytes, recorded_pairs, recording_speed

END = 1_796_600_000  # the pairs below end at this second


def _iso(second: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(second, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def _answer(cache: Path, key: str, created: int | None) -> None:
    body: dict[str, Any] = {"object": "chat.completion", "choices": []}
    if created is not None:
        body["created"] = created
    entry = {"key": key, "status": 200, "body": json.dumps(body)}
    (cache / f"{key}.json").write_text(json.dumps(entry), encoding="utf-8")


def _receipt(adapter: str, keys: list[str], seconds: float) -> dict[str, Any]:
    return _observed(adapter, [_usage(1, 100, 10), *_notes(keys)], seconds)


def _usage(requests: int, prompt: int, completion: int) -> str:
    note = LlmUsage(requests=requests, reported=requests, prompt=prompt, completion=completion)
    return encode(note)


def _notes(keys: list[str]) -> list[str]:
    return uses_notes("record", [EntryUse(key, 200, "0" * 64) for key in keys])


def _observed(adapter: str, notes: list[str], seconds: float) -> dict[str, Any]:
    return {
        "adapterId": adapter,
        "observations": {
            "diagnostics": notes,
            "recordedAt": _iso(END),
            "timings": {"endToEnd": {"valueMs": seconds * 1000, "unavailableReason": None}},
        },
    }


def _key(name: str) -> str:
    return name.encode().hex().ljust(64, "0")


def test_a_pair_whose_answers_were_all_asked_during_it_was_recorded_in_one_go(
    tmp_path: Path,
) -> None:
    _answer(tmp_path, _key("a"), END - 90)
    _answer(tmp_path, _key("b"), END - 2)
    (pair,) = recorded_pairs([_receipt("lexical", [_key("a"), _key("b")], 100.0)], tmp_path)
    assert pair.in_one_go
    assert (pair.adapter, pair.seconds) == ("lexical", 100.0)


def test_a_pair_resumed_mid_pair_is_not_recorded_in_one_go(tmp_path: Path) -> None:
    # Its first answer came from an earlier, stopped recording: its seconds undercount.
    _answer(tmp_path, _key("a"), END - 5_000)
    _answer(tmp_path, _key("b"), END - 2)
    (pair,) = recorded_pairs([_receipt("lexical", [_key("a"), _key("b")], 10.0)], tmp_path)
    assert not pair.in_one_go


def test_an_answer_shared_with_another_pair_does_not_count_against_it(tmp_path: Path) -> None:
    # The first request of a task is the same for every adapter: the second finds it cached.
    shared = _key("first-step")
    _answer(tmp_path, shared, END - 5_000)
    _answer(tmp_path, _key("c"), END - 1)
    _answer(tmp_path, _key("d"), END - 3)
    receipts = [
        _receipt("capsule", [shared, _key("c")], 20.0),
        _receipt("lexical", [shared, _key("d")], 20.0),
    ]
    assert [pair.in_one_go for pair in recorded_pairs(receipts, tmp_path)] == [True, True]


def test_a_pair_is_judged_by_the_first_answer_of_its_own(tmp_path: Path) -> None:
    # Every later answer carries the first in its conversation: it cannot be older.
    _answer(tmp_path, _key("a"), END - 8)
    (pair,) = recorded_pairs([_receipt("lexical", [_key("a"), _key("never-read")], 10.0)], tmp_path)
    assert pair.in_one_go


def test_a_pair_that_asked_nothing_of_its_own_is_not_recorded_in_one_go(tmp_path: Path) -> None:
    shared = _key("first-step")
    _answer(tmp_path, shared, END - 1)
    receipts = [_receipt("capsule", [shared], 5.0), _receipt("lexical", [shared], 5.0)]
    assert [pair.in_one_go for pair in recorded_pairs(receipts, tmp_path)] == [False, False]


def test_a_missing_or_undated_answer_leaves_the_pair_out(tmp_path: Path) -> None:
    _answer(tmp_path, _key("undated"), None)
    receipts = [
        _receipt("capsule", [_key("gone")], 5.0),
        _receipt("lexical", [_key("undated")], 5.0),
    ]
    assert [pair.in_one_go for pair in recorded_pairs(receipts, tmp_path)] == [False, False]


def test_the_speed_is_the_median_of_the_pairs_recorded_in_one_go_only(tmp_path: Path) -> None:
    for name, created in (("a", END - 30), ("b", END - 50), ("c", END - 9_000)):
        _answer(tmp_path, _key(name), created)
    receipts = [
        _receipt("lexical", [_key("a")], 40.0),
        _receipt("lexical", [_key("b")], 60.0),
        _receipt("lexical", [_key("c")], 0.1),
    ]
    speed = recording_speed(recorded_pairs(receipts, tmp_path))
    assert (speed.pairs, speed.seconds, speed.median) == (3, (40.0, 60.0), 50.0)


def test_the_tokens_are_those_of_the_pairs_recorded_in_one_go(tmp_path: Path) -> None:
    _answer(tmp_path, _key("a"), END - 30)
    _answer(tmp_path, _key("b"), END - 9_000)
    receipts = [
        _observed("lexical", [_usage(2, 900, 30), *_notes([_key("a")])], 40.0),
        _observed("lexical", [_usage(1, 5_000, 7), *_notes([_key("b")])], 0.1),
    ]
    assert recording_speed(recorded_pairs(receipts, tmp_path)).median_tokens == (900, 30)


def test_the_cache_is_counted_in_answers_and_bytes(tmp_path: Path) -> None:
    _answer(tmp_path, _key("a"), END)
    _answer(tmp_path, _key("b"), END)
    size = sum(path.stat().st_size for path in tmp_path.iterdir())
    assert cache_bytes(tmp_path) == (2, size)
    assert cache_bytes(tmp_path / "absent") == (0, 0)
