"""The recording of an endpoint lane leaves no pair without a recorded answer, and a stopped
recording stops its lane's run before its server."""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agentic.lane.journal import PAIRS, journal_folder
from tests.support.record_lane import Child, drop_unanswered, unanswered


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


def test_only_a_late_answer_counts_as_unanswered() -> None:
    codes = [None, "agent_timeout", "agent_context_exceeded"]
    assert [unanswered(_receipt(code)) for code in codes] == [False, True, False]


def test_an_unanswered_pair_leaves_the_journal_and_every_other_stays(tmp_path: Path) -> None:
    target = tmp_path / "lane"
    pairs = _journal(target, {"a": None, "b": "agent_timeout", "c": "invalid_final_envelope"})
    assert drop_unanswered(target) == 1
    assert sorted(p.name for p in pairs.iterdir()) == ["a.json", "c.json"]


def test_a_lane_without_a_journal_has_nothing_to_drop(tmp_path: Path) -> None:
    assert drop_unanswered(tmp_path / "lane") == 0


def test_sigterm_is_passed_on_to_the_run_under_way(tmp_path: Path) -> None:
    child = Child()
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    threading.Timer(1.0, lambda: child.stop(signal.SIGTERM, None)).start()
    started = time.monotonic()
    assert child.run(sleeper, tmp_path / "run.log") == -signal.SIGTERM
    assert time.monotonic() - started < 30


def test_sigterm_with_no_run_under_way_ends_the_recorder() -> None:
    with pytest.raises(SystemExit) as ended:
        Child().stop(signal.SIGTERM, None)
    assert ended.value.code == 128 + signal.SIGTERM


def test_no_run_starts_once_the_recorder_is_stopping(tmp_path: Path) -> None:
    child = Child(stopping=True)
    assert child.run([sys.executable, "-c", "raise SystemExit(0)"], tmp_path / "log") == 143
