"""Canonical JSON (RFC 8785) and sha256 fingerprints.

Canonical bytes are what every fingerprint in the kit hashes. Anything that is not plain JSON
(tuples, sets, non-string keys, NaN, integers beyond 2^53-1, lone surrogates) raises instead of
being coerced, so a fingerprint can never silently depend on a Python accident.

``rfc8785`` is the reference serializer. Most values skip it for a fast path: the C encoder behind
``json.dumps`` (sorted keys, no whitespace, ``ensure_ascii=False``) encoded as strict UTF-8. The
fast path is taken only when one walk finds the value built from exact ``dict`` (string keys, none
with a character above U+FFFF), ``list``, ``str``, ``bool``, ``None``, ``int`` within +-(2^53-1)
and finite ``float`` that either has a ``repr`` with no exponent and no trailing ``.0`` or is an
integral double within +-(2^53-1), which the walk replaces by the equal ``int`` (in a copy of the
containers on its path). For such a value both serializers emit the same bytes:

- strings and keys: both escape exactly ``"``, ``\\`` and U+0000..U+001F, with the short forms
  ``\\b \\f \\n \\r \\t`` and lowercase ``\\u00xx`` otherwise, and copy every other character
  (U+007F, U+2028, U+2029 and astral characters included) as UTF-8;
- member order: with every key in the BMP each character is one UTF-16 code unit of the same
  value, so Python's code-point sort is RFC 8785's UTF-16 sort (an astral character is a surrogate
  pair, which sorts below U+E000..U+FFFF, hence such keys go to the reference);
- numbers: both spell an int as ``str(int)``; the reference spells a float as its ``repr`` but
  rewrites an exponent (1e+21, 5e-324) and drops a trailing ``.0`` (64.0, -0.0), so floats
  needing neither are left to the C encoder, which spells every finite float as its ``repr``,
  and an integral double within 2^53 becomes the int the reference spells it as (64.0 -> 64,
  -0.0 -> 0, 1e15 -> 1000000000000000); any other float takes the reference path.

Validity follows too: such a value holds nothing the check rejects except, possibly, a surrogate,
and a surrogate makes the strict UTF-8 encoding fail. Every other value, and every such failure,
takes the reference path unchanged (the check, then ``rfc8785``), so every rejection is raised by
the same check with the same code and message as before.
tests/contract/test_canonical_fast_path.py holds the two paths byte-equal.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import rfc8785

from agentic.contract.errors import AgenticError, ContractError
from agentic.contract.jsrules import utf16_key

MAX_SAFE_INTEGER = 2**53 - 1
ZERO_HASH = "0" * 64
# Every surrogate code point in a Python str is unpaired (pairs decode to one code point).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SEPARATORS = (",", ":")


class _NonJsonError(AgenticError):
    """A non-JSON value; its JSON pointer is assembled only while the rejection unwinds."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.segments: list[str] = []  # innermost first

    def contract_error(self) -> ContractError:
        pointer = "".join("/" + segment for segment in reversed(self.segments))
        return ContractError("non_json_value", f"{self.reason} at {pointer or '/'}")


def _reject_non_json(value: object) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise _NonJsonError("integer beyond 2^53-1")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _NonJsonError("non-finite number")
        return
    if isinstance(value, str):
        if not value.isascii() and _LONE_SURROGATE.search(value):
            raise _NonJsonError("lone surrogate")
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            try:
                _reject_non_json(item)
            except _NonJsonError as rejected:
                rejected.segments.append(str(index))
                raise
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NonJsonError(f"non-string key {key!r}")
            # A bad key is reported at its object, as it has no pointer of its own.
            _reject_non_json(key)
            try:
                _reject_non_json(item)
            except _NonJsonError as rejected:
                rejected.segments.append(key.replace("~", "~0").replace("/", "~1"))
                raise
        return
    raise _NonJsonError(f"{type(value).__name__} is not a JSON value")


def _check(value: object) -> None:
    try:
        _reject_non_json(value)
    except _NonJsonError as rejected:
        raise rejected.contract_error() from None


# Returned by _fast_form for a value the C encoder cannot spell as the reference does.
_UNFIT = object()


def _fast_float(number: float) -> object:
    """The float itself where its ``repr`` is the reference's spelling, an int where it is an
    integral double within 2^53 (which the reference spells as that integer: 64.0 as ``64``,
    -0.0 as ``0``), else _UNFIT."""
    if not math.isfinite(number):
        return _UNFIT
    spelled = repr(number)
    if "e" not in spelled and not spelled.endswith(".0"):
        return number
    if number.is_integer() and abs(number) <= MAX_SAFE_INTEGER:
        return int(number)
    return _UNFIT


def _fast_form(value: Any) -> Any:
    """VALUE (or, where it holds integral floats, a copy with those as ints) when the C encoder's
    bytes for it are the reference's (see the module docstring); _UNFIT otherwise.

    Exact types only, since a subclass may override what either serializer calls. Strings are
    not inspected: the UTF-8 encoding of the result catches surrogates. Containers are copied
    only on the path to a converted float, so most values are walked, never rebuilt.
    """
    kind = type(value)
    if kind is dict:
        for key in value:
            if type(key) is not str or not (key.isascii() or max(key) <= "\uffff"):
                return _UNFIT
        return _fast_members(value, value.items())
    if kind is list:
        return _fast_members(value, enumerate(value))
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        return value if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else _UNFIT
    if kind is float:
        return _fast_float(value)
    return _UNFIT


