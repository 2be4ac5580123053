"""Every form in which an echo may give a secret back is scrubbed (``Secrets`` in
``agentic/contract/credentials.py``).

An endpoint that echoes its request (a debugging proxy, a mock server) may show the key
base64- or hex-encoded rather than as is; each such spelling is replaced whole by ``<secret>``,
padding included. A value too short to search for is not searched for in any spelling."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from urllib.parse import quote

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from agentic.contract.credentials import MIN_SECRET_CHARS, SECRET, Secrets

# Its base64 differs between the two alphabets ('/' against '_') and ends in '==' padding, and its
# hex holds letters, so every encoded spelling below is distinct.
KEY = "k3y~>?Zq8xv7Lw0pN3m"


def _b64(value: str) -> str:
    return base64.b64encode(value.encode("utf-8")).decode("ascii")


def _b64_url(value: str) -> str:
    return base64.urlsafe_b64encode(value.encode("utf-8")).decode("ascii")


ENCODINGS: dict[str, Callable[[str], str]] = {
    "base64": _b64,
    "base64-unpadded": lambda value: _b64(value).rstrip("="),
    "base64url": _b64_url,
    "base64url-unpadded": lambda value: _b64_url(value).rstrip("="),
    "hex": lambda value: value.encode("utf-8").hex(),
    "HEX": lambda value: value.encode("utf-8").hex().upper(),
}


def every_form(value: str) -> list[str]:
    """Each spelling of ``value`` that scrubbing promises to find."""
    return [
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        quote(value, safe=""),
        *(encode(value) for encode in ENCODINGS.values()),
    ]


def test_the_example_keys_six_encoded_forms_are_distinct() -> None:
    assert len({encode(KEY) for encode in ENCODINGS.values()}) == len(ENCODINGS)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_an_encoded_secret_is_replaced_whole(encoding: str) -> None:
    echoed = f"authorization echoed: {ENCODINGS[encoding](KEY)};"
    assert Secrets.of([KEY]).scrub(echoed) == f"authorization echoed: {SECRET};"


def test_a_padded_base64_form_leaves_no_padding_behind() -> None:
    padded = _b64(KEY)
    assert padded.endswith("==")
    assert Secrets.of([KEY]).scrub(f'"{padded}"') == f'"{SECRET}"'


printable_secrets = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"]),
    min_size=MIN_SECRET_CHARS,
    max_size=40,
).filter(str.isprintable)


@given(printable_secrets)
def test_scrubbing_leaves_no_form_of_a_secret_whatever_its_characters(secret: str) -> None:
    # The placeholder itself, taken as a secret, is the one text scrubbing cannot remove.
    assume(secret != SECRET)
    # One form a line, as echoed: no form holds a line break, so each line is one whole form.
    scrubbed = Secrets.of([secret]).scrub("\n".join(every_form(secret)))
    assert not [form for form in every_form(secret) if form in scrubbed]
    assert set(scrubbed.split("\n")) == {SECRET}


def test_a_value_too_short_to_search_for_is_searched_in_no_form() -> None:
    short = "k3y~>?Z"
    assert len(short) == MIN_SECRET_CHARS - 1
    echoed = "\n".join(every_form(short))
    assert Secrets.of([short]).scrub(echoed) == echoed
