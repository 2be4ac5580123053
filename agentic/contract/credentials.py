"""The secrets the kit reads, as one explicit value, and URLs recorded without their credentials.

A secret is a value the kit is given to use and never to show: an endpoint agent's key (the value
of its ``api_key_env`` variable), the credentials inside a URL (``user:password@``, a ``?api-key=``
query value), the ``env`` values a backend config lists in ``secret_env``. The shape rules of
``runner/redaction.py`` catch what merely looks like a credential; a ``Secrets`` value removes
these exact strings wherever something echoed them (an endpoint's 401 body quoting the key, a
server's stderr), whatever they look like, and in every form an echo may give them: as is,
JSON-escaped, percent-encoded, base64 of their UTF-8 bytes (standard or URL-safe alphabet, padded
or not) and hex of them (either case), as a debugging endpoint echoing its request headers shows
them. It is passed along explicitly (endpoint settings, the redaction identity), never kept in a
global.

A value shorter than ``MIN_SECRET_CHARS`` is not searched for: it would match ordinary text (a
local server's key ``none``, say) and mangle what it was meant to protect. Shape rules still apply
to it, and a backend config refuses to mark one secret (``backend_config.py``).

``recorded_url`` is how every URL the kit records (report, canonical data, run identity, messages)
is written: unchanged when it holds no credentials, so reports of such endpoints keep their bytes
and fingerprints; otherwise with the userinfo and every secret-looking query or fragment value
replaced by ``<secret>``, plus ``sha256=`` and the first ``URL_DIGEST_CHARS`` hex digits of the
full URL's sha256 as its fragment, so two endpoints that differ only in their credentials still
differ where identity is compared.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from urllib.parse import quote, unquote_plus, urlsplit, urlunsplit

from agentic.contract.canonical import sha256_hex
from agentic.contract.strict_json import JsonValue

SECRET = "<secret>"
MIN_SECRET_CHARS = 8
URL_DIGEST_CHARS = 12

# A query or fragment parameter whose name holds one of these words carries a credential; the
# short names (Azure's ``sig``, ``pw``) count only as a whole word of the name.
_SECRET_WORD = re.compile(
    r"key|token|secret|passw|passphrase|pwd|auth|credential|session|cookie|private|signature"
)
_SECRET_NAMES = frozenset({"sig", "pass", "pw"})
_NAME_WORDS = re.compile(r"[^a-z0-9]+")


def _encoded_forms(value: str) -> set[str]:
    """``value``'s UTF-8 bytes in base64 (standard and URL-safe alphabets, with and without
    padding) and in hex (either case), as a debugging echo of a request may show them."""
    data = value.encode("utf-8")
    padded = {
        base64.b64encode(data).decode("ascii"),
        base64.urlsafe_b64encode(data).decode("ascii"),
    }
    return {
        *padded,
        *(form.rstrip("=") for form in padded),
        data.hex(),
        data.hex().upper(),
    }


def _forms(value: str) -> set[str]:
    """``value`` as it may appear where it was echoed: as is, inside JSON text (either escaping
    of non-ASCII), percent-encoded inside a URL, and encoded (``_encoded_forms``)."""
    return {
        value,
        json.dumps(value, ensure_ascii=False)[1:-1],
        json.dumps(value)[1:-1],
        quote(value, safe=""),
        *_encoded_forms(value),
    }


@dataclass(frozen=True)
class Secrets:
    """Exact strings that must not reach anything the kit writes or prints."""

    values: frozenset[str] = frozenset()

    @classmethod
    def of(cls, values: Iterable[str | None]) -> Secrets:
        """The searchable secrets among ``values`` (None and too-short values are left out)."""
        return cls(frozenset(v for v in values if v is not None and len(v) >= MIN_SECRET_CHARS))

    def __or__(self, other: Secrets) -> Secrets:
        return Secrets(self.values | other.values)

    def __bool__(self) -> bool:
        return bool(self.values)

    @cached_property
    def _all_forms(self) -> frozenset[str]:
        return frozenset(form for value in self.values for form in _forms(value))

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        forms = self._all_forms
        if not forms:
            return None
        # Longest first: a secret that contains another is replaced whole, and a padded base64
        # form is tried before its unpadded prefix, so no ``=`` is left behind.
        ordered = sorted(forms, key=lambda form: (-len(form), form))
        return re.compile("|".join(re.escape(form) for form in ordered))

    def scrub(self, text: str) -> str:
        """``text`` with every occurrence of a secret replaced by ``<secret>``."""
        pattern = self._pattern
        return text if pattern is None else pattern.sub(SECRET, text)

    @cached_property
    def reach(self) -> int:
        """The length of the longest form of a secret: a text cut anywhere may hold at most
        this many characters less one of a secret whose other part was cut away."""
        return max((len(form) for form in self._all_forms), default=0)

    def scrub_json(self, value: JsonValue) -> JsonValue:
        """``value`` with every string in it (keys included) scrubbed."""
        if not self:
            return value
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, list):
            return [self.scrub_json(item) for item in value]
        if isinstance(value, dict):
            return {self.scrub(key): self.scrub_json(item) for key, item in value.items()}
        return value


_MARKER = re.compile(re.escape(SECRET))


def clip_tail(text: str, chars: int) -> str:
    """The last ``chars`` characters of a scrubbed ``text``, cut outside any ``<secret>``
    marker (a marker the cut would split is left out whole). Scrub first: a secret straddling
    the cut would otherwise leave half of itself."""
    start = max(len(text) - chars, 0)
    for marker in _MARKER.finditer(text):
        if marker.start() < start < marker.end():
            start = marker.end()
    return text[start:]


def clip_head(text: str, chars: int) -> str:
    """The first ``chars`` characters of a scrubbed ``text``, cut outside any marker."""
    end = min(chars, len(text))
    for marker in _MARKER.finditer(text):
        if marker.start() < end < marker.end():
            end = marker.start()
    return text[:end]


NO_SECRETS = Secrets()


def _secret_name(name: str) -> bool:
    words = [w for w in _NAME_WORDS.split(unquote_plus(name).lower()) if w]
    return any(w in _SECRET_NAMES or _SECRET_WORD.search(w) for w in words)


def _secret_parameters(part: str) -> list[tuple[str, str]]:
    """(name, raw value) of each ``name=value`` of a query or fragment whose name is secret."""
    found = []
    for item in part.split("&"):
        name, equals, value = item.partition("=")
        if equals and value and value != SECRET and _secret_name(name):
            found.append((name, value))
    return found


def _userinfo(netloc: str) -> str:
    userinfo, at, _ = netloc.rpartition("@")
    return userinfo if at and userinfo != SECRET else ""


def url_secrets(url: str) -> Secrets:
    """The credentials inside ``url``: its user and password, and its secret parameter values
    (each as written and percent-decoded)."""
    split = urlsplit(url)
    raw: list[str] = []
    user, _, password = _userinfo(split.netloc).partition(":")
    raw += [user, password]
    for part in (split.query, split.fragment):
        raw += [value for _, value in _secret_parameters(part)]
    return Secrets.of([*raw, *(unquote_plus(value) for value in raw)])


def _without_secrets(part: str) -> str:
    items = []
    for item in part.split("&"):
        name, equals, value = item.partition("=")
        secret = equals and value and value != SECRET and _secret_name(name)
        items.append(f"{name}={SECRET}" if secret else item)
    return "&".join(items)


def recorded_url(url: str) -> str:
    """``url`` as the kit records it (see the module docstring); applying it twice changes
    nothing."""
    split = urlsplit(url)
    userinfo = _userinfo(split.netloc)
    if not userinfo and not _secret_parameters(split.query + "&" + split.fragment):
        return url
    netloc = split.netloc
    if userinfo:
        netloc = f"{SECRET}@{netloc.rpartition('@')[2]}"
    digest = f"sha256={sha256_hex(url.encode('utf-8'))[:URL_DIGEST_CHARS]}"
    fragment = "&".join(p for p in (_without_secrets(split.fragment), digest) if p)
    parts = (split.scheme, netloc, split.path, _without_secrets(split.query), fragment)
    return urlunsplit(parts)
