"""The journal of a lane run with an output folder: every finished pair, so a killed run resumes.

The journal is the folder ``.agentic-journal-<name>`` beside the output folder ``<name>``, next
to the lock and stage of ``output/staging.py``. It holds:

- ``journal.json``: what the run is (fixture, agent, adapters and their config fingerprints, the
  schedule, the shard, the kit and runtime); a journal of anything else is never resumed;
- ``preparations/<adapter>.json``: each adapter's preparation record, once prepared;
- ``pairs/<sha256 of the pair key>.json``: each finished pair's full receipt and the sha256 of
  its canonical part.

Every file is written whole to a temp name and renamed (``replace_atomically``), so a kill at
any instant leaves each entry complete or absent. Entries are not fsynced (one fsync per pair
cost more than running a pair of the fixture agent): after a power loss an entry may be empty or
cut short, and a resume runs its pair again, as if it had never been journaled (which anyone who
can delete an entry can bring about anyway). An entry that reads as JSON is held to everything
below.

A run holds an exclusive ``flock`` on ``lock`` for its whole life: a second run on the same
output is refused, and a journal found unlocked was left by a run that no longer exists. The
journal is removed once the report it served is written; a run that finds one without
``--resume`` is refused, so a forgotten flag never throws away finished pairs. A run killed
before it wrote ``journal.json`` leaves a journal with no header and no entry: it journaled
nothing, so the next run takes it over as new.

Integrity: every entry (pair and preparation) carries an HMAC-SHA256 under the run's key, over
the entry and the run's identity, and ``journal.json`` names the key by its ``keyId`` (an HMAC
of a constant: it identifies the key without revealing it). ``--resume`` needs that key and
refuses an entry whose HMAC does not verify. The key never lives in the journal (``KeyRef``):

- given, ``AGENTIC_KEY_FILE=F`` (``LaneRequest.key_file``; ``agentic merge --key-file F``): a
  file of 32 to 4096 bytes owned by the user running the kit (its owner could rewrite it) and
  readable by that user only, which the kit never creates, changes or removes. Shards run on
  several machines, and a journal resumed on another machine or in a new container, use such a
  file, the same on each;
- else a file of 32 random bytes, mode 0600, in ``$XDG_STATE_HOME/agentic/keys/``
  (``~/.local/state`` without ``XDG_STATE_HOME``), created on first use: for a shard,
  ``<sha256 of the run identity>``, shared by every shard of the run run by this user and their
  journals, and never removed by the kit (the merge needs it); for a whole run,
  ``journal-<sha256 of that and the journal's real path>``, removed with the journal
  (``KeyRef.for_journal``). A state dir that cannot be written leaves the run working but its
  journal unresumable (a note says so; ``--resume`` is refused with ``run_key_missing``).

What it protects against: an entry edited, forged or copied from another run by someone without
the key (a receipt replaced and its canonical hash recomputed, say) is refused. Someone who holds
the key (the user that ran it, or anyone who can read the key file) can forge entries; that is
out of reach of any key kept on the same machine. Scores are never stored here: the report's
scores, replays and gate are derived again from the receipts and the fixture (``lane/execute.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from agentic.contract.canonical import canonical_bytes, canonical_object, fingerprint, sha256_hex
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
from agentic.contract.strict_json import JsonObject, JsonValue, parse_strict_object
from agentic.lane.run_result import RunResult, combine_parts
from agentic.runner.pairs import PairKey, first_difference

JOURNAL_PREFIX = ".agentic-journal-"
JOURNAL_KIND = "agentic-journal"
JOURNAL_VERSION = 2  # 2: entries sealed by the run's key
HEADER = "journal.json"
LOCK = "lock"
PAIRS = "pairs"
PREPARATIONS = "preparations"


def journal_folder(target: Path) -> Path:
    target = target.absolute()
    return target.parent / f"{JOURNAL_PREFIX}{target.name}"


# -- the run key: outside the journal and the shard, so that whoever can edit them cannot seal -----

KEY_FILE_ENV = "AGENTIC_KEY_FILE"
KEY_MIN_BYTES = 32  # 256 bits, HMAC-SHA256's block of security; also what the kit generates
KEY_MAX_BYTES = 4096
_NOT_OWNER = 0o077  # group and other permission bits: a key file may have none
_KEY_ID_MESSAGE = b"agentic run key id"


@dataclass(frozen=True)
class RunKey:
    """The secret that seals a run's journal entries and its shards. Never printed, never in a
    report or a fingerprint."""

    secret: bytes = field(repr=False)
    where: str  # the key file, for messages

    @property
    def key_id(self) -> str:
        """Names the key without revealing it, so that a file sealed with another key is told
        apart from an edited one."""
        return hmac.new(self.secret, _KEY_ID_MESSAGE, hashlib.sha256).hexdigest()[:16]

    def seal(self, domain: str, document: object) -> str:
        """HMAC-SHA256 of the canonical bytes of ``document`` in ``domain`` (the domain keeps a
        seal of one kind of file from verifying another)."""
        return self.seal_canonical(domain, canonical_bytes(document))

    def seal_canonical(self, domain: str, document: bytes) -> str:
        """``seal`` of a document given as its canonical bytes."""
        message = canonical_object({"domain": canonical_bytes(domain), "document": document})
        return hmac.new(self.secret, message, hashlib.sha256).hexdigest()

    def opens(self, domain: str, document: object, mac: object) -> bool:
        return self.opens_canonical(domain, canonical_bytes(document), mac)

    def opens_canonical(self, domain: str, document: bytes, mac: object) -> bool:
        """``opens`` of a document given as its canonical bytes (in constant time)."""
        if not isinstance(mac, str):
            return False
        return hmac.compare_digest(self.seal_canonical(domain, document), mac)


def keys_dir(environ: Mapping[str, str]) -> Path:
    """The user's folder of run keys (XDG: a relative ``XDG_STATE_HOME`` is ignored)."""
    state = environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):
        home = environ.get("HOME") or os.path.expanduser("~")
        state = os.path.join(home, ".local", "state")
    return Path(state, "agentic", "keys")


