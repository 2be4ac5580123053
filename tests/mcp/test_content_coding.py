"""The HTTP client decodes a reply's Content-Encoding itself, bounded: what comes out is the
body, whatever the chunking; past the limit, in all or in any layer, decoding stops."""

from __future__ import annotations

import gzip
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.adapters.mcp.content_coding import (
    PIECE_BYTES,
    BoundedDecoder,
    ContentCodingError,
    DecodedTooLargeError,
    codings,
)

LIMIT = 1 << 20


def raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def gzipped(data: bytes) -> bytes:
    return gzip.compress(data)


def zlib_wrapped(data: bytes) -> bytes:
    return zlib.compress(data)


ENCODERS = {"gzip": gzipped, "x-gzip": gzipped, "deflate": zlib_wrapped}


def encoded(body: bytes, applied: tuple[str, ...]) -> bytes:
    for coding in applied:
        body = ENCODERS[coding](body)
    return body


def decoded(wire: bytes, applied: tuple[str, ...], cuts: list[int], limit: int = LIMIT) -> bytes:
    decoder = BoundedDecoder(applied, limit)
    out: list[bytes] = []
    start = 0
    for cut in [*sorted({c % (len(wire) + 1) for c in cuts}), len(wire)]:
        out.extend(decoder.feed(wire[start:cut]))
        start = cut
    out.extend(decoder.finish())
    return b"".join(out)


@given(
    body=st.binary(max_size=4096),
    applied=st.lists(st.sampled_from(sorted(ENCODERS)), max_size=3).map(tuple),
    cuts=st.lists(st.integers(min_value=0), max_size=6),
)
def test_any_stack_of_codings_decodes_to_the_body_in_any_chunking(
    body: bytes, applied: tuple[str, ...], cuts: list[int]
) -> None:
    assert decoded(encoded(body, applied), applied, cuts) == body


def test_raw_deflate_is_decoded_as_deflate() -> None:
    body = b"servers disagree on what deflate means" * 50
    assert decoded(raw_deflate(body), ("deflate",), [7]) == body


def test_concatenated_gzip_members_decode_to_both() -> None:
    assert decoded(gzip.compress(b"one ") + gzip.compress(b"two"), ("gzip",), []) == b"one two"


def test_a_body_past_the_limit_stops_decoding() -> None:
    wire = encoded(b" " * (LIMIT + 1), ("gzip", "gzip"))
    with pytest.raises(DecodedTooLargeError):
        decoded(wire, ("gzip", "gzip"), [])


def test_a_bomb_yields_pieces_no_larger_than_a_piece() -> None:
    decoder = BoundedDecoder(("gzip", "gzip"), 64 * PIECE_BYTES)
    wire = encoded(b" " * (32 * PIECE_BYTES), ("gzip", "gzip"))
    pieces = [*decoder.feed(wire), *decoder.finish()]
    assert max(len(piece) for piece in pieces) <= PIECE_BYTES
    assert sum(len(piece) for piece in pieces) == 32 * PIECE_BYTES


def test_an_inner_layer_past_the_limit_stops_decoding() -> None:
    # A gzip member whose header comment inflates far but whose body is empty: the outer layer
    # outputs a lot, the inner layer nothing.
    header = b"\x1f\x8b\x08\x10\x00\x00\x00\x00\x00\xff" + b"c" * (LIMIT + 1) + b"\x00"
    wire = gzip.compress(header + raw_deflate(b"") + b"\x00" * 8)
    with pytest.raises(DecodedTooLargeError, match="gzip layer"):
        decoded(wire, ("gzip", "gzip"), [])


def test_an_invalid_body_is_a_coding_error() -> None:
    with pytest.raises(ContentCodingError, match="invalid gzip body"):
        decoded(b"not gzip at all", ("gzip",), [])


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("", ()),
        ("identity", ()),
        ("gzip", ("gzip",)),
        ("GZip , deflate", ("gzip", "deflate")),
        ("gzip, identity, x-gzip", ("gzip", "x-gzip")),
    ],
)
def test_codings_are_read_in_the_order_applied(header: str, expected: tuple[str, ...]) -> None:
    assert codings(header) == expected


@pytest.mark.parametrize("header", ["br", "gzip, zstd", "compress"])
def test_a_coding_zlib_cannot_decode_is_refused(header: str) -> None:
    with pytest.raises(ContentCodingError, match="unsupported Content-Encoding"):
        codings(header)
