"""The journal of a lane run with an output folder: every finished pair, so a killed run resumes.

The journal is the folder ``.agentic-journal-<name>`` beside the output folder ``<name>``, next
to the lock and stage of ``report/artifacts.py``. It holds:

- ``journal.json``: what the run is (fixture, agent, adapters and their config fingerprints, the
  schedule, the shard, the kit and runtime); a journal of anything else is never resumed;
- ``preparations/<adapter>.json``: each adapter's preparation record, once prepared;
- ``pairs/<sha256 of the pair key>.json``: each finished pair's full receipt and the sha256 of
  its canonical part.

Every file is written whole to a temp name, fsynced and renamed (``replace_atomically``), so a
kill at any instant leaves each entry complete or absent. A run holds an exclusive ``flock`` on
``lock`` for its whole life: a second run on the same output is refused, and a journal found
unlocked was left by a run that no longer exists. The journal is removed once the report it
served is written; a run that finds one without ``--resume`` is refused, so a forgotten flag
never throws away finished pairs. A run killed before it wrote ``journal.json`` leaves a journal
with no header and no entry: it journaled nothing, so the next run takes it over as new.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic.contract.canonical import canonical_bytes, fingerprint
from agentic.contract.errors import ContractError
from agentic.contract.files import (
    TEMP_PREFIX,
    lock_exclusive,
    read_input_file,
    replace_atomically,
)
from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import Preparation
from agentic.contract.schemas import load_model
from agentic.contract.strict_json import parse_strict_object
from agentic.runner.plan import PairKey, first_difference
from agentic.runner.run import RunResult, combine_runs

JOURNAL_PREFIX = ".agentic-journal-"
JOURNAL_KIND = "agentic-journal"
JOURNAL_VERSION = 1
HEADER = "journal.json"
LOCK = "lock"
PAIRS = "pairs"
PREPARATIONS = "preparations"


def journal_folder(target: Path) -> Path:
    target = target.absolute()
    return target.parent / f"{JOURNAL_PREFIX}{target.name}"


@dataclass(frozen=True)
class Resumed:
    """What a journal already holds: preparation records by adapter, receipts by pair."""

    preparations: Mapping[str, Preparation]
    receipts: Mapping[PairKey, TrajectoryReceipt]


NOTHING = Resumed({}, {})


def _invalid(path: Path, why: str) -> ContractError:
    return ContractError(
        "invalid_journal", f"{path}: {why}; the journal is kept as it is (remove it to start over)"
    )


def _entry_name(key: PairKey) -> str:
    return f"{fingerprint(key.to_json())}.json"


class Journal:
    """An open, locked journal. ``close`` releases the lock; ``finish`` also removes it."""

    def __init__(self, folder: Path, lock_fd: int) -> None:
        self.folder = folder
        self._lock_fd = lock_fd
        self.recorded = 0  # receipts journaled by this run

    @classmethod
    def open(
        cls,
        target: Path,
        identity: Mapping[str, Any],
        planned: frozenset[PairKey],
        *,
        resume: bool,
    ) -> tuple[Journal, Resumed]:
        """The journal of the run ``identity`` at ``target``: a new one, or with ``resume`` the
        one an interrupted run of the same identity left (its entries checked and returned)."""
        folder = journal_folder(target)
        existed = _check_folder(folder)
        if not existed:
            folder.mkdir(parents=True)
        journal = cls(folder, _lock(folder))
        try:
            if not existed or _unborn(folder):
                (folder / PAIRS).mkdir(exist_ok=True)
                (folder / PREPARATIONS).mkdir(exist_ok=True)
                header = {"kind": JOURNAL_KIND, "version": JOURNAL_VERSION, "run": dict(identity)}
                replace_atomically(folder / HEADER, canonical_bytes(header))
                return journal, NOTHING
            _check_header(folder, identity, resume=resume)
            return journal, _load_entries(folder, planned)
        except BaseException:
            journal.close()
            raise

    def preparation(self, record: Preparation) -> None:
        path = self.folder / PREPARATIONS / f"{fingerprint(record.adapterId)}.json"
        replace_atomically(path, canonical_bytes(record.to_json()))

    def receipt(self, key: PairKey, receipt: TrajectoryReceipt) -> None:
        entry = {
            "key": key.to_json(),
            "canonicalSha256": fingerprint(receipt.canonical.to_json()),
            "receipt": receipt.to_json(),
        }
        replace_atomically(self.folder / PAIRS / _entry_name(key), canonical_bytes(entry))
        self.recorded += 1

    def finish(self) -> None:
        """The report is written: the journal goes."""
        shutil.rmtree(self.folder, ignore_errors=True)
        self.close()

    def close(self) -> None:
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1


def _check_folder(folder: Path) -> bool:
    """Whether the journal exists; a link or a non-folder in its place is refused."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        raise ContractError(
            "unsafe_output_path", f"{folder} is not a journal folder of the kit; nothing was run"
        )
    return True


def _unborn(folder: Path) -> bool:
    """Whether the journal was left by a run killed before it wrote its header: no header and
    no entry (the header is written before any), at most temp files of a write cut short, and
    nothing the kit does not write there."""
    own = {LOCK, PAIRS, PREPARATIONS}
    if any(name not in own and not name.startswith(TEMP_PREFIX) for name in os.listdir(folder)):
        return False
    for part in (PAIRS, PREPARATIONS):
        try:
            names = os.listdir(folder / part)
        except FileNotFoundError:
            continue
        if any(not name.startswith(TEMP_PREFIX) for name in names):
            return False
    return True


