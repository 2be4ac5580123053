"""A content-addressed record/reuse cache of model-endpoint exchanges.

Each request is reduced to what decides its answer (method, path and JSON body, without the
transport-only fields ``TRANSPORT_FIELDS``), canonicalized with RFC 8785 and hashed; the key is
that sha256. ``record`` sends every request to the endpoint and stores its final response (its
HTTP status and the body text, as received) under the key, with the body's own sha256.
``reuse`` answers every request from the cache and never opens a connection, so a lane whose
requests were all recorded reruns with the endpoint down, to the same receipts. ``off`` is no
cache at all.

One entry is one file, ``<DIR>/<key>.json``, written atomically. Only an answer is recorded: a
2xx, or the endpoint's refusal of a request longer than the model's context (``is_context_refusal``:
the agent's failure, ``agent_context_exceeded``, which a rerun must reproduce like any answer).
Any other error response (a refused key, a broken endpoint) or a transport failure is the run's
failure, never an answer to reuse, and its body may quote what was sent (a key). An entry is read
as strictly as every other input and held to what live mode accepts: a regular file, never a link,
of at most ``MAX_ENTRY_BYTES`` (checked before a byte is read), strict JSON, the closed shape
below, its key equal to the hash of its request, a recordable status and body, and a body within
the live cap ``MAX_RESPONSE_BYTES`` equal to its hash. A request missing on reuse, or an entry
that fails a check, is a ContractError (exit 2): a lane rerun from the cache is whole or
does not run.

``entries_digest`` names the entries a pair used (each one's key, status and body hash, in the
order asked), so two reruns from caches that differ only where no receipt looks still differ in
what the run records about itself (the pair's observations).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from agentic.contract.canonical import canonical_bytes, fingerprint, sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file, replace_atomically
from agentic.contract.pair_notes import LlmAnswer, LlmAnswers, encode, notes_of
from agentic.contract.strict_json import JsonObject, parse_strict

CacheMode = Literal["record", "reuse", "off"]
CACHE_MODES: tuple[CacheMode, ...] = ("record", "reuse", "off")
ENTRY_FORMAT = "agentic-llm-cache-entry/1"
# Fields that change how an answer travels, never what it says.
TRANSPORT_FIELDS = frozenset({"stream", "stream_options", "user", "timeout"})
# The most of a reply live mode reads (chat_endpoint.py); a reused body is held to it too.
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
# An entry holds its body JSON-escaped (at worst 6 bytes a byte, a control character as \u00XX)
# beside its request: every entry the kit can write fits, a 60 MB file is never read.
MAX_ENTRY_BYTES = 32 * 1024 * 1024


# How endpoints say a request is longer than the model's context: OpenAI's error code, and the
# messages of llama.cpp's server, vLLM and others.
_TOO_LONG = re.compile(
    r"context_length_exceeded|exceeds? (?:the )?(?:model's )?context (?:window|length|size)"
    r"|maximum context length",
    re.IGNORECASE,
)


def is_success(status: int) -> bool:
    return 200 <= status < 300


def is_context_refusal(status: int, body: str) -> bool:
    """Whether the endpoint refused the request as longer than the model's context."""
    return status == 400 and _TOO_LONG.search(body) is not None


def is_recordable(status: int, body: str) -> bool:
    """Whether a response is an answer the cache keeps: what the model did, never what the
    endpoint or the network failed to do."""
    return is_success(status) or is_context_refusal(status, body)


@dataclass(frozen=True)
class Exchange:
    """One request as the cache keys it."""

    method: str
    path: str
    body: JsonObject | None

    def keyed(self) -> JsonObject:
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

    def body_sha256(self) -> str:
        return sha256_hex(self.body.encode("utf-8"))


@dataclass(frozen=True)
class EntryUse:
    """One entry a pair recorded or reused: its key and what it answered."""

    key: str
    status: int
    body_sha256: str

    @classmethod
    def of(cls, exchange: Exchange, response: Response) -> EntryUse:
        return cls(exchange.key(), response.status, response.body_sha256())


def entries_digest(uses: Iterable[EntryUse]) -> str:
    """The sha256 naming the entries used, in order (see the module docstring)."""
    return fingerprint([[u.key, u.status, u.body_sha256] for u in uses])


