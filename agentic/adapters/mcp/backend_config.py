"""Backend config files: a user's MCP server described as data (TOML, read with ``tomllib``).

A config names the server's transport and how to start it, its own tool and argument names for
the frozen contract's ``search`` / ``get`` / ``multi_get``, and the shape of its results. It is
validated by a closed model: an unknown key, a missing required key, an argument the contract's
tool does not have, or a placeholder the kit does not define is one precise error. A placeholder
is written plain (``{corpus}``: no ``!r`` conversion, no ``:>8`` format spec), and no template
holds a NUL character.

Placeholders in ``command``, ``prepare``, ``url``, ``env`` values and fixed tool arguments:

=================  ==============================================================================
``{corpus}``       a read-only folder laid out from the verified snapshot as
                   ``<collection>/<relPath>`` (``gno://<collection>/<relPath>`` names a file in it)
``{prepared}``     the adapter's private prepared root (what ``prepare`` writes; must not change
                   after preparation, its fingerprint is checked at every attach)
``{config_dir}``   the folder of the config file
``{port}``         a free TCP port on 127.0.0.1 for a server the kit starts (``http`` only)
``{home}``         a writable folder of the prepared root, kept from ``prepare`` through every
                   start (a server's own database under ``$HOME``, say); never fingerprinted
``{run}``          the writable folder of this one start (or of ``prepare``), removed after it;
                   in ``env`` values only
=================  ==============================================================================

``corpus = "copy"`` makes ``{corpus}`` a writable copy of the snapshot, one per prepared root,
for servers that write into the folder they index (front matter added to each file, say): the
copy is theirs to change, and evidence still comes from the verified snapshot alone.

Results are read per tool (``[tools.<tool>.results]``, else the top-level ``[results]``); the
shapes, the id mapping (``[ids]``), fixed arguments, transforms and the readiness pattern
(``[ready]``) are described in docs/backends.md; ``replies.py`` reads each shape, ``server_ids.py``
maps ids and ``argument_mapping.py`` applies fixed arguments and transforms. ``reads = "snapshot"``
makes a search-only server's reads the kit's (``snapshot_reads.py``); ``reflowed = true`` in a
tool's results places reflowed snippets (``reflow.py``). A search's ``query_split`` and
``query_syntax`` say how the agent's query reaches the server (``query_forms.py``), its
``paging`` how the kit pages it (``paging.py``).

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
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agentic.contract.credentials import MIN_SECRET_CHARS, Secrets, url_secrets
from agentic.contract.files import read_input_file
from agentic.contract.toml_config import parse_toml_model

PLACEHOLDERS: frozenset[str] = frozenset(
    {"corpus", "prepared", "config_dir", "port", "home", "run"}
)
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


def _unset(value: object) -> bool:
    """Whether an optional key was left out: such keys stay out of a config's dump, so a config
    written before they existed keeps its identity (its fingerprint)."""
    return value is None or value in ({}, ())


def _optional() -> Any:
    """A key that may be left out (and then stays out of the dump)."""
    return Field(default=None, exclude_if=_unset)


Transform = Literal["regex_escape", "inclusive_end"]
# A query language whose operators the agent's text is escaped for (``query_forms.py``).
QuerySyntax = Literal["fts5", "lucene", "plain"]
# Pages one paged search call asks for: by default, and at most (``paging.py``).
DEFAULT_PAGES = 5
MAX_PAGES = 20
# Which transform may rewrite which contract argument (applied in ``argument_mapping.py``).
TRANSFORMS: dict[str, frozenset[str]] = {
    "query": frozenset({"regex_escape"}),
    "lineCount": frozenset({"inclusive_end"}),
}
FixedValue = Annotated[str, Field(max_length=1000)] | int | float | bool
Pattern = Annotated[str, Field(min_length=1, max_length=2000)]
# Named groups a ``lines`` pattern may hold; ``text`` is required. ``lines`` is a range in one
# string (``4-11``, ``L4-L11``, ``4:11``), read as first and last line.
LINE_GROUPS = frozenset({"uri", "line", "lines", "text"})
# How a server counts lines, when not as the snapshot does: ``front_matter``, after the
# document's front matter (which it stripped); an integer, that many lines after the snapshot.
LineOffset = Literal["front_matter"] | Annotated[int, Field(ge=-10_000, le=10_000)]


class FieldMap(_Closed):
    """Where a ``records`` result keeps each part of a hit (dotted paths into one record).
    ``lines`` holds a range in one string (``"4-11"``), instead of ``line`` and ``end``."""

    uri: Name | None = _optional()
    line: Name | None = _optional()
    end: Name | None = _optional()
    lines: Name | None = _optional()
    text: Name | None = _optional()

    @model_validator(mode="after")
    def _consistent(self) -> FieldMap:
        if self.lines is not None and (self.line is not None or self.end is not None):
            raise ValueError("fields.lines is a whole range: map it or line/end, not both")
        return self


class ResultReading(_Closed):
    """How to read one tool's replies (``replies.py`` documents each shape)."""

    shape: Literal["hits", "resources", "records", "lines", "document"]
    path: Annotated[str, Field(max_length=200)] | None = _optional()
    fields: FieldMap | None = _optional()
    pattern: Pattern | None = _optional()
    empty: Pattern | None = _optional()
    error: Pattern | None = _optional()
    line_offset: LineOffset | None = _optional()
    # The server's id composed of several parts: ``{collection}/{path}`` names groups of a
    # ``lines`` pattern, or dotted paths into a record (``{repo}/{file.path}``).
    id_template: Annotated[str, Field(min_length=1, max_length=500)] | None = _optional()
    # True: the server's text is reflowed (whitespace runs made one space, lines joined, ends
    # cut mid-line); what ``align.py`` leaves unmatched is then placed by ``reflow.py``.
    reflowed: bool | None = _optional()

    @model_validator(mode="after")
    def _consistent(self) -> ResultReading:
        for key in ("pattern", "empty", "error"):
            _compile(key, getattr(self, key))
        if self.reflowed is not None and self.shape in ("hits", "resources"):
            raise ValueError("'reflowed' is for shapes 'records', 'lines' and 'document'")
        if (self.fields is not None) != (self.shape == "records"):
            raise ValueError("'fields' is required by shape 'records' and only by it")
        if self.path is not None and self.shape not in ("records", "document"):
            raise ValueError("'path' is for shapes 'records' and 'document'")
        if (self.pattern is not None) != (self.shape == "lines"):
            raise ValueError("'pattern' is required by shape 'lines' and only by it")
        if self.line_offset is not None and self.shape not in ("records", "lines"):
            raise ValueError("'line_offset' is for shapes 'records' and 'lines'")
        self._check_id_template()
        if self.pattern is not None:
            self._check_groups()
        if self.fields is not None and (self.fields.uri is None) == (self.id_template is None):
            raise ValueError("records name their document by fields.uri or id_template: one")
        return self

    def _check_id_template(self) -> None:
        if self.id_template is None:
            return
        if self.shape not in ("records", "lines"):
            raise ValueError("'id_template' is for shapes 'records' and 'lines'")
        if not self.template_parts or "" in self.template_parts:
            raise ValueError("id_template must name its parts: '{collection}/{path}'")
        if _placeholders("id_template", self.id_template) != [
            (name, False) for name in self.template_parts
        ]:
            raise ValueError("id_template: write each {part} alone, with no conversion or spec")

    def _check_groups(self) -> None:
        groups = set(re.compile(self.pattern or "").groupindex)
        parts = set(self.template_parts)
        if "text" not in groups or groups - LINE_GROUPS - parts:
            raise ValueError(
                "pattern must name a group 'text' and no others than 'uri', 'line', 'lines', "
                "'text' and the parts of id_template"
            )
        if {"line", "lines"} <= groups:
            raise ValueError("pattern names 'line' and 'lines': a line or a range, not both")
        if parts and ("uri" in groups or not parts <= groups):
            raise ValueError("with id_template, the pattern names its parts and no 'uri' group")

    @property
    def template_parts(self) -> tuple[str, ...]:
        """The part names of ``id_template`` (empty without one)."""
        if self.id_template is None:
            return ()
        return tuple(name for name, _ in _placeholders("id_template", self.id_template))

    @property
    def names_documents(self) -> bool:
        """Whether a reply says which document each result is (else it is the one asked for)."""
        if self.shape == "lines":
            groups = re.compile(self.pattern or "").groupindex
            return "uri" in groups or self.id_template is not None
        return self.shape != "document"


