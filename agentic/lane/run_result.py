"""What a run of pairs ends with (``RunResult``), and one run combined from the records of its
parts (shards, worker units, a resumed journal, the passes of one process), in identity order,
with the capsule's bundle replays matched across the parts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agentic.contract.canonical import canonical_text, sha256_hex
from agentic.contract.receipt import CanonicalReceipt, TrajectoryReceipt
from agentic.contract.report import CapsuleReplay, Preparation, ReplayPayload, pair_identity


@dataclass(frozen=True)
class RunResult:
    preparations: tuple[Preparation, ...]
    receipts: tuple[TrajectoryReceipt, ...]
    replays: tuple[CapsuleReplay, ...]
    # The replay pass of each replayed adapter, kept so that runs of parts of a lane (shards,
    # a resumed run) can be combined and their replays matched afterwards.
    replay_receipts: tuple[TrajectoryReceipt, ...] = ()


def receipt_sort_key(receipt: TrajectoryReceipt) -> tuple[str, str, str, str, str, str]:
    c = receipt.canonical
    return (c.adapterId, c.taskId, c.trialId, c.lifecycle, str(c.seed), c.agentId)


def single_bundle_payload(receipt: CanonicalReceipt) -> str | None:
    """The content of the one delivered evidence_bundle, or None if not exactly one."""
    bundles = [
        c.result.content
        for c in receipt.calls
        if c.deliveredToAgent and c.result.resultRole == "evidence_bundle"
    ]
    return bundles[0] if len(bundles) == 1 else None


def _replay_payload(content: str) -> ReplayPayload:
    return ReplayPayload(canonicalJson=content, sha256=sha256_hex(content.encode("utf-8")))


def bundle_replays(
    first: list[TrajectoryReceipt], second: list[TrajectoryReceipt]
) -> tuple[CapsuleReplay, ...]:
    """Match receipts of the two passes of one bundle adapter (``first`` scored, ``second`` its
    replay) by identity; record both payloads."""
    second_by_key = {receipt_sort_key(r): r.canonical for r in second}
    replays = []
    for receipt in sorted(first, key=receipt_sort_key):
        c = receipt.canonical
        other = second_by_key.get(receipt_sort_key(receipt))
        payload_a = single_bundle_payload(c)
        if other is None or payload_a is None or len(payload_a) < 2:
            continue
        if canonical_text(other.fingerprints.to_json()) != canonical_text(c.fingerprints.to_json()):
            continue
        payload_b = single_bundle_payload(other)
        if payload_b is None or len(payload_b) < 2:
            continue
        replays.append(
            CapsuleReplay(
                # The catalog lets only the capsule declare replays (v1.0 fixes the id).
                **(pair_identity(c) | {"adapterId": "capsule"}),
                first=_replay_payload(payload_a),
                second=_replay_payload(payload_b),
            )
        )
    return tuple(replays)


def _replay_sort_key(replay: CapsuleReplay) -> tuple[str, str, str, str]:
    return (replay.adapterId, replay.taskId, replay.trialId, replay.lifecycle)


def combine_parts(
    preparations: Iterable[Preparation],
    receipts: Iterable[TrajectoryReceipt],
    replay_receipts: Iterable[TrajectoryReceipt],
) -> RunResult:
    """One run from the records of its parts (shards, worker units, a resumed journal, or the
    passes of one process), in identity order; bundle replays are matched across the parts.
    ``preparations`` holds one record per adapter."""
    scored = sorted(receipts, key=receipt_sort_key)
    again = sorted(replay_receipts, key=receipt_sort_key)
    replays = bundle_replays(scored, again)
    return RunResult(
        preparations=tuple(sorted(preparations, key=lambda p: p.adapterId)),
        receipts=tuple(scored),
        replays=tuple(sorted(replays, key=_replay_sort_key)),
        replay_receipts=tuple(again),
    )