class _Stored(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    format: Literal["agentic-llm-cache-entry/1"]
    key: str
    request: JsonObject
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
        source = str(path)
        document = parse_strict(self._entry_bytes(exchange, path), source=source)
        try:
            stored = _Stored.model_validate(document)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = "/".join(str(part) for part in first["loc"])
            raise ContractError("llm_cache_corrupt", f"{source}: {where}: {first['msg']}") from None
        if stored.key != exchange.key() or stored.request != exchange.keyed():
            raise ContractError("llm_cache_corrupt", f"{source}: its request is not this one")
        _check_answer(source, stored)
        return Response(stored.status, stored.body)

    def _entry_bytes(self, exchange: Exchange, path: Path) -> bytes:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            raise ContractError(
                "llm_cache_miss",
                f"{exchange.method} {exchange.path} is not in the cache {self.folder} "
                f"(key {exchange.key()[:16]}); record it first with --llm-cache-mode record",
            ) from None
        except OSError as exc:
            raise ContractError("llm_cache_corrupt", f"{path}: {exc.strerror or exc}") from None
        # The kit writes regular files only: a link could stand in for any file on the machine.
        if stat.S_ISLNK(mode):
            raise ContractError("llm_cache_corrupt", f"{path}: is a link, not a cache entry")
        return read_input_file(path, code="llm_cache_corrupt", max_bytes=MAX_ENTRY_BYTES)

    def store(self, exchange: Exchange, response: Response) -> None:
        if not is_recordable(response.status, response.body):
            raise ValueError(f"HTTP {response.status} is an error response, never recorded")
        entry = {
            "format": ENTRY_FORMAT,
            "key": exchange.key(),
            "request": exchange.keyed(),
            "status": response.status,
            "body": response.body,
            "bodySha256": response.body_sha256(),
        }
        target = self.path(exchange)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            replace_atomically(target, canonical_bytes(entry) + b"\n")
        except OSError as exc:
            raise ContractError("llm_cache_write_failed", f"cannot write {target}: {exc}") from None


def _check_answer(source: str, stored: _Stored) -> None:
    """What live mode would have refused is refused on reuse too."""
    if not is_recordable(stored.status, stored.body):
        raise ContractError(
            "llm_cache_corrupt",
            f"{source}: HTTP {stored.status}, an error response is never recorded",
        )
    body = stored.body.encode("utf-8")
    if len(body) > MAX_RESPONSE_BYTES:
        raise ContractError(
            "llm_cache_corrupt",
            f"{source}: its body is {len(body)} bytes, over the {MAX_RESPONSE_BYTES}-byte cap",
        )
    if sha256_hex(body) != stored.bodySha256:
        raise ContractError("llm_cache_corrupt", f"{source}: its body fails its sha256")


def uses_notes(mode: CacheMode, uses: Sequence[EntryUse]) -> list[str]:
    """What a pair's observations say of the entries it used (``contract/pair_notes.py``): one
    note per answer, naming its key in the order it was asked (what a pruned cache must keep,
    ``used_keys``), then their count and digest."""
    if mode == "off":
        return []  # no cache, no entries
    count = len(uses)
    named = [
        encode(LlmAnswer(mode=mode, index=index, of=count, entry=use.key))
        for index, use in enumerate(uses, start=1)
    ]
    summary = LlmAnswers(mode=mode, count=count, digest=entries_digest(uses))
    return [*named, encode(summary)]


def used_keys(notes: Iterable[str]) -> set[str] | None:
    """The cache keys named by a lane's notes (every pair's diagnostics); None when the notes
    name no answer, or do not name every answer they count: nothing may then be pruned. (Notes
    that name nothing are notes this code cannot read, never a lane that used no answer: an
    endpoint lane asks at least one question per pair.)"""
    listed = list(notes)
    answers = list(notes_of(listed, LlmAnswer))
    counted = sum(summary.count for summary in notes_of(listed, LlmAnswers))
    if not answers or len(answers) != counted:
        return None
    return {answer.entry for answer in answers}


def asked_order(notes: Iterable[str]) -> list[str]:
    """The keys one pair's notes name, in the order the pair asked them."""
    return [answer.entry for answer in notes_of(notes, LlmAnswer)]


def unused_entries(folder: Path, keep: set[str]) -> list[Path]:
    """The turns of a conversation in ``folder`` whose key is not in ``keep``: answers no pair
    of the lane asked for (recorded before a change of the agent's config or prompt, say). A
    request without a body (the model listing a run asks once, outside every pair) is kept."""
    unused = []
    for path in sorted(folder.glob("*.json")):
        if path.stem in keep:
            continue
        entry = parse_strict(
            read_input_file(path, code="llm_cache_corrupt", max_bytes=MAX_ENTRY_BYTES),
            source=str(path),
        )
        request = entry.get("request") if isinstance(entry, dict) else None
        if isinstance(request, dict) and request.get("body") is not None:
            unused.append(path)
    return unused


def open_cache(folder: Path | None, mode: CacheMode) -> LlmCache | None:
    """The cache of ``--llm-cache DIR --llm-cache-mode MODE``; None for ``off``."""
    if mode == "off":
        if folder is not None:
            raise ContractError("invalid_cli_option", "--llm-cache needs a mode other than off")
        return None
    if folder is None:
        raise ContractError("invalid_cli_option", f"--llm-cache-mode {mode} needs --llm-cache DIR")
    if mode == "reuse" and not folder.is_dir():
        raise ContractError("llm_cache_miss", f"{folder} is not a cache folder")
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise ContractError("unsafe_output_path", f"{folder} is not a folder")
    return LlmCache(folder, mode)
