"""JavaScript rules the contract inherits from its reference implementation.

The reference harness is written in TypeScript, so a few of its orderings and text rules are
JavaScript's, not Python's. Each is written once, here:

- ``utf16_key``: JavaScript compares strings by UTF-16 code units. Big-endian UTF-16 bytes
  compare exactly like that sequence, so astral characters (surrogate pairs) sort before
  U+E000..U+FFFF, unlike Python's code-point order. RFC 8785 orders an object's keys the same
  way (``canonical.canonical_object``).
- ``JS_WHITESPACE``: ECMAScript WhiteSpace + LineTerminator, what ``String#trim`` strips and
  ``/\\s/`` matches. Python's ``str.isspace`` differs (it has U+001C..U+001F, not U+FEFF).
"""

from __future__ import annotations

JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def utf16_key(text: str) -> bytes:
    """Sort key in UTF-16 code-unit order, the order the reference (JavaScript) sorts by."""
    return text.encode("utf-16-be", "surrogatepass")


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_WHITESPACE)


def is_blank(line: str) -> bool:
    """A line with nothing but whitespace, as the reference (``line.trim() === ""``) sees it."""
    return not js_trim(line)
