"""The recording of an endpoint lane leaves no pair without a recorded answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentic.lane.journal import PAIRS, journal_folder
from tests.support.record_lane import drop_timed_out, timed_out


def _receipt(code: str | None) -> dict[str, Any]:
    failure = None if code is None else {"class": "agent_error", "code": code}
    return {"canonical": {"failure": failure}}


def _journal(target: Path, codes: dict[str, str | None]) -> Path:
    pairs = journal_folder(target) / PAIRS
    pairs.mkdir(parents=True)
    for name, code in codes.items():
        entry = {"key": name, "receipt": _receipt(code)}
        (pairs / f"{name}.json").write_text(json.dumps(entry), encoding="utf-8")
    return pairs


def test_only_an_agent_timeout_counts_as_timed_out() -> None:
    receipts = [_receipt(None), _receipt("agent_timeout"), _receipt("agent_context_exceeded")]
    assert [timed_out(r) for r in receipts] == [False, True, False]


def test_a_timed_out_pair_leaves_the_journal_and_every_other_stays(tmp_path: Path) -> None:
    target = tmp_path / "lane"
    pairs = _journal(target, {"a": None, "b": "agent_timeout", "c": "invalid_final_envelope"})
    assert drop_timed_out(target) == 1
    assert sorted(p.name for p in pairs.iterdir()) == ["a.json", "c.json"]


def test_a_lane_without_a_journal_has_nothing_to_drop(tmp_path: Path) -> None:
    assert drop_timed_out(tmp_path / "lane") == 0