@dataclass(frozen=True)
class KeyRef:
    """Where one run's key is: the file the user gave, or this run's file in the state dir."""

    path: Path
    given: bool  # --key-file / AGENTIC_KEY_FILE: the kit never creates it
    disposable: bool = False  # one journal's own key, removed with it

    @classmethod
    def of(
        cls, run: Mapping[str, JsonValue], key_file: Path | None, environ: Mapping[str, str]
    ) -> KeyRef:
        """The key of the run ``run`` (a ``RunIdentity`` as JSON, without the shard: every shard
        of one run and their journals share it)."""
        if key_file is None and environ.get(KEY_FILE_ENV):
            key_file = Path(environ[KEY_FILE_ENV])
        if key_file is not None:
            return cls(key_file, given=True)
        return cls(keys_dir(environ) / fingerprint(dict(run)), given=False)

    def for_journal(self, folder: Path) -> KeyRef:
        """The key of the journal of a run that is not a shard. A state-dir key is then the
        journal's own (named by its folder too) and goes with it, so finished runs leave no
        keys behind; a shard's key must outlive its run, until the merge."""
        if self.given:
            return self
        name = fingerprint({"run": self.path.name, "journal": os.path.realpath(folder)})
        return KeyRef(self.path.with_name(f"journal-{name}"), given=False, disposable=True)

    def load(self) -> RunKey:
        """The key; ``run_key_missing`` when there is none, ``invalid_run_key`` when the file
        is not a regular file of 32 to 4096 bytes that the running user owns and alone may
        use."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            raise ContractError("run_key_missing", self._missing()) from None
        except OSError as exc:
            raise self._invalid(exc.strerror or str(exc)) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise self._invalid("not a regular file")
            # Its owner may rewrite it whatever its mode, and so forge shards and journal
            # entries: a key is trusted only when that is the user running the kit.
            if info.st_uid != os.geteuid():
                raise self._invalid(
                    f"owned by uid {info.st_uid}, not by the running user (uid {os.geteuid()}); "
                    "chown it or use a key of your own"
                )
            if info.st_mode & _NOT_OWNER:
                mode = oct(stat.S_IMODE(info.st_mode))
                raise self._invalid(f"others than its owner may use it (mode {mode}; chmod 600)")
            secret = os.read(fd, KEY_MAX_BYTES + 1)
        finally:
            os.close(fd)
        if not KEY_MIN_BYTES <= len(secret) <= KEY_MAX_BYTES:
            raise self._invalid(f"a key has {KEY_MIN_BYTES} to {KEY_MAX_BYTES} bytes")
        return RunKey(secret, str(self.path))

    def load_or_create(self) -> RunKey:
        """The key, created first in the state dir when there is none (never a given file)."""
        if not self.given:
            self._create()
        return self.load()

    def _create(self) -> None:
        """32 random bytes written whole to a private temp file, then hard-linked into place
        unless a key is there: concurrent shards of one run end up with one key, and no reader
        ever sees part of one."""
        temp = self.path.with_name(f"{TEMP_PREFIX}{self.path.name}-{secrets.token_hex(8)}")
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            with os.fdopen(os.open(temp, flags, 0o600), "wb") as handle:
                handle.write(secrets.token_bytes(KEY_MIN_BYTES))
                handle.flush()
                os.fsync(handle.fileno())
            # A key already there (another shard, an earlier journal of the run) is the run's.
            with contextlib.suppress(FileExistsError):
                os.link(temp, self.path)
        except OSError as exc:
            raise ContractError(
                "run_key_unavailable",
                f"cannot keep this run's key in {self.path.parent} ({exc.strerror or exc}); "
                f"set {KEY_FILE_ENV} to a key file, or XDG_STATE_HOME to a writable folder",
            ) from None
        finally:
            with contextlib.suppress(OSError):  # gone once linked, or never made
                temp.unlink()

    def _missing(self) -> str:
        if self.given:
            return f"{self.path}: no such key file"
        return (
            f"no key of this run at {self.path}: journals and shards are accepted only with "
            f"the key of the run that wrote them (the same user's state dir, or the same "
            f"--key-file / {KEY_FILE_ENV} on every machine)"
        )

    def _invalid(self, why: str) -> ContractError:
        return ContractError("invalid_run_key", f"{self.path}: {why}")


@dataclass(frozen=True)
class Resumed:
    """What a journal already holds: preparation records by adapter, receipts by pair."""

    preparations: Mapping[str, Preparation]
    receipts: Mapping[PairKey, TrajectoryReceipt]
    cut_short: int = 0  # entries a crash left unreadable: their pairs run again


NOTHING = Resumed({}, {})


def _invalid(path: Path, why: str) -> ContractError:
    return ContractError(
        "invalid_journal", f"{path}: {why}; the journal is kept as it is (remove it to start over)"
    )


def _entry_name(key: PairKey) -> str:
    return f"{fingerprint(key.to_json())}.json"


@dataclass(frozen=True)
class _Sealer:
    """Seals the entries of one run's journal. The run's identity is sealed with each entry, so
    an entry of another run sealed with the same key (one ``--key-file`` for many runs) does not
    verify here."""

    key: RunKey
    run: Mapping[str, JsonValue]

    @cached_property
    def _run_bytes(self) -> bytes:
        return canonical_bytes(dict(self.run))

    def _document(self, kind: str, members: Mapping[str, bytes]) -> tuple[str, bytes]:
        """The domain and canonical bytes sealed for an entry given as its members' canonical
        bytes (``hmac`` left out): ``{"run": ..., "entry": ...}`` in this kind's domain."""
        entry = canonical_object(members)
        return f"{JOURNAL_KIND}-{kind}", canonical_object({"run": self._run_bytes, "entry": entry})

    def seal(self, kind: str, members: Mapping[str, bytes]) -> str:
        return self.key.seal_canonical(*self._document(kind, members))

    def check(self, path: Path, kind: str, entry: Mapping[str, JsonValue]) -> None:
        members = {name: canonical_bytes(value) for name, value in entry.items() if name != "hmac"}
        if not self.key.opens_canonical(*self._document(kind, members), entry.get("hmac")):
            raise _invalid(path, "its HMAC does not verify under this run's key (edited or forged)")


