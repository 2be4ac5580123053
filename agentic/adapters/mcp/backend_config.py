"""Backend config files: a user's MCP server described as data (TOML, read with ``tomllib``).

A config names the server's transport and how to start it, its own tool and argument names for
the frozen contract's ``search`` / ``get`` / ``multi_get``, and the shape of its results. It is
validated by a closed model: an unknown key, a missing required key, an argument the contract's
tool does not have, or a placeholder the kit does not define is one precise error. A placeholder
is written plain (``{corpus}``: no ``!r`` conversion, no ``:>8`` format spec), and no template
holds a NUL character.

Placeholders in ``command``, ``prepare``, ``url`` and ``env`` values:

=================  ==============================================================================
``{corpus}``       a read-only folder laid out from the verified snapshot as
                   ``<collection>/<relPath>`` (``gno://<collection>/<relPath>`` names a file in it)
``{prepared}``     the adapter's private prepared root (what ``prepare`` writes; must not change
                   after preparation, its fingerprint is checked at every attach)
``{config_dir}``   the folder of the config file
``{port}``         a free TCP port on 127.0.0.1 for a server the kit starts (``http`` only)
=================  ==============================================================================

Secrets: ``secret_env = ["NAME", ...]`` marks ``env`` entries whose values are secrets (a token
the server needs). Each must name an ``env`` key, and its value must be a literal (no braces, so
the child gets exactly the text written) of at least ``MIN_SECRET_CHARS`` characters (a shorter
one cannot be told from ordinary text). ``BackendConfig.secrets()`` gives those values and the
credentials of ``url`` as one ``Secrets`` value, for redaction to remove from everything the kit
records of this backend (its children's stderr, diagnostics). The marking decides only what is
left out of records, so it is not part of the config's identity (its dump, hence its fingerprint).
"""

from __future__ import annotations

import re
import string
import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from agentic.contract.credentials import MIN_SECRET_CHARS, Secrets, url_secrets
from agentic.contract.errors import ContractError
from agentic.contract.files import read_input_file

PLACEHOLDERS: frozenset[str] = frozenset({"corpus", "prepared", "config_dir", "port"})
# Contract arguments a config may map, per tool, and the ones it must map.
TOOL_ARGUMENTS: dict[str, frozenset[str]] = {
    "search": frozenset({"query", "collection", "limit", "minScore"}),
    "get": frozenset({"uri", "fromLine", "lineCount"}),
    "multi_get": frozenset({"uris", "maxBytes"}),
}
REQUIRED_ARGUMENTS: dict[str, frozenset[str]] = {
    "search": frozenset({"query"}),
    "get": frozenset({"uri"}),
    "multi_get": frozenset({"uris"}),
}
ADAPTER_ID = re.compile(r"^[a-z][a-z0-9-]{0,62}$")
MAX_CONFIG_BYTES = 256 * 1024

Name = Annotated[str, Field(min_length=1, max_length=200)]
EnvName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolMapping(_Closed):
    name: Name
    arguments: dict[str, Name] = Field(default_factory=dict)


class ToolMappings(_Closed):
    search: ToolMapping
    get: ToolMapping | None = None
    multi_get: ToolMapping | None = None

    def bound(self) -> dict[str, ToolMapping]:
        """Contract tool -> mapping, for the tools the server has."""
        found = {"search": self.search, "get": self.get, "multi_get": self.multi_get}
        return {tool: mapping for tool, mapping in found.items() if mapping is not None}


class ResultShape(_Closed):
    shape: Literal["hits", "resources"]