def _compile(key: str, pattern: str | None) -> None:
    if pattern is None:
        return
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{key}: not a regular expression: {exc}") from None


class IdMapping(_Closed):
    """How the server names a document, as against ``gno://<collection>/<relPath>``.

    ``form``: ``uri`` (gno:// URIs as they are), ``path`` (``<collection>/<relPath>``),
    ``permalink`` (that path without its extension, lower case, each run of other characters
    than letters, digits and ``/`` made one ``-``) or ``title`` (the document's front-matter
    ``title`` or first heading). ``prefix`` comes before it (``main/``, or ``{corpus}/`` for
    absolute paths); ``drop_extension`` leaves ``.md`` off a ``path``."""

    form: Literal["uri", "path", "permalink", "title"] = "uri"
    prefix: Annotated[str, Field(max_length=1000)] = ""
    drop_extension: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> IdMapping:
        if self.drop_extension and self.form != "path":
            raise ValueError("drop_extension is for form 'path'")
        if set(_fields("ids.prefix", self.prefix)) - {"corpus"}:
            raise ValueError("ids.prefix may hold only the {corpus} placeholder")
        return self


class Paging(_Closed):
    """A search that pages (``paging.py``): the server's argument for how many results to skip
    (``offset``, sent 0 then the count received) or for a page number (``page``, sent
    ``first_page`` then one more per page), and at most how many pages one call asks for."""

    offset: Name | None = None
    page: Name | None = None
    first_page: Annotated[int, Field(ge=0, le=1)] | None = _optional()
    max_pages: Annotated[int, Field(ge=1, le=MAX_PAGES)] = DEFAULT_PAGES

    @model_validator(mode="after")
    def _consistent(self) -> Paging:
        if (self.offset is None) == (self.page is None):
            raise ValueError("paging names the server's 'offset' or its 'page' argument: one")
        if self.first_page is not None and self.page is None:
            raise ValueError("paging.first_page is for a 'page' argument")
        return self

    @property
    def argument(self) -> str:
        """The server argument that says which page."""
        found = self.offset or self.page
        assert found is not None, "validated: offset or page"
        return found

    @property
    def start(self) -> int:
        """What the first page sends: offset 0, or the first page's number (1 unless said)."""
        if self.offset is not None:
            return 0
        return 1 if self.first_page is None else self.first_page