class Journal:
    """An open, locked journal. ``close`` releases the lock; ``finish`` also removes it."""

    def __init__(self, folder: Path, lock_fd: int) -> None:
        self.folder = folder
        self._lock_fd = lock_fd
        self._sealer: _Sealer | None = None  # None: no key could be kept, never resumable
        self._key: KeyRef | None = None
        self.unresumable: str | None = None  # why, for the run's log
        self._journaled: Mapping[str, Preparation] = {}  # the resumed preparations
        self.recorded = 0  # receipts journaled by this run

    @classmethod
    def open(
        cls,
        target: Path,
        identity: Mapping[str, JsonValue],
        planned: frozenset[PairKey],
        *,
        resume: bool,
        key: KeyRef,
    ) -> tuple[Journal, Resumed]:
        """The journal of the run ``identity`` at ``target``: a new one, or with ``resume`` the
        one an interrupted run of the same identity left (its entries checked under ``key`` and
        returned)."""
        folder = journal_folder(target)
        existed = _check_folder(folder)
        if not existed:
            folder.mkdir(parents=True)
        journal = cls(folder, _lock(folder))
        try:
            if not existed or _unborn(folder):
                journal._begin(identity, key)
                return journal, NOTHING
            header = _check_header(folder, identity, resume=resume)
            journal._key = key
            journal._sealer = _Sealer(_resume_key(folder, header, key), identity)
            resumed = _load_entries(folder, planned, journal._sealer)
            journal._journaled = resumed.preparations
            return journal, resumed
        except BaseException:
            journal.close()
            if not existed:  # nothing journaled yet: leave no folder behind a refused start
                shutil.rmtree(folder, ignore_errors=True)
            raise

    def _begin(self, identity: Mapping[str, JsonValue], key: KeyRef) -> None:
        self._key = key
        try:
            run_key: RunKey | None = key.load_or_create()
        except ContractError as exc:
            # A state dir that cannot be written (a container's user without a home, say) must
            # not stop the run; only its resume is lost, and the run's log says so.
            if exc.code != "run_key_unavailable":
                raise
            run_key, self.unresumable = None, f"this run cannot be resumed: {exc.message}"
        (self.folder / PAIRS).mkdir(exist_ok=True)
        (self.folder / PREPARATIONS).mkdir(exist_ok=True)
        header = {
            "kind": JOURNAL_KIND,
            "version": JOURNAL_VERSION,
            "run": dict(identity),
            "keyId": None if run_key is None else run_key.key_id,
        }
        replace_atomically(self.folder / HEADER, canonical_bytes(header))
        self._sealer = None if run_key is None else _Sealer(run_key, identity)

    def _sealed(self, kind: str, members: Mapping[str, bytes]) -> bytes:
        """The entry's file: its members (canonical bytes each, so a receipt is canonicalized
        once for its hash, its seal and its file) and their ``hmac``."""
        mac = None if self._sealer is None else self._sealer.seal(kind, members)
        return canonical_object({**members, "hmac": canonical_bytes(mac)})

    def preparation(self, record: Preparation) -> None:
        # Checked here, before the record replaces the journaled one and any pair of the new
        # index is journaled: refused later, a second --resume would mix the two indexes.
        _check_index(self._journaled.get(record.adapterId), record)
        path = self.folder / PREPARATIONS / f"{fingerprint(record.adapterId)}.json"
        entry = self._sealed("preparation", {"preparation": canonical_bytes(record.to_json())})
        replace_atomically(path, entry, durable=False)

    def receipt(self, key: PairKey, receipt: TrajectoryReceipt) -> None:
        # The receipt's "canonical" member is its canonical part, whose hash the entry carries.
        parts = {name: canonical_bytes(value) for name, value in receipt.to_json().items()}
        entry = {
            "key": canonical_bytes(key.to_json()),
            "canonicalSha256": canonical_bytes(sha256_hex(parts["canonical"])),
            "receipt": canonical_object(parts),
        }
        path = self.folder / PAIRS / _entry_name(key)
        replace_atomically(path, self._sealed("pair", entry), durable=False)
        self.recorded += 1

    def finish(self) -> None:
        """The report is written: the journal goes, and its own key with it."""
        shutil.rmtree(self.folder, ignore_errors=True)
        if self._key is not None and self._key.disposable:
            with contextlib.suppress(OSError):
                self._key.path.unlink()
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


