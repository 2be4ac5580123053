"""A cache of prepared native indexes, keyed by adapter, corpus and configuration.

Preparation is unmeasured work that depends only on the corpus snapshot and the adapter's
configuration, so a lane may reuse an index built earlier (by ``nox -s prepare``) when both
fingerprints are unchanged. An entry is written by staging and one rename, so a killed writer
never leaves a half entry that a later run could mistake for a complete one. A reused index is
copied into the run's own temporary root: adapters still write only under their root.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters.base import Adapter, PreparedIndex
from agentic.contract.canonical import canonical_bytes, fingerprint
from agentic.contract.errors import ContractError
from agentic.contract.json_access import as_number, as_object, as_scalar
from agentic.contract.strict_json import JsonValue, parse_strict_object
from agentic.fixture.snapshot import CorpusSnapshot

ENTRY_FILE = "prepared.json"
INDEX_DIR = "index"


@dataclass(frozen=True)
class CachedPreparation:
    prepared: PreparedIndex
    reused: bool


def entry_key(adapter: Adapter, snapshot: CorpusSnapshot) -> str:
    return fingerprint(
        {
            "adapterId": adapter.adapter_id,
            "corpusFingerprint": snapshot.fingerprint,
            "configFingerprint": fingerprint(adapter.config),
        }
    )


def entry_path(cache: Path, adapter: Adapter, snapshot: CorpusSnapshot) -> Path:
    return cache / adapter.adapter_id / entry_key(adapter, snapshot)


def prepare_cached(
    adapter: Adapter, snapshot: CorpusSnapshot, root: Path, cache: Path, *, timeout_s: float
) -> CachedPreparation:
    """Copy a cached index into ``root``, or prepare into ``root`` and add it to the cache."""
    entry = entry_path(cache, adapter, snapshot)
    if (entry / ENTRY_FILE).is_file():
        return CachedPreparation(_restore(entry, root, adapter.adapter_id), reused=True)
    prepared = adapter.prepare(snapshot, root, timeout_s=timeout_s)
    _store(entry, prepared)
    return CachedPreparation(prepared, reused=False)


def _restore(entry: Path, root: Path, adapter_id: str) -> PreparedIndex:
    document = parse_strict_object((entry / ENTRY_FILE).read_bytes(), source=str(entry))
    try:
        prepared = PreparedIndex(
            adapter_id=adapter_id,
            root=root,
            corpus_fingerprint=str(document["corpusFingerprint"]),
            index_fingerprint=str(document["indexFingerprint"]),
            config_fingerprint=str(document["configFingerprint"]),
            preparation_ms=float(as_number(document["preparationMs"], "preparationMs")),
            details={**_details(document["details"]), "indexCache": "reused"},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ContractError(
            "invalid_index_cache", f"{entry}: malformed {ENTRY_FILE}: {exc}"
        ) from None
    shutil.copytree(entry / INDEX_DIR, root, dirs_exist_ok=True, symlinks=True)
    return prepared


def _details(value: JsonValue) -> dict[str, str | int | float | bool | None]:
    details = as_object(value, "details")
    return {key: as_scalar(item, f"details.{key}") for key, item in details.items()}


def _store(entry: Path, prepared: PreparedIndex) -> None:
    entry.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=entry.parent))
    try:
        shutil.copytree(prepared.root, staging / INDEX_DIR, symlinks=True)
        document = {
            "adapterId": prepared.adapter_id,
            "corpusFingerprint": prepared.corpus_fingerprint,
            "indexFingerprint": prepared.index_fingerprint,
            "configFingerprint": prepared.config_fingerprint,
            "preparationMs": prepared.preparation_ms,
            "details": dict(prepared.details),
        }
        (staging / ENTRY_FILE).write_bytes(canonical_bytes(document))
        os.rename(staging, entry)
    except OSError:
        # Another writer won the race, or the cache is read-only: the run goes on uncached.
        shutil.rmtree(staging, ignore_errors=True)