class ToolMapping(_Closed):
    name: Name
    arguments: dict[str, Name] = Field(default_factory=dict)
    fixed: dict[Name, FixedValue] | None = _optional()
    transforms: dict[str, Transform] | None = _optional()
    results: ResultReading | None = _optional()
    # How this tool names documents, when not as the top-level ``[ids]`` says (a server whose
    # search returns permalinks and whose read takes paths).
    ids: IdMapping | None = _optional()
    # Search only (``query_forms.py``): "words" asks once per word of the agent's query (a
    # server that matches the whole query as one string), the rankings merged round-robin.
    query_split: Literal["whole", "words"] | None = _optional()
    # Search only: the agent's text escaped so the server's query operators are literal.
    query_syntax: QuerySyntax | None = _optional()
    # Search only: the kit pages until the agent's limit of in-scope hits (``paging.py``).
    paging: Paging | None = _optional()

    @property
    def merges_rankings(self) -> bool:
        """Whether several replies of one search are merged round-robin and de-duplicated (a
        split query, or pages), rather than concatenated as they came."""
        return self.query_split == "words" or self.paging is not None

    @property
    def server_arguments(self) -> tuple[str, ...]:
        """Every server argument the kit sends: mapped, fixed, and the paging one."""
        paged = () if self.paging is None else (self.paging.argument,)
        return (*self.arguments.values(), *(self.fixed or {}), *paged)


class ToolMappings(_Closed):
    search: ToolMapping
    get: ToolMapping | None = None
    multi_get: ToolMapping | None = None

    def bound(self) -> dict[str, ToolMapping]:
        """Contract tool -> mapping, for the tools the server has."""
        found = {"search": self.search, "get": self.get, "multi_get": self.multi_get}
        return {tool: mapping for tool, mapping in found.items() if mapping is not None}


