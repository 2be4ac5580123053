"""Bounded decoding of an HTTP reply's ``Content-Encoding``, for the MCP HTTP client's byte cap.

A reply cap that counts wire bytes is no cap: two kilobytes of ``gzip, gzip`` inflate to half a
gigabyte. So the client decodes the body itself, here, and counts what comes out. Each layer
inflates at most ``PIECE_BYTES`` per step and hands the piece on at once, so memory stays near
one piece per layer however far a body would inflate; the caller stops at its cap.

Only the codings zlib decodes are accepted (``gzip``, ``x-gzip``, ``deflate``, ``identity``):
the client asks for ``identity``, so any other coding is a server ignoring that, refused rather
than passed through undecoded.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from agentic.contract.errors import AgenticError

PIECE_BYTES = 64 * 1024
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_ZLIB_WBITS = zlib.MAX_WBITS
_RAW_DEFLATE_WBITS = -zlib.MAX_WBITS
_LAYER_WBITS = {"gzip": _GZIP_WBITS, "x-gzip": _GZIP_WBITS, "deflate": _ZLIB_WBITS}


class ContentCodingError(AgenticError):
    """A coding the client cannot decode, or a body that is not valid in its coding."""


class DecodedTooLargeError(AgenticError):
    """A body, or one of its layers, decodes to more than the limit."""


def codings(header: str) -> tuple[str, ...]:
    """The codings of a ``Content-Encoding`` value in the order they were applied, without
    ``identity``; an unknown one is a ContentCodingError."""
    found = tuple(part.strip().lower() for part in header.split(",") if part.strip())
    unknown = sorted({c for c in found if c != "identity" and c not in _LAYER_WBITS})
    if unknown:
        raise ContentCodingError(f"unsupported Content-Encoding {', '.join(unknown)}")
    return tuple(c for c in found if c != "identity")


@dataclass
class _Layer:
    """One coding's inflater; ``deflate`` may arrive zlib-wrapped or raw (servers disagree)."""

    coding: str
    limit: int
    _produced: int = field(init=False, default=0)
    _inflater: zlib._Decompress = field(init=False)
    _started: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self._inflater = zlib.decompressobj(_LAYER_WBITS[self.coding])

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            yield from self._inflate(data)
        except zlib.error as exc:
            if self.coding != "deflate" or self._started:
                raise ContentCodingError(f"invalid {self.coding} body: {exc}") from None
            self._inflater = zlib.decompressobj(_RAW_DEFLATE_WBITS)
            self._started = True
            yield from self.feed(data)

    def _inflate(self, data: bytes) -> Iterator[bytes]:
        while data:
            piece = self._inflater.decompress(data, PIECE_BYTES)
            self._started = True
            if piece:
                yield self._counted(piece)
            data = self._inflater.unconsumed_tail
            if self._inflater.eof and self._inflater.unused_data and not data:
                # gzip allows members one after another; each is inflated in turn.
                data = self._inflater.unused_data
                self._inflater = zlib.decompressobj(_LAYER_WBITS[self.coding])

    def finish(self) -> Iterator[bytes]:
        if not self._started:
            return
        tail = self._inflater.flush(PIECE_BYTES)
        if tail:
            yield self._counted(tail)

    def _counted(self, piece: bytes) -> bytes:
        # An inner layer counts too: a gzip header's comment field may inflate without end
        # and feed the next layer nothing it would output.
        self._produced += len(piece)
        if self._produced > self.limit:
            raise DecodedTooLargeError(f"{self.coding} layer decodes past {self.limit} bytes")
        return piece


class BoundedDecoder:
    """Decodes a body coded with ``applied`` (in the order applied) piece by piece; the pieces
    it yields are the decoded body. Past ``limit`` decoded bytes, in all or in any layer, it
    raises DecodedTooLargeError."""

    def __init__(self, applied: tuple[str, ...], limit: int) -> None:
        # The last coding applied is the first to undo.
        self._layers = tuple(_Layer(coding, limit) for coding in reversed(applied))
        self._limit = limit
        self._decoded = 0

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        return self._through(0, (chunk,))

    def finish(self) -> Iterator[bytes]:
        for index, layer in enumerate(self._layers):
            yield from self._through(index + 1, layer.finish())

    def _through(self, index: int, pieces: Iterable[bytes]) -> Iterator[bytes]:
        if index == len(self._layers):
            for piece in pieces:
                self._decoded += len(piece)
                if self._decoded > self._limit:
                    raise DecodedTooLargeError(f"the body decodes past {self._limit} bytes")
                yield piece
            return
        layer = self._layers[index]
        for piece in pieces:
            yield from self._through(index + 1, layer.feed(piece))
