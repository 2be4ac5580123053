"""Redaction of volatile failure messages before they reach observations.diagnostics.

A failure message often carries a product's stderr, which may hold what must never reach a
report: credentials (``API_KEY=...``, ``Authorization: Bearer ...``, token-shaped strings), and
who and where ran it (the user name, the host name, the home directory). Redaction replaces each
with a fixed placeholder (``<secret>``, ``<user>``, ``<host>``, ``<home>``, ``<path>``), so it is
a pure function of the message and the machine's identity: the same input always gives the same
output, and redacting a redacted message changes nothing (unless the length cap cut it inside a
placeholder). Only observations are redacted; canonical data keeps a failure's code, never its
message, so no fingerprint depends on any of this.

Shapes miss a secret that looks like nothing in particular. The exact values the kit was given
(an endpoint's key, a URL's credentials, a backend's ``secret_env`` values) travel in the
identity's ``secrets`` (``contract/credentials.py``) and are replaced first, wherever they stand.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import pwd
import re
import socket
from dataclasses import dataclass, replace
from functools import cache

from agentic.contract.credentials import NO_SECRETS, SECRET, Secrets

_POSIX_PATH = re.compile(r"(?:/[\w.@+-]+){2,}")
_WINDOWS_PATH = re.compile(r"[A-Za-z]:\\(?:[^\\\s]+\\?)+")
MAX_MESSAGE = 240

# NAME=value and NAME: value, where NAME names a credential. An exception name ("KeyError:
# 'uri'") is a diagnostic, not an assignment, so names ending in Error/Exception/Warning are not.
_SECRET_WORDS = r"KEY|TOKEN|SECRET|PASSW(?:OR)?D|PASSPHRASE|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE"
_ASSIGNMENT = re.compile(
    rf"\b((?![\w.-]*(?:error|exception|warning)\b)[\w.-]*(?:{_SECRET_WORDS})[\w.-]*)"
    r"([\"']?[ \t]*[=:][ \t]*)"
    r"(?:(?:bearer|basic|token)[ \t]+)?"
    r"(\"[^\"]*\"|'[^']*'|[^\s\"',;&]+)",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\b(bearer)[ \t]+[\w.~+/=-]+", re.IGNORECASE)
# Well-known token shapes, wherever they stand.
_TOKEN_SHAPES = re.compile(
    r"\b(?:"
    r"sk-[\w-]{16,}"  # OpenAI / Anthropic style API keys
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}"  # GitHub
    r"|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}"  # AWS access key ids
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|AIza[\w-]{35}"  # Google API keys
    r"|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}|glpat-[\w-]{20,}"  # Hugging Face, npm, GitLab
    r"|eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}"  # JSON web tokens
    r")"
)
# A long hex or base64 run (with a digit) right after the word token, secret, key or password.
_AFTER_WORD = re.compile(
    r"\b((?:tokens?|secrets?|keys?|passwords?)\b[ \t]*(?:is|was)?[ \t]*[:=]?[ \t]*)"
    r"(?=[A-Za-z+/_-]*[0-9])[\w+/-]{16,}={0,2}",
    re.IGNORECASE,
)
# A name is redacted only where it stands alone: not inside a longer word or a placeholder.
_NAME_BEFORE = r"(?<![A-Za-z0-9_<])"
_NAME_AFTER = r"(?![A-Za-z0-9_>])"
_SHORTEST_NAME = 2  # a one-letter name would redact every "a" or "x" of a message


@dataclass(frozen=True)
class Identity:
    """Who and where the kit runs, and the secrets it holds: what redaction removes."""

    users: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    homes: tuple[str, ...] = ()
    secrets: Secrets = NO_SECRETS

    def holding(self, secrets: Secrets) -> Identity:
        """This identity, also removing ``secrets``."""
        return replace(self, secrets=self.secrets | secrets)


def _account() -> pwd.struct_passwd | None:
    try:
        return pwd.getpwuid(os.getuid())
    except KeyError:  # a container's arbitrary uid without a passwd entry
        return None


def _user_names() -> tuple[str, ...]:
    # LOGNAME/USER and the account's own name may differ; a product may print either.
    account = _account()
    names = {account.pw_name} if account is not None else set()
    with contextlib.suppress(KeyError, OSError):  # no LOGNAME/USER and no passwd entry
        names.add(getpass.getuser())
    return tuple(sorted(names))


def _home_dirs() -> tuple[str, ...]:
    account = _account()
    homes = {os.environ.get("HOME", ""), account.pw_dir if account is not None else ""}
    # "/" (a daemon's home) is a prefix of everything, not a name.
    return tuple(sorted(h.rstrip("/") for h in homes if h.rstrip("/")))


def _host_names() -> tuple[str, ...]:
    host = socket.gethostname()
    return tuple(sorted({host, host.split(".", 1)[0]} - {""}))


@cache
def local_identity() -> Identity:
    """This process's user, host and home (read once: they do not change during a run)."""
    return Identity(users=_user_names(), hosts=_host_names(), homes=_home_dirs())


def _redact_secrets(text: str) -> str:
    text = _TOKEN_SHAPES.sub(SECRET, text)
    text = _ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{SECRET}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {SECRET}", text)
    return _AFTER_WORD.sub(lambda m: f"{m.group(1)}{SECRET}", text)


def _name_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    kept = sorted({n for n in names if len(n) >= _SHORTEST_NAME}, key=lambda n: (-len(n), n))
    if not kept:
        return None
    alternatives = "|".join(re.escape(n) for n in kept)
    return re.compile(f"{_NAME_BEFORE}(?:{alternatives}){_NAME_AFTER}")


def _redact_identity(text: str, identity: Identity) -> str:
    # Homes first (a home holds the user name), then the longer of host and user names first.
    for names, placeholder in (
        (identity.homes, "<home>"),
        (identity.hosts, "<host>"),
        (identity.users, "<user>"),
    ):
        pattern = _name_pattern(names)
        if pattern is not None:
            text = pattern.sub(placeholder, text)
    return text


def redact_secrets(message: str, identity: Identity | None = None) -> str:
    """``message`` on one line without credentials, user, host or home; paths are kept (for a
    reason printed to the person fixing their setup, as a preparation failure is)."""
    who = local_identity() if identity is None else identity
    # Exact values first, before whitespace is folded: a value is matched as it was given.
    text = " ".join(who.secrets.scrub(message).split())
    text = _redact_secrets(text)
    return _redact_identity(text, who)


def redact(message: str, identity: Identity | None = None) -> str:
    """A diagnostic: ``redact_secrets`` plus every multi-segment path, at most MAX_MESSAGE
    characters."""
    text = redact_secrets(message, identity)
    text = _WINDOWS_PATH.sub("<path>", text)
    text = _POSIX_PATH.sub("<path>", text)
    return text[:MAX_MESSAGE]