class Readiness(_Closed):
    """A server that answers before it is ready: its search is repeated (bounded by
    ``startup_timeout_s``) while the reply's text matches ``not_ready``."""

    not_ready: Pattern
    interval_s: Annotated[float, Field(gt=0, le=10)] = 0.5

    @model_validator(mode="after")
    def _consistent(self) -> Readiness:
        _compile("not_ready", self.not_ready)
        return self


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
    # How long ``prepare`` may take (an index of a large corpus); the run's timeout without it.
    prepare_timeout_s: Annotated[float, Field(gt=0, le=86400)] | None = _optional()
    max_message_bytes: Annotated[int, Field(ge=1024, le=64 * 1024 * 1024)] = 4 * 1024 * 1024
    corpus: Literal["snapshot", "copy"] | None = _optional()
    # "skip": lines a stdio server prints on stdout that are not JSON (start-up chatter) are
    # kept with its stderr instead of ending the connection.
    stdout_text: Literal["fatal", "skip"] | None = _optional()
    ids: IdMapping | None = _optional()
    ready: Readiness | None = _optional()
    # "snapshot": a search-only server; the kit answers ``get`` and ``multi_get`` itself from
    # the verified snapshot (``snapshot_reads.py``), so the config maps neither.
    reads: Literal["server", "snapshot"] | None = _optional()
    tools: ToolMappings
    results: ResultReading | None = None

    @property
    def corpus_mode(self) -> Literal["snapshot", "copy"]:
        return self.corpus or "snapshot"

    @property
    def reads_from_snapshot(self) -> bool:
        return self.reads == "snapshot"

    @property
    def id_mapping(self) -> IdMapping:
        return self.ids or IdMapping()

    def ids_of(self, tool: str) -> IdMapping:
        """How the contract tool ``tool`` names documents: its own ``ids``, else ``[ids]``."""
        mapping = self.tools.bound().get(tool)
        own = None if mapping is None else mapping.ids
        return own or self.id_mapping

    def reading(self, tool: str) -> ResultReading:
        """How the server's replies to the contract tool ``tool`` are read."""
        mapping = self.tools.bound()[tool]
        found = mapping.results or self.results
        assert found is not None, "validated: every bound tool has a reading"
        return found

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
        if self.reads_from_snapshot and (self.tools.get or self.tools.multi_get):
            raise ValueError(
                "reads = 'snapshot' answers get and multi_get from the snapshot: "
                "map neither tools.get nor tools.multi_get"
            )
        for tool, mapping in self.tools.bound().items():
            _check_mapping(tool, mapping, self.results)
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
        found += [
            (f"tools.{tool}.fixed.{name}", value)
            for tool, mapping in self.tools.bound().items()
            for name, value in (mapping.fixed or {}).items()
            if isinstance(value, str)
        ]
        if self.url is not None:
            found.append(("url", self.url))
        return found


def _check_mapping(tool: str, mapping: ToolMapping, default: ResultReading | None) -> None:
    where = f"tools.{tool}"
    reading = mapping.results or default
    if reading is None:
        raise ValueError(f"{where} needs 'results' (or a top-level [results] for every tool)")
    if tool != "get" and not reading.names_documents:
        raise ValueError(
            f"{where}.results: shape {reading.shape!r} does not say which document a result "
            "is, so it can read only 'get' replies"
        )
    for name in mapping.fixed or {}:
        if name in mapping.arguments.values():
            raise ValueError(f"{where}.fixed sets {name!r}, which an argument is mapped to")
    sent = list(mapping.server_arguments)
    if len(set(sent)) != len(sent):
        raise ValueError(f"{where}: paging's argument is also mapped or fixed")
    _check_names(where, sent)
    _check_query_form(where, tool, mapping, reading)
    for argument, transform in (mapping.transforms or {}).items():
        if transform not in TRANSFORMS.get(argument, frozenset()):
            raise ValueError(f"{where}.transforms: {transform!r} does not apply to {argument!r}")
        if argument not in mapping.arguments:
            raise ValueError(f"{where}.transforms names {argument!r}, which is not mapped")


def _check_query_form(where: str, tool: str, mapping: ToolMapping, reading: ResultReading) -> None:
    """``query_split``, ``query_syntax`` and ``paging`` are a search's, and a split or paged
    search is merged by (document, line), read from shapes ``records`` or ``lines``."""
    keys = [key for key in ("query_split", "query_syntax", "paging") if getattr(mapping, key)]
    if keys and tool != "search":
        raise ValueError(f"{where}: {', '.join(keys)} is for tools.search only")
    if mapping.query_syntax is not None and "query" in (mapping.transforms or {}):
        raise ValueError(f"{where}: query_syntax and transforms.query both escape: keep one")
    if mapping.merges_rankings and reading.shape not in ("records", "lines"):
        raise ValueError(
            f"{where}: query_split = 'words' and paging merge replies of shape 'records' or "
            f"'lines', not {reading.shape!r}"
        )


def _check_names(where: str, names: list[str]) -> None:
    """Server argument names: a dotted name (``searches.0.query``) sets a nested field or list
    item; no part may be empty, the first not a number, and no name may hold another."""
    for name in names:
        parts = name.split(".")
        if "" in parts or parts[0].isdigit():
            raise ValueError(f"{where}: {name!r} is not a field name or a dotted path")
        for other in names:
            if other.startswith(f"{name}."):
                raise ValueError(f"{where}: {name!r} and {other!r} set the same field")


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
    if not where.startswith("env."):
        # A start's own folder exists only once the kit starts it, after the command is built.
        allowed -= {"run"}
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


def parse_backend_config(data: bytes, *, source: str) -> BackendConfig:
    return parse_toml_model(data, BackendConfig, source=source, code="invalid_backend_config")


def load_backend_config(path: Path) -> BackendConfig:
    """Read and validate one config file; any problem is one ContractError line."""
    data = read_input_file(path, code="invalid_backend_config", max_bytes=MAX_CONFIG_BYTES)
    return parse_backend_config(data, source=str(path))
