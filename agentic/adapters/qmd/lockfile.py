"""``locks/qmd.lock.json``: the exact qmd the comparator lanes run, and what it must list.

The lock records:

- the committed npm inputs (``locks/qmd/package.json`` and ``package-lock.json``, the latter
  pinning every package by integrity hash) by sha256, so an edited npm lock without a re-recorded
  qmd lock is caught before anything runs;
- the Node and qmd package versions the install must hold, and the MCP server identity;
- the MCP tools qmd listed when the lock was recorded: name, description, and the fingerprint
  (sha256 of RFC 8785 bytes) of the input schema; any drift fails preflight;
- the three GGUF models of the full lane, by node-llama-cpp cache file name, size and sha256;
- the seed's git revision of qmd, for the optional pinned-checkout mode.

The JSON is parsed strictly (duplicate keys fail) into closed models. Error codes (ContractError):
``qmd_lock_missing``, ``qmd_lock_malformed``, ``qmd_lock_invalid``, ``qmd_lock_mismatch``,
``qmd_tool_drift``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError

from agentic.contract.base import ContractModel, NonEmptyStr, PositiveInt, Sha256, Str, first_error
from agentic.contract.canonical import fingerprint, sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject, parse_strict_object
from agentic.resources import locks_dir

LOCK_FILE = "qmd.lock.json"
_RELATIVE = Annotated[Str, Field(pattern=r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$")]


class PinnedInput(ContractModel):
    """A committed file, relative to the locks folder, by sha256 of its bytes."""

    path: _RELATIVE
    sha256: Sha256


class NpmInputs(ContractModel):
    packageJson: PinnedInput
    packageLock: PinnedInput


class NodePin(ContractModel):
    package: NonEmptyStr
    version: Annotated[Str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")]
    minimumMajor: PositiveInt


class QmdPin(ContractModel):
    package: NonEmptyStr
    version: Annotated[Str, Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")]
    entry: _RELATIVE


class ServerPin(ContractModel):
    name: NonEmptyStr
    version: NonEmptyStr


class ToolPin(ContractModel):
    name: NonEmptyStr
    description: Str
    inputSchemaFingerprint: Sha256


class ModelPin(ContractModel):
    """One GGUF of the full lane; ``uri`` is provenance only and is never fetched."""

    role: Literal["embed", "rerank", "generate"]
    uri: Annotated[Str, Field(pattern=r"^hf:")]
    fileName: Annotated[Str, Field(pattern=r"^[A-Za-z0-9._-]+\.gguf$")]
    sizeBytes: PositiveInt
    sha256: Sha256
    revision: Annotated[Str, Field(pattern=r"^[a-f0-9]{40}$")]
    license: NonEmptyStr


class SourceCheckout(ContractModel):
    commit: Annotated[Str, Field(pattern=r"^[a-f0-9]{40}$")]
    release: NonEmptyStr


class QmdLock(ContractModel):
    schemaVersion: Literal["1.0"]
    npm: NpmInputs
    node: NodePin
    qmd: QmdPin
    server: ServerPin
    tools: tuple[ToolPin, ...]
    toolsFingerprint: Sha256
    models: Annotated[tuple[ModelPin, ...], Field(min_length=3, max_length=3)]
    sourceCheckout: SourceCheckout

    def model(self, role: str) -> ModelPin:
        return next(m for m in self.models if m.role == role)


def lock_path() -> Path:
    return locks_dir() / LOCK_FILE


def parse_qmd_lock(data: bytes, *, source: str) -> QmdLock:
    value = parse_strict_object(data, source=source, code="qmd_lock_malformed")
    try:
        lock = QmdLock.model_validate(value)
    except ValidationError as exc:
        raise ContractError("qmd_lock_invalid", f"{source}: {first_error(exc)}") from None
    if tools_fingerprint(lock.tools) != lock.toolsFingerprint:
        raise ContractError("qmd_lock_invalid", f"{source}: toolsFingerprint does not match tools")
    if sorted({m.role for m in lock.models}) != ["embed", "generate", "rerank"]:
        raise ContractError("qmd_lock_invalid", f"{source}: models must be embed, generate, rerank")
    return lock


def load_qmd_lock(path: Path | None = None) -> QmdLock:
    target = path or lock_path()
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise ContractError("qmd_lock_missing", f"cannot read {target}: {exc.strerror}") from None
    return parse_qmd_lock(data, source=str(target))


def check_npm_inputs(lock: QmdLock, root: Path | None = None) -> None:
    """The committed package.json and package-lock.json are the ones the lock was recorded from."""
    base = root or locks_dir()
    for pin in (lock.npm.packageJson, lock.npm.packageLock):
        try:
            actual = sha256_hex((base / pin.path).read_bytes())
        except OSError as exc:
            message = f"cannot read {pin.path}: {exc.strerror}"
            raise ContractError("qmd_lock_missing", message) from None
        if actual != pin.sha256:
            raise ContractError(
                "qmd_lock_mismatch",
                f"{pin.path} has sha256 {actual}, {LOCK_FILE} records {pin.sha256}; "
                "re-record the lock with 'agentic qmd record'",
            )


def tool_pins(listed: Sequence[JsonObject]) -> tuple[ToolPin, ...]:
    """Pins of listed MCP tools (``name``, ``description``, ``inputSchema``), sorted by name."""
    pins = [
        ToolPin(
            name=str(tool["name"]),
            description=str(tool.get("description") or ""),
            inputSchemaFingerprint=fingerprint(tool.get("inputSchema") or {}),
        )
        for tool in listed
    ]
    return tuple(sorted(pins, key=lambda pin: pin.name))


def tools_fingerprint(pins: Sequence[ToolPin]) -> str:
    return fingerprint([pin.model_dump() for pin in pins])


def check_tools(lock: QmdLock, listed: Sequence[JsonObject]) -> None:
    """qmd must list exactly the locked tools; the first difference is named."""
    actual = {pin.name: pin for pin in tool_pins(listed)}
    expected = {pin.name: pin for pin in lock.tools}
    if sorted(actual) != sorted(expected):
        raise ContractError(
            "qmd_tool_drift",
            f"qmd lists tools {sorted(actual)}, the lock pins {sorted(expected)}",
        )
    for name, pin in sorted(expected.items()):
        if actual[name].description != pin.description:
            raise ContractError("qmd_tool_drift", f"the description of qmd tool {name!r} changed")
        if actual[name].inputSchemaFingerprint != pin.inputSchemaFingerprint:
            raise ContractError("qmd_tool_drift", f"the input schema of qmd tool {name!r} changed")
