"""How long a recorded real-model lane took to record, read from what it committed.

A lane recorded against a live endpoint (``nox -s record``) keeps each pair's end-to-end
seconds in its ``observations.json`` and each answer in its LLM cache. Those seconds mean
"recording speed" only for a pair recorded in one go: a recording stopped and resumed answers
the first steps of the pair it was in from the cache, and a pair answered from the cache whole takes
milliseconds. A pair was recorded in one go when the first answer of its own was asked of the
endpoint during the pair (the ``created`` second of the cached OpenAI-style body lies in the
pair's window, with a second of slack either side). Answers shared with another pair say
nothing: the first request of a task is the same whichever adapter serves it, so later
adapters find it cached.

Pure functions of the committed files; ``benchmarks/bench.py recorded`` prints the same figures
for a recording under way (from its journal).
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from agentic.agents.chat_endpoint import reported_tokens
from agentic.agents.llm_cache import asked_order
from agentic.contract.json_access import as_strs, member, number_at, object_at
from agentic.contract.strict_json import JsonObject

SLACK_S = 1.0  # `created` is a whole second


@dataclass(frozen=True)
class RecordedPair:
    adapter: str
    seconds: float
    in_one_go: bool
    tokens: tuple[int, int] | None  # prompt and completion, as the endpoint reported them


@dataclass(frozen=True)
class RecordingSpeed:
    """The pairs recorded in one go, of all the lane's pairs: their seconds, and the prompt
    and completion tokens of those whose endpoint reported them (what the seconds went on)."""

    pairs: int
    seconds: tuple[float, ...]
    tokens: tuple[tuple[int, int], ...]  # prompt and completion

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def median_tokens(self) -> tuple[float, float] | None:
        """The median pair's prompt and completion tokens; None when none was reported."""
        if not self.tokens:
            return None
        prompts, completions = zip(*self.tokens, strict=True)
        return statistics.median(prompts), statistics.median(completions)


def answered_at(cache: Path, key: str) -> float | None:
    """When the endpoint answered a cached request: the ``created`` second of its completion
    body; None when the entry is missing or its body names no such second."""
    path = cache / f"{key}.json"
    if not path.is_file():
        return None
    body = json.loads(path.read_bytes()).get("body")
    if not isinstance(body, str):
        return None
    try:
        created = json.loads(body).get("created")
    except (ValueError, AttributeError):
        return None
    return float(created) if isinstance(created, (int, float)) else None


def recorded_pairs(receipts: Sequence[JsonObject], cache: Path) -> list[RecordedPair]:
    """Each pair (a receipt of ``observations.json``: its ``adapterId`` and ``observations``),
    told whether it was recorded in one go: whether the first answer it asked that no other
    pair asked was answered during the pair. Every later request of the pair carries that
    answer in its conversation, so it cannot have been answered earlier either."""
    asked = [asked_order(_diagnostics(receipt)) for receipt in receipts]
    users = Counter(key for keys in asked for key in set(keys))
    pairs = []
    for receipt, keys in zip(receipts, asked, strict=True):
        observations = object_at(receipt, "observations")
        seconds = float(number_at(observations, "timings", "endToEnd", "valueMs")) / 1000
        ended = datetime.fromisoformat(str(observations["recordedAt"])).timestamp()
        own = next((key for key in keys if users[key] == 1), None)
        at = None if own is None else answered_at(cache, own)
        in_one_go = at is not None and ended - seconds - SLACK_S <= at <= ended + SLACK_S
        tokens = reported_tokens(_diagnostics(receipt))
        pairs.append(RecordedPair(str(receipt["adapterId"]), seconds, in_one_go, tokens))
    return pairs


def _diagnostics(receipt: JsonObject) -> list[str]:
    return as_strs(member(receipt, "observations", "diagnostics"), "/observations/diagnostics")


def recording_speed(pairs: Sequence[RecordedPair]) -> RecordingSpeed:
    timed = [pair for pair in pairs if pair.in_one_go]
    return RecordingSpeed(
        len(pairs),
        tuple(pair.seconds for pair in timed),
        tuple(pair.tokens for pair in timed if pair.tokens is not None),
    )


def cache_bytes(cache: Path) -> tuple[int, int]:
    """The cache's answers and their bytes on disk."""
    entries = sorted(cache.glob("*.json")) if cache.is_dir() else []
    return len(entries), sum(path.stat().st_size for path in entries)