def _check_header(folder: Path, identity: Mapping[str, JsonValue], *, resume: bool) -> JsonObject:
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
    return header


def _resume_key(folder: Path, header: Mapping[str, JsonValue], key: KeyRef) -> RunKey:
    """The key the journal was sealed with, or a refusal that names what is missing."""
    recorded = header.get("keyId")
    if recorded is None:
        raise ContractError(
            "run_key_missing",
            f"{folder} was begun where no key could be kept, so its entries cannot be trusted; "
            "remove it to start over",
        )
    if not isinstance(recorded, str):
        raise _invalid(folder / HEADER, "its keyId is not a string")
    run_key = key.load()
    if run_key.key_id != recorded:
        raise ContractError(
            "run_key_mismatch",
            f"{folder} was sealed with another key than {run_key.where}; the journal is kept",
        )
    return run_key


def _entries(folder: Path) -> list[Path]:
    """The entry files of one journal folder; temp files of a killed write are removed."""
    paths = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(TEMP_PREFIX):
            path.unlink(missing_ok=True)
        else:
            paths.append(path)
    return paths


def _load_entries(folder: Path, planned: frozenset[PairKey], sealer: _Sealer) -> Resumed:
    preparations: dict[str, Preparation] = {}
    cut_short = 0
    for path in _entries(folder / PREPARATIONS):
        entry = _read(path)
        if entry is None:
            cut_short += 1
            continue
        record = _load_preparation(path, entry, sealer)
        preparations[record.adapterId] = record
    by_name = {_entry_name(key): key for key in planned}
    receipts: dict[PairKey, TrajectoryReceipt] = {}
    for path in _entries(folder / PAIRS):
        key = by_name.get(path.name)
        if key is None:
            raise _invalid(path, "a pair this run does not plan")
        entry = _read(path)
        if entry is None:
            cut_short += 1
            continue
        receipts[key] = _load_receipt(path, key, entry, sealer)
    return Resumed(preparations, receipts, cut_short)