def _fast_members(container: Any, members: Iterable[tuple[Any, Any]]) -> Any:
    """``container`` (a dict or list, given as its (key or index, item) pairs) in fast form."""
    changed: dict[Any, Any] = {}
    for slot, item in members:
        # Strings are most of the nodes; testing them inline saves a call for each.
        if type(item) is str:
            continue
        form = _fast_form(item)
        if form is _UNFIT:
            return _UNFIT
        if form is not item:
            changed[slot] = form
    if not changed:
        return container
    copy = dict(container) if type(container) is dict else list(container)
    for slot, form in changed.items():
        copy[slot] = form
    return copy


def canonical_bytes(value: Any) -> bytes:
    """RFC 8785 canonical UTF-8 bytes of a plain JSON value."""
    form = _fast_form(value)
    if form is not _UNFIT:
        try:
            return json.dumps(
                form, ensure_ascii=False, separators=_SEPARATORS, sort_keys=True, allow_nan=False
            ).encode("utf-8")
        except (UnicodeEncodeError, RecursionError):
            # A surrogate, which the check below rejects with its pointer; or nesting so deep
            # that the C encoder's few extra frames hit the recursion limit, where the reference
            # path behaves as it always did.
            pass
    _check(value)
    result: bytes = rfc8785.dumps(value)
    return result


def canonical_object(members: Mapping[str, bytes]) -> bytes:
    """The canonical bytes of an object given its members' values as canonical bytes already:
    RFC 8785 spells an object as its members in UTF-16 key order, each value as its own
    canonical bytes, so ``canonical_object({k: canonical_bytes(v)})`` is
    ``canonical_bytes({k: v})``. For a large value sealed, hashed and written in more than one
    envelope (a journal entry), canonicalized once."""
    ordered = sorted(members, key=utf16_key)
    return b"{" + b",".join(canonical_bytes(key) + b":" + members[key] for key in ordered) + b"}"


def canonical_text(value: object) -> str:
    return canonical_bytes(value).decode("utf-8")


def sha256_hex(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def fingerprint(value: object) -> str:
    """Lowercase sha256 hex of the canonical bytes."""
    return sha256_hex(canonical_bytes(value))


# ``json.dumps`` with ``indent`` runs the pure-Python encoder (CPython uses its C encoder only
# without indentation), a generator per container, which costs a few tenths of a second on a
# full lane report. _write_pretty spells the same text directly: strings through the C escaper
# that dumps uses with ensure_ascii=False, numbers through the same int and float ``__repr__``.
_escape = json.encoder.encode_basestring


def _leaf(value: float | None) -> str:
    """A reparsed number, boolean or null as ``json.dumps`` spells it."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    return float.__repr__(value)


def _write_pretty(value: Any, newline: str, out: list[str], *, sort: bool) -> None:
    """Append ``json.dumps(value, indent=2, ensure_ascii=False, sort_keys=sort)`` to OUT for a
    value as ``json.loads`` returns it; NEWLINE is a line break and the indentation of VALUE's
    line."""
    kind = type(value)
    if kind is str:
        out.append(_escape(value))
        return
    if kind is not dict and kind is not list:
        out.append(_leaf(value))
        return
    if not value:
        out.append("{}" if kind is dict else "[]")
        return
    # An object's members are spelled as an array's items with a "key": in front. Keys are
    # unique, so sorting the pairs never compares two values.
    members = (
        (
            (_escape(key) + ": ", item)
            for key, item in (sorted(value.items()) if sort else value.items())
        )
        if kind is dict
        else (("", item) for item in value)
    )
    inner = newline + "  "
    separator = ("{" if kind is dict else "[") + inner
    for label, item in members:
        head = separator + label
        separator = "," + inner
        # Strings are most of the nodes, so they are spelled here rather than in a call.
        if type(item) is str:
            out.append(head + _escape(item))
        elif type(item) is dict or type(item) is list:
            out.append(head)
            _write_pretty(item, inner, out, sort=sort)
        else:
            out.append(head + _leaf(item))
    out.append(newline + ("}" if kind is dict else "]"))


def _pretty(value: Any, *, sort: bool) -> str | None:
    """The pretty text of VALUE, or None where the writer's recursion ran out."""
    out: list[str] = []
    try:
        _write_pretty(value, "\n", out, sort=sort)
    except RecursionError:
        return None
    out.append("\n")
    return "".join(out)


def stable_pretty_json(value: object) -> str:
    """Human-readable JSON whose key order and number spelling are the canonical ones: exactly
    ``json.dumps(json.loads(canonical_bytes(value)), indent=2, ensure_ascii=False)`` and a line
    break.

    A value of the canonical fast form (module docstring) is written as it is with its keys
    sorted, which is the same text: its floats are spelled by their ``repr`` as the canonical
    bytes spell them, its integral floats are ints already, and its keys sort as RFC 8785 sorts
    them. Any other value, or one holding a surrogate (which the UTF-8 check finds), is written
    from its reparsed canonical bytes, so every rejection is canonical_bytes' own."""
    form = _fast_form(value)
    if form is not _UNFIT:
        text = _pretty(form, sort=True)
        if text is not None and (text.isascii() or _encodes(text)):
            return text
    reparsed = json.loads(canonical_bytes(value))
    text = _pretty(reparsed, sort=False)
    if text is None:
        # Not expected, as the writer takes one frame a level and canonical_bytes took at least
        # as many; should it happen, the encoder the writer replaces behaves as it always did.
        return json.dumps(reparsed, indent=2, ensure_ascii=False) + "\n"
    return text


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
