"""A content-addressed record/replay cache of model-endpoint exchanges.

Each request is reduced to what decides its answer (method, path and JSON body, without the
transport-only fields ``TRANSPORT_FIELDS``), canonicalized with RFC 8785 and hashed; the key is
that sha256. ``record`` sends every request to the endpoint and stores its final response (its
HTTP status and the body text, as received) under the key, with the body's own sha256.
``replay`` answers every request from the cache and never opens a connection, so a lane whose
requests were all recorded reruns with the endpoint down, to the same receipts. ``off`` is no
cache at all.

One entry is one file, ``<DIR>/<key>.json``, written atomically. An entry is read as strictly as
every other input: strict JSON, the closed shape below, its key equal to the hash of its request
and its body equal to its hash. A request missing in replay, or an entry that fails a check, is
a ContractError (exit 2): a replayed lane is whole or it does not run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from agentic.contract.canonical import canonical_bytes, sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file, replace_atomically
from agentic.contract.strict_json import parse_strict

CacheMode = Literal["record", "replay", "off"]
CACHE_MODES: tuple[CacheMode, ...] = ("record", "replay", "off")
ENTRY_FORMAT = "agentic-llm-cache-entry/1"
# Fields that change how an answer travels, never what it says.
TRANSPORT_FIELDS = frozenset({"stream", "stream_options", "user", "timeout"})


@dataclass(frozen=True)
class Exchange:
    """One request as the cache keys it."""

    method: str
    path: str
    body: dict[str, Any] | None

    def keyed(self) -> dict[str, Any]:
        body = None
        if self.body is not None:
            body = {k: v for k, v in self.body.items() if k not in TRANSPORT_FIELDS}
        return {"method": self.method, "path": self.path, "body": body}

    def key(self) -> str:
        return sha256_hex(canonical_bytes(self.keyed()))


@dataclass(frozen=True)
class Response:
    status: int
    body: str


class _Stored(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    format: Literal["agentic-llm-cache-entry/1"]
    key: str
    request: dict[str, Any]
    status: int
    body: str
    bodySha256: str


@dataclass(frozen=True)
class LlmCache:
    folder: Path
    mode: CacheMode

    def path(self, exchange: Exchange) -> Path:
        return self.folder / f"{exchange.key()}.json"

    def load(self, exchange: Exchange) -> Response:
        """The stored response of ``exchange``; ContractError when missing or not intact."""
        path = self.path(exchange)
        if not path.is_file():
            raise ContractError(
                "llm_cache_miss",
                f"{exchange.method} {exchange.path} is not in the cache {self.folder} "
                f"(key {exchange.key()[:16]}); record it first with --llm-cache-mode record",
            )
        source = str(path)
        document = parse_strict(read_input_file(path, code="llm_cache_corrupt"), source=source)
        try:
            stored = _Stored.model_validate(document)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = "/".join(str(part) for part in first["loc"])
            raise ContractError("llm_cache_corrupt", f"{source}: {where}: {first['msg']}") from None
        if stored.key != exchange.key() or stored.request != exchange.keyed():
            raise ContractError("llm_cache_corrupt", f"{source}: its request is not this one")
        if sha256_hex(stored.body.encode("utf-8")) != stored.bodySha256:
            raise ContractError("llm_cache_corrupt", f"{source}: its body fails its sha256")
        return Response(stored.status, stored.body)

    def store(self, exchange: Exchange, response: Response) -> None:
        entry = {
            "format": ENTRY_FORMAT,
            "key": exchange.key(),
            "request": exchange.keyed(),
            "status": response.status,
            "body": response.body,
            "bodySha256": sha256_hex(response.body.encode("utf-8")),
        }
        target = self.path(exchange)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            replace_atomically(target, canonical_bytes(entry) + b"\n")
        except OSError as exc:
            raise ContractError("llm_cache_write_failed", f"cannot write {target}: {exc}") from None


def open_cache(folder: Path | None, mode: CacheMode) -> LlmCache | None:
    """The cache of ``--llm-cache DIR --llm-cache-mode MODE``; None for ``off``."""
    if mode == "off":
        if folder is not None:
            raise ContractError("invalid_cli_option", "--llm-cache needs a mode other than off")
        return None
    if folder is None:
        raise ContractError("invalid_cli_option", f"--llm-cache-mode {mode} needs --llm-cache DIR")
    if mode == "replay" and not folder.is_dir():
        raise ContractError("llm_cache_miss", f"{folder} is not a cache folder")
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise ContractError("unsafe_output_path", f"{folder} is not a folder")
    return LlmCache(folder, mode)