def _read(path: Path) -> JsonObject | None:
    """The entry at ``path``; None when it is not a whole JSON document (empty, or cut short
    by a power loss: entries are not fsynced)."""
    try:
        data = read_input_file(path, code="invalid_journal")
    except ContractError as exc:
        raise _invalid(path, exc.message) from None
    try:
        return parse_strict_object(data, source=str(path))
    except ContractError as exc:
        refused = _invalid(path, exc.message)
    # Refused: told apart only now (a second parse, on this rare path alone).
    try:
        json.loads(data)
    except ValueError:  # not JSON at all: never a document the kit wrote whole
        return None
    raise refused


PREPARATION_ENTRY = frozenset({"preparation", "hmac"})
PAIR_ENTRY = frozenset({"key", "canonicalSha256", "receipt", "hmac"})


def _load_preparation(path: Path, entry: JsonObject, sealer: _Sealer) -> Preparation:
    if set(entry) != PREPARATION_ENTRY:
        raise _invalid(path, f"a preparation entry holds exactly {sorted(PREPARATION_ENTRY)}")
    try:
        record = Preparation.model_validate(entry["preparation"])
    except ValueError as exc:
        raise _invalid(path, f"not a preparation record ({type(exc).__name__})") from None
    if path.name != f"{fingerprint(record.adapterId)}.json":
        raise _invalid(path, f"named for another adapter than {record.adapterId!r}")
    sealer.check(path, "preparation", entry)
    return record


def _load_receipt(
    path: Path, key: PairKey, entry: JsonObject, sealer: _Sealer
) -> TrajectoryReceipt:
    if set(entry) != PAIR_ENTRY:  # closed: nothing rides along unchecked (a score, say)
        raise _invalid(path, f"a pair entry holds exactly {sorted(PAIR_ENTRY)}")
    if entry.get("key") != key.to_json():
        raise _invalid(path, "its key is not the pair it is named for")
    document = entry.get("receipt")
    if not isinstance(document, dict):
        raise _invalid(path, "no receipt")
    try:
        # The closed, strict models without the JSON Schema pass (7x faster on a resume of
        # hundreds of pairs): the kit wrote this entry, and its HMAC is checked below.
        receipt = load_model("trajectory-receipt", document, source=str(path))
    except ContractError as exc:
        raise _invalid(path, exc.message) from None
    if not isinstance(receipt, TrajectoryReceipt):
        raise _invalid(path, "not a trajectory receipt")
    if PairKey.of(key.pass_, receipt.canonical) != key:
        raise _invalid(path, "its receipt is of another pair")
    if fingerprint(receipt.canonical.to_json()) != entry.get("canonicalSha256"):
        raise _invalid(path, "its receipt's canonical hash differs from the recorded one")
    sealer.check(path, "pair", entry)
    return receipt


def _check_index(earlier: Preparation | None, record: Preparation) -> None:
    """An adapter prepared again must have the journaled index, or its old and new receipts
    would not be of one index."""
    if earlier is None or record.observations.preparationUnavailableReason is not None:
        return
    if earlier.indexFingerprint != record.indexFingerprint:
        raise ContractError(
            "journal_mismatch",
            f"{record.adapterId} prepared an index other than the journaled one "
            f"({record.indexFingerprint[:12]} vs {earlier.indexFingerprint[:12]}); "
            "remove the journal to start over",
        )


def with_resumed(fresh: RunResult, resumed: Resumed) -> RunResult:
    """The whole run: the journaled pairs and preparations with those run since."""
    preparations = dict(resumed.preparations)
    for record in fresh.preparations:
        _check_index(preparations.get(record.adapterId), record)
        if record.adapterId not in preparations or (
            record.observations.preparationUnavailableReason is not None
        ):
            preparations[record.adapterId] = record  # a failed one stops the report
    scored = [r for k, r in resumed.receipts.items() if k.pass_ == "scored"]
    again = [r for k, r in resumed.receipts.items() if k.pass_ == "replay"]
    for adapter_id in {r.canonical.adapterId for r in scored} - preparations.keys():
        raise ContractError("invalid_journal", f"no journaled preparation of {adapter_id}")
    return combine_parts(
        preparations.values(),
        [*scored, *fresh.receipts],
        [*again, *fresh.replay_receipts],
    )