class BackendConfig(_Closed):
    """One backend config file, as written (placeholders unresolved)."""

    id: Annotated[str, Field(pattern=ADAPTER_ID.pattern)]
    transport: Literal["stdio", "http"]
    command: Annotated[tuple[Name, ...], Field(min_length=1)] | None = None
    url: Name | None = None
    prepare: Annotated[tuple[Name, ...], Field(min_length=1)] | None = None
    env: dict[EnvName, str] = Field(default_factory=dict)
    # Which env values are secrets (module docstring); excluded from the dump, so adding it
    # leaves every existing config's fingerprint as it was.
    secret_env: tuple[EnvName, ...] = Field(default=(), exclude=True)
    server_name: Name | None = None
    startup_timeout_s: Annotated[float, Field(gt=0, le=600)] = 30.0
    max_message_bytes: Annotated[int, Field(ge=1024, le=64 * 1024 * 1024)] = 4 * 1024 * 1024
    tools: ToolMappings
    results: ResultShape

    @model_validator(mode="after")
    def _consistent(self) -> BackendConfig:
        if self.transport == "stdio" and self.command is None:
            raise ValueError("a stdio backend needs 'command'")
        if self.transport == "stdio" and self.url is not None:
            raise ValueError("'url' is for http backends only")
        if self.transport == "http" and self.url is None:
            raise ValueError("an http backend needs 'url'")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"url {self.url!r} is not http:// or https://")
        for tool, mapping in self.tools.bound().items():
            unknown = sorted(set(mapping.arguments) - TOOL_ARGUMENTS[tool])
            if unknown:
                known = ", ".join(sorted(TOOL_ARGUMENTS[tool]))
                raise ValueError(f"tools.{tool} maps unknown argument(s) {unknown}; known: {known}")
            missing = sorted(REQUIRED_ARGUMENTS[tool] - set(mapping.arguments))
            if missing:
                raise ValueError(f"tools.{tool} must map {missing}")
        for where, text in self._templates():
            _check_placeholders(where, text, http=self.transport == "http")
        self._check_secret_env()
        if self.url is not None and set(_fields("url", self.url)) - {"port"}:
            raise ValueError("url may hold only the {port} placeholder")
        if self.url is not None and "{port}" in self.url and self.command is None:
            raise ValueError("'{port}' in url needs a 'command' the kit starts")
        return self

    def _check_secret_env(self) -> None:
        seen: set[str] = set()
        for name in self.secret_env:
            if name in seen:
                raise ValueError(f"secret_env lists {name} twice")
            seen.add(name)
            if name not in self.env:
                raise ValueError(f"secret_env names {name}, which env does not set")
            value = self.env[name]
            if "{" in value or "}" in value:
                raise ValueError(f"env.{name} is in secret_env, so it must be a literal: no braces")
            if len(value) < MIN_SECRET_CHARS:
                raise ValueError(
                    f"env.{name} is in secret_env but shorter than {MIN_SECRET_CHARS} "
                    "characters: too short to find and redact by value"
                )

    def secrets(self) -> Secrets:
        """What no record of this backend may hold: its secret env values, its URL's
        credentials."""
        marked = Secrets.of(self.env[name] for name in self.secret_env)
        return marked | url_secrets(self.url or "")

    def _templates(self) -> list[tuple[str, str]]:
        found = [(f"command[{i}]", part) for i, part in enumerate(self.command or ())]
        found += [(f"prepare[{i}]", part) for i, part in enumerate(self.prepare or ())]
        found += [(f"env.{key}", value) for key, value in self.env.items()]
        if self.url is not None:
            found.append(("url", self.url))
        return found


def _placeholders(where: str, text: str) -> list[tuple[str, bool]]:
    """Each placeholder of a template: its name, and whether it carries a conversion or a
    format spec (``{corpus!r}``, ``{corpus:>9}``)."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc} (write a literal brace as '{{{{' or '}}}}')") from None
    return [
        (name, conversion is not None or bool(spec))
        for _, name, spec, conversion in parsed
        if name is not None
    ]


def _fields(where: str, text: str) -> list[str]:
    return [name for name, _ in _placeholders(where, text)]


def _check_placeholders(where: str, text: str, *, http: bool) -> None:
    # A NUL cannot cross exec(2) or the environment: refused now rather than at spawn time.
    if "\0" in text:
        raise ValueError(f"{where}: holds a NUL character")
    allowed = PLACEHOLDERS if http else PLACEHOLDERS - {"port"}
    for name, decorated in _placeholders(where, text):
        if name not in allowed:
            raise ValueError(
                f"{where}: unknown placeholder {{{name}}}; known: "
                + ", ".join(f"{{{p}}}" for p in sorted(allowed))
            )
        # A conversion would insert PosixPath('...'), a format spec pad by millions or fail with
        # a bare TypeError when the template is filled: only the plain form is a placeholder.
        if decorated:
            raise ValueError(f"{where}: write {{{name}}} alone, with no conversion or format spec")


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    location = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = "unknown key"
    return f"{location}: {message}" if location else message


def parse_backend_config(data: bytes, *, source: str) -> BackendConfig:
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ContractError("invalid_backend_config", f"{source}: {exc}") from None
    try:
        return BackendConfig.model_validate(document)
    except ValidationError as exc:
        raise ContractError("invalid_backend_config", f"{source}: {_first_error(exc)}") from None


def load_backend_config(path: Path) -> BackendConfig:
    """Read and validate one config file; any problem is one ContractError line."""
    data = read_input_file(path, code="invalid_backend_config", max_bytes=MAX_CONFIG_BYTES)
    return parse_backend_config(data, source=str(path))
