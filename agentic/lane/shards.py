"""Shards: a deterministic slice of a lane's pairs run on its own, and the merge of all slices.
A shard may be a CI matrix job, a Kubernetes job or a Slurm array task. The merge of all of a
lane's shards is its report.

``agentic run ... --shard K/N --out DIR`` writes ``DIR/shard.json`` (the slice's preparations
and receipts, the run's identity and environment, the gate to evaluate) and ``DIR/shard.md`` (a
summary and the slice's own scores, for the job's log). ``agentic merge DIR... --out OUT``
checks that the shards belong together and writes the whole lane's report: scores, replays
and the promotion gate are computed from the merged receipts in identity order, so the merged
``canonical.json`` is the one a single run on the same machine writes.

Shards belong together when they have one run identity (kit, runtime, fixture, agent,
adapters with their config fingerprints, schedule, timeout: ``lane.run_identity``), one
environment and one gate, are numbered 1..N of one N exactly once, each holds exactly its
slice (``plan.shard_keys``), and every adapter's index fingerprint is the same in all of them.

Integrity: ``shard.json`` is sealed with an HMAC-SHA256 under the run's key and names the key by
its ``keyId``; the merge refuses a shard whose seal does not verify. The key is kept outside the
shard folder (``runner/journal.KeyRef``): by default in the state dir of the user who ran the
shard, named by the run identity, so shards run and merged on one machine need nothing more;
shards run on several machines need one key file given to each shard's run
(``AGENTIC_KEY_FILE=F``) and to the merge (``--key-file F`` or the same variable). A shard
edited or forged by someone without the key is refused; someone who holds the key can forge
one. No score is stored in ``shard.json`` (``shard.md``'s are for the log and never read): the
merge scores, replays and gates the merged receipts against the fixture (``lane.report_lane``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from agentic.contract.base import ContractModel, first_error
from agentic.contract.canonical import stable_pretty_json
from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file
from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import Environment, Preparation
from agentic.contract.schemas import load_document
from agentic.contract.strict_json import JsonObject, JsonValue, parse_strict_object
from agentic.lane.journal import KeyRef, RunKey
from agentic.lane.run_result import RunResult, combine_parts
from agentic.output.folder import Identity
from agentic.output.staging import write_artifacts
from agentic.runner.pairs import PairKey, RunIdentity, Shard, first_difference, shard_keys
from agentic.runner.progress import Progress
from agentic.scoring.promotion import Gate

_Model = TypeVar("_Model", bound=ContractModel)
_Value = TypeVar("_Value")

SHARD_FILE = "shard.json"
SHARD_SUMMARY = "shard.md"
SHARD_KIND = "agentic-shard"
SHARD_VERSION = 2  # 2: sealed by the run's key
# Closed: nothing rides along unchecked (a stored score, say).
SHARD_MEMBERS = frozenset(
    {
        *("kind", "version", "shard", "fixtureName", "run", "environment", "gate"),
        *("preparations", "receipts", "replayReceipts", "keyId", "hmac"),
    }
)


@dataclass(frozen=True)
class ShardRecord:
    shard: Shard
    run: RunIdentity
    fixture_name: str  # the folder of the kit's fixtures/ it ran on (merge's default fixture)
    environment: Environment
    gate: Gate | None
    result: RunResult  # its preparations, receipts and replay receipts


def shard_identity(shard: Shard, agent_id: str, adapter_ids: Sequence[str]) -> Identity:
    return Identity("shard", f"shard {shard} of agent {agent_id}, adapters {','.join(adapter_ids)}")


def _gate_json(gate: Gate | None) -> JsonObject | None:
    """The gate as ``shard.json`` holds it: its keys name the sides as the contract's promotion
    metrics do (``candidate*``, ``baseline*``), both adapter ids."""
    if gate is None:
        return None
    return {
        "candidate": gate.candidate_adapter,
        "baseline": gate.baseline_adapter,
        "replayRequired": gate.replay_required,
    }


def shard_document(record: ShardRecord) -> JsonObject:
    result = record.result
    return {
        "kind": SHARD_KIND,
        "version": SHARD_VERSION,
        "shard": {"index": record.shard.index, "count": record.shard.count},
        "fixtureName": record.fixture_name,
        "run": record.run.to_json(),
        "environment": record.environment.to_json(),
        "gate": _gate_json(record.gate),
        "preparations": [p.to_json() for p in result.preparations],
        "receipts": [r.to_json() for r in result.receipts],
        "replayReceipts": [r.to_json() for r in result.replay_receipts],
    }


def _summary(record: ShardRecord, scores_markdown: str) -> str:
    result = record.result
    adapters = ", ".join(record.run.adapter_ids)
    return (
        f"# Shard {record.shard} of a lane\n\n"
        f"- agent: {record.run.agent.id}\n"
        f"- adapters: {adapters}\n"
        f"- pairs: {len(result.receipts)} scored, {len(result.replay_receipts)} replayed\n"
        f"- the lane's report: `agentic merge` with all {record.shard.count} shard folders\n\n"
        "The scores below are this slice's alone; the promotion gate is evaluated by the "
        "merge.\n\n" + scores_markdown
    )


def sealed(document: Mapping[str, JsonValue], key: RunKey) -> JsonObject:
    """``document`` with the id of ``key`` and its HMAC under it."""
    body = {**document, "keyId": key.key_id}
    body.pop("hmac", None)
    return {**body, "hmac": key.seal(SHARD_KIND, body)}


def write_shard(
    record: ShardRecord,
    target: Path,
    scores_markdown: str,
    *,
    key: RunKey,
    force: bool,
    progress: Progress,
) -> None:
    files = {
        SHARD_FILE: stable_pretty_json(sealed(shard_document(record), key)).encode("utf-8"),
        SHARD_SUMMARY: _summary(record, scores_markdown).encode("utf-8"),
    }
    write_artifacts(target, files, force=force)
    progress.note(f"wrote shard {record.shard} to {target}")


# -- reading -------------------------------------------------------------------------------------


def _bad(path: Path, why: str) -> ContractError:
    return ContractError("invalid_shard", f"{path}: {why}")


def _field(document: JsonObject, name: str, kind: type[_Value], path: Path) -> _Value:
    value = document.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise _bad(path, f"{name!r} is missing or not a {kind.__name__}")
    return value


def _receipts(items: list[object], path: Path, name: str) -> tuple[TrajectoryReceipt, ...]:
    return tuple(
        load_document("trajectory-receipt", item, source=f"{path}: {name}[{position}]")
        for position, item in enumerate(items)
    )


def _model(model: type[_Model], value: object, path: Path, where: str) -> _Model:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise _bad(path, f"/{where}{first_error(exc)}") from None


def _gate(value: object, path: Path) -> Gate | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"candidate", "baseline", "replayRequired"}:
        raise _bad(path, "'gate' is neither null nor a candidate, a baseline and replayRequired")
    candidate, baseline_adapter = value["candidate"], value["baseline"]
    replay = value["replayRequired"]
    if not (
        isinstance(candidate, str)
        and isinstance(baseline_adapter, str)
        and isinstance(replay, bool)
    ):
        raise _bad(path, "'gate' needs two adapter ids and a boolean replayRequired")
    return Gate(candidate, baseline_adapter, replay)


def _check_seal(document: Mapping[str, JsonValue], path: Path, ref: KeyRef) -> None:
    key = ref.load()
    if document.get("keyId") != key.key_id:
        raise ContractError(
            "run_key_mismatch", f"{path} was sealed with another key than {key.where}"
        )
    body = {name: value for name, value in document.items() if name != "hmac"}
    if not key.opens(SHARD_KIND, body, document.get("hmac")):  # in constant time
        raise _bad(path, "its HMAC does not verify under the run's key (edited or forged)")


def load_shard(folder: Path, key_file: Path | None, environ: Mapping[str, str]) -> ShardRecord:
    """The shard written in ``folder``; each receipt is checked against the receipt schema, then
    the whole against its seal under the run's key (``key_file``, else ``AGENTIC_KEY_FILE`` in
    ``environ``, else the state dir's key of the shard's run)."""
    path = folder / SHARD_FILE
    document = parse_strict_object(read_input_file(path, code="invalid_shard"), source=str(path))
    if document.get("kind") != SHARD_KIND or document.get("version") != SHARD_VERSION:
        raise _bad(path, f"not a version {SHARD_VERSION} shard of the kit")
    if set(document) != SHARD_MEMBERS:
        unknown, missing = set(document) - SHARD_MEMBERS, SHARD_MEMBERS - set(document)
        raise _bad(path, f"unknown members {sorted(unknown)}, missing {sorted(missing)}")
    shard = _field(document, "shard", dict, path)
    index, count = shard.get("index"), shard.get("count")
    if not (isinstance(index, int) and isinstance(count, int) and 1 <= index <= count):
        raise _bad(path, "'shard' is not an index K and a count N with 1 <= K <= N")
    run = _model(RunIdentity, document.get("run"), path, "run")
    environment = _model(Environment, document.get("environment"), path, "environment")
    preparations = tuple(
        _model(Preparation, p, path, f"preparations/{position}")
        for position, p in enumerate(_field(document, "preparations", list, path))
    )
    receipts = _receipts(_field(document, "receipts", list, path), path, "receipts")
    again = _receipts(_field(document, "replayReceipts", list, path), path, "replayReceipts")
    record = ShardRecord(
        shard=Shard(index, count),
        run=run,
        fixture_name=_field(document, "fixtureName", str, path),
        environment=environment,
        gate=_gate(document.get("gate"), path),
        result=RunResult(preparations, receipts, (), again),
    )
    _check_seal(document, path, KeyRef.of(run.to_json(), key_file, environ))
    return record


# -- merging -------------------------------------------------------------------------------------


def _mismatch(why: str) -> ContractError:
    return ContractError("shards_mismatch", f"{why}; nothing was written")


def _check_numbering(records: Sequence[ShardRecord]) -> None:
    count = records[0].shard.count
    seen: set[int] = set()
    for record in records:
        if record.shard.count != count:
            raise _mismatch(f"shard {record.shard} is of another split than {count} shards")
        if record.shard.index in seen:
            raise _mismatch(f"shard {record.shard} is given twice")
        seen.add(record.shard.index)
    missing = sorted(set(range(1, count + 1)) - seen)
    if missing:
        listed = ", ".join(f"{index}/{count}" for index in missing)
        raise _mismatch(f"shard(s) {listed} missing")


def _check_same_run(records: Sequence[ShardRecord]) -> None:
    first = records[0]
    for record in records[1:]:
        if record.run != first.run:
            name = first_difference(record.run.to_json(), first.run.to_json())
            raise _mismatch(f"shard {record.shard} is of another run ({name} differs)")
        if record.environment != first.environment:
            name = first_difference(record.environment.to_json(), first.environment.to_json())
            raise _mismatch(f"shard {record.shard} ran in another environment ({name} differs)")
        if record.gate != first.gate or record.fixture_name != first.fixture_name:
            raise _mismatch(f"shard {record.shard} asks for another gate or fixture")


def _keys(result: RunResult) -> list[PairKey]:
    return [PairKey.of("scored", r.canonical) for r in result.receipts] + [
        PairKey.of("replay", r.canonical) for r in result.replay_receipts
    ]


def _check_slices(records: Sequence[ShardRecord]) -> None:
    planned = records[0].run.planned_keys()
    for record in records:
        keys = _keys(record.result)
        if len(set(keys)) != len(keys) or set(keys) != shard_keys(planned, record.shard):
            raise _mismatch(f"shard {record.shard} does not hold exactly its slice of the pairs")


def _preparations(records: Sequence[ShardRecord]) -> list[Preparation]:
    """One record per adapter, the first shard's; every shard must have built the same index."""
    chosen: dict[str, Preparation] = {}
    for record in records:
        for preparation in record.result.preparations:
            earlier = chosen.setdefault(preparation.adapterId, preparation)
            if (earlier.indexFingerprint, earlier.corpusFingerprint) != (
                preparation.indexFingerprint,
                preparation.corpusFingerprint,
            ):
                raise _mismatch(
                    f"shard {record.shard} prepared another {preparation.adapterId} index"
                )
    return list(chosen.values())


def merge_shards(records: Sequence[ShardRecord]) -> ShardRecord:
    """The shards as one run (a record of shard 1/1), refused unless they belong together."""
    if not records:
        raise _mismatch("no shard given")
    ordered = sorted(records, key=lambda r: r.shard.index)
    _check_numbering(ordered)
    _check_same_run(ordered)
    _check_slices(ordered)
    merged = combine_parts(
        _preparations(ordered),
        [r for record in ordered for r in record.result.receipts],
        [r for record in ordered for r in record.result.replay_receipts],
    )
    first = ordered[0]
    return ShardRecord(
        Shard(1, 1), first.run, first.fixture_name, first.environment, first.gate, merged
    )
