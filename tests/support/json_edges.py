"""Hypothesis strategies for JSON values weighted towards the characters and numbers where two
JSON writers could spell the same value differently: what the canonicalizer's fast path
(tests/contract/test_canonical_fast_path.py) and the indented writer
(tests/contract/test_pretty_json.py) are held to their references on."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from agentic.contract.canonical import MAX_SAFE_INTEGER

# Characters where JSON escaping rules differ between encoders, or where UTF-16 order differs from
# code-point order (U+E000..U+FFFF against astral characters), drawn far more often than chance.
_EDGE_CHARACTERS = st.sampled_from(
    [
        *(chr(code) for code in range(0x20)),
        '"',
        "\\",
        "/",
        "\x7f",
        "\x80",
        "\u2028",
        "\u2029",
        "\ud7ff",
        "\ue000",
        "\uf8ff",
        "\ufeff",
        "\uffff",
        "\U00010000",
        "\U0001f600",
        "\U0010ffff",
    ]
)
_PRIVATE_USE_AND_ABOVE = st.characters(min_codepoint=0xE000, max_codepoint=0xFFFF)
_ASTRAL = st.characters(min_codepoint=0x10000)
_ANY_SCALAR_VALUE = st.characters(codec="utf-8")  # every code point but the surrogates
characters = _EDGE_CHARACTERS | _PRIVATE_USE_AND_ABOVE | _ASTRAL | _ANY_SCALAR_VALUE
bmp_characters = st.characters(codec="utf-8", max_codepoint=0xFFFF) | _PRIVATE_USE_AND_ABOVE
texts = st.text(characters, max_size=10)
bmp_texts = st.text(bmp_characters, max_size=10)

safe_ints = st.integers(min_value=-MAX_SAFE_INTEGER, max_value=MAX_SAFE_INTEGER) | st.sampled_from(
    [0, 1, -1, MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 2**31, -(2**31), 2**32]
)
# Floats at the edges of ECMAScript's spelling rules: integral values, zero's sign, the switch
# to exponent notation (1e21, 1e-7) and Python's own switch (1e16, 1e-5), subnormals.
_EDGE_FLOATS = st.sampled_from(
    [
        0.0,
        -0.0,
        64.0,
        -64.0,
        1e21,
        1e20,
        1e16,
        1e15,
        2.0**60,
        1.5e300,
        9007199254740992.0,
        9999999999999998.0,
        1e-7,
        1e-6,
        1e-5,
        0.0001,
        5e-324,
        2.2250738585072014e-308,
        1.7976931348623157e308,
        0.1,
        0.30000000000000004,
        123.456,
        -2.5,
    ]
)
finite_floats = st.floats(allow_nan=False, allow_infinity=False) | _EDGE_FLOATS


def _documents(
    keys: st.SearchStrategy[str], strings: st.SearchStrategy[str], numbers: st.SearchStrategy[Any]
) -> st.SearchStrategy[Any]:
    return st.recursive(
        st.none() | st.booleans() | numbers | strings,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=6)
        ),
        max_leaves=24,
    )


json_documents = _documents(texts, texts, safe_ints | finite_floats)
# What the fast path takes: no float, no key beyond the BMP (strings may hold anything).
fast_path_documents = _documents(bmp_texts, texts, safe_ints)