def _lock(folder: Path) -> int:
    busy = ContractError(
        "journal_busy", f"{folder}: another run is writing this output; nothing was run"
    )
    return lock_exclusive(folder / LOCK, busy, follow_links=False)


def _check_header(folder: Path, identity: Mapping[str, Any], *, resume: bool) -> None:
    path = folder / HEADER
    try:
        header = parse_strict_object(
            read_input_file(path, code="invalid_journal"), source=str(path)
        )
    except ContractError as exc:
        raise _invalid(path, exc.message) from None
    if header.get("kind") != JOURNAL_KIND or header.get("version") != JOURNAL_VERSION:
        raise _invalid(path, f"not a version {JOURNAL_VERSION} journal of the kit")
    if not resume:
        count = sum(1 for name in os.listdir(folder / PAIRS) if not name.startswith(TEMP_PREFIX))
        raise ContractError(
            "journal_exists",
            f"{folder} holds the journal of an interrupted run ({count} pairs finished); "
            "pass --resume to finish it, or remove the folder to start over",
        )
    recorded = header.get("run")
    if not isinstance(recorded, dict):
        raise _invalid(path, "no run identity")
    name = first_difference(recorded, identity)
    if name is not None:
        raise ContractError(
            "journal_mismatch",
            f"{folder} is the journal of another run ({name} differs: journal "
            f"{recorded.get(name)!r}, this run {identity.get(name)!r}); nothing was run",
        )


def _entries(folder: Path) -> list[Path]:
    """The entry files of one journal folder; temp files of a killed write are removed."""
    paths = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(TEMP_PREFIX):
            path.unlink(missing_ok=True)
        else:
            paths.append(path)
    return paths


def _load_entries(folder: Path, planned: frozenset[PairKey]) -> Resumed:
    preparations: dict[str, Preparation] = {}
    for path in _entries(folder / PREPARATIONS):
        record = _load_preparation(path)
        preparations[record.adapterId] = record
    by_name = {_entry_name(key): key for key in planned}
    receipts: dict[PairKey, TrajectoryReceipt] = {}
    for path in _entries(folder / PAIRS):
        key = by_name.get(path.name)
        if key is None:
            raise _invalid(path, "a pair this run does not plan")
        receipts[key] = _load_receipt(path, key)
    return Resumed(preparations, receipts)


def _read(path: Path) -> dict[str, Any]:
    try:
        return parse_strict_object(read_input_file(path, code="invalid_journal"), source=str(path))
    except ContractError as exc:
        raise _invalid(path, exc.message) from None


def _load_preparation(path: Path) -> Preparation:
    try:
        record = Preparation.model_validate(_read(path))
    except ValueError as exc:
        raise _invalid(path, f"not a preparation record ({type(exc).__name__})") from None
    if path.name != f"{fingerprint(record.adapterId)}.json":
        raise _invalid(path, f"named for another adapter than {record.adapterId!r}")
    return record


def _load_receipt(path: Path, key: PairKey) -> TrajectoryReceipt:
    entry = _read(path)
    if entry.get("key") != key.to_json():
        raise _invalid(path, "its key is not the pair it is named for")
    document = entry.get("receipt")
    if not isinstance(document, dict):
        raise _invalid(path, "no receipt")
    try:
        # The closed, strict models without the JSON Schema pass (7x faster on a resume of
        # hundreds of pairs): the kit wrote this entry, and its canonical part is hashed below.
        receipt = load_model("trajectory-receipt", document, source=str(path))
    except ContractError as exc:
        raise _invalid(path, exc.message) from None
    if not isinstance(receipt, TrajectoryReceipt):
        raise _invalid(path, "not a trajectory receipt")
    if PairKey.of(key.pass_, receipt.canonical) != key:
        raise _invalid(path, "its receipt is of another pair")
    if fingerprint(receipt.canonical.to_json()) != entry.get("canonicalSha256"):
        raise _invalid(path, "its receipt's canonical hash differs from the recorded one")
    return receipt


def with_resumed(fresh: RunResult, resumed: Resumed) -> RunResult:
    """The whole run: the journaled pairs and preparations with those run since. An adapter
    prepared again must have the journaled index, or its old and new receipts would not be of
    one index."""
    preparations = dict(resumed.preparations)
    for record in fresh.preparations:
        earlier = preparations.get(record.adapterId)
        if earlier is None or record.observations.preparationUnavailableReason is not None:
            preparations[record.adapterId] = record  # a failed one stops the report
            continue
        if earlier.indexFingerprint != record.indexFingerprint:
            raise ContractError(
                "journal_mismatch",
                f"{record.adapterId} prepared an index other than the journaled one "
                f"({record.indexFingerprint[:12]} vs {earlier.indexFingerprint[:12]}); "
                "remove the journal to start over",
            )
    scored = [r for k, r in resumed.receipts.items() if k.pass_ == "scored"]
    again = [r for k, r in resumed.receipts.items() if k.pass_ == "replay"]
    for adapter_id in {r.canonical.adapterId for r in scored} - preparations.keys():
        raise ContractError("invalid_journal", f"no journaled preparation of {adapter_id}")
    return combine_runs(
        preparations.values(),
        [*scored, *fresh.receipts],
        [*again, *fresh.replay_receipts],
    )
