"""The full ``qmd`` lane's three GGUF models, verified in a read-only cache before qmd starts.

``QMD_MODEL_CACHE`` names a folder holding the files under the exact names node-llama-cpp gives
them in qmd's own cache (``hf_<owner>_<file>.gguf``), so a user may point it at an existing
``~/.cache/qmd/models``. Each file must have the locked byte size and sha256 (checked by size
first, then streamed through sha256); nothing is copied, fetched or written there. qmd is then
configured with the verified absolute paths, so it never resolves a model name itself (which
would try to download and hang offline).

Error codes (ContractError): ``qmd_model_cache_unset``, ``qmd_model_missing``,
``qmd_model_size_mismatch``, ``qmd_model_sha256_mismatch``, ``qmd_model_changed``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters.qmd.lockfile import ModelPin, QmdLock
from agentic.contract.errors import ContractError

MODEL_CACHE_ENV = "QMD_MODEL_CACHE"
_CHUNK = 1 << 20


@dataclass(frozen=True)
class VerifiedModels:
    """Absolute paths of the verified files, by qmd config role."""

    embed: Path
    rerank: Path
    generate: Path

    def config(self) -> dict[str, str]:
        return {
            "embed": str(self.embed),
            "rerank": str(self.rerank),
            "generate": str(self.generate),
        }


def model_cache(environ: Mapping[str, str]) -> Path:
    value = environ.get(MODEL_CACHE_ENV, "")
    if not value:
        raise ContractError(
            "qmd_model_cache_unset",
            f"the qmd lane needs {MODEL_CACHE_ENV} naming a folder with its three pinned models",
        )
    return Path(value)


def _stat_size(path: Path) -> int:
    try:
        if not path.is_file():
            raise FileNotFoundError
        return path.stat().st_size
    except OSError:
        raise ContractError("qmd_model_missing", f"{path} is not a readable file") from None


def verify_model(path: Path, pin: ModelPin) -> Path:
    """Size, then streaming sha256; the file must not change while it is hashed."""
    size = _stat_size(path)
    if size != pin.sizeBytes:
        raise ContractError(
            "qmd_model_size_mismatch",
            f"{path} has {size} bytes, the lock pins {pin.sizeBytes}",
        )
    digest = hashlib.sha256()
    before = path.stat()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    after = path.stat()
    if (before.st_mtime_ns, before.st_size, before.st_ino) != (
        after.st_mtime_ns,
        after.st_size,
        after.st_ino,
    ):
        raise ContractError("qmd_model_changed", f"{path} changed while it was being hashed")
    if digest.hexdigest() != pin.sha256:
        raise ContractError(
            "qmd_model_sha256_mismatch",
            f"{path} has sha256 {digest.hexdigest()}, the lock pins {pin.sha256}",
        )
    return path.resolve()


def verify_models(lock: QmdLock, environ: Mapping[str, str] | None = None) -> VerifiedModels:
    cache = model_cache(os.environ if environ is None else environ)
    paths = {pin.role: verify_model(cache / pin.fileName, pin) for pin in lock.models}
    return VerifiedModels(embed=paths["embed"], rerank=paths["rerank"], generate=paths["generate"])
