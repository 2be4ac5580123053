"""Document ids both ways between a server's names and the snapshot's ``gno://`` URIs.

Servers name documents their own way: relative paths (``area/page.md``), paths without the
extension, permalinks (``main/area/page-title``), titles, absolute paths under the folder they
were given. A backend config's ``[ids]`` (``backend_config.IdMapping``) says which, and this
module builds the table for one snapshot: every file gets exactly one server id, and a server id
that two files would share is left out of the table (the server's answer cannot say which file it
meant, so neither is named by it). Matching is exact after the form's own normalisation, never
fuzzy: an id that is not in the table is a document the corpus does not hold.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp.backend_config import IdMapping
from agentic.contract.strict_json import JsonValue
from agentic.fixture.snapshot import CorpusFile, CorpusSnapshot

_SLUG_GAP = re.compile(r"[^a-z0-9/]+")
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$")
_TITLE = re.compile(r"^title:\s*(.+?)\s*$")


def slug(text: str) -> str:
    """Lower case; each run of characters other than letters, digits and ``/`` made one ``-``,
    none at either end of a path segment."""
    lowered = _SLUG_GAP.sub("-", text.lower())
    return "/".join(part.strip("-") for part in lowered.split("/"))


def document_title(file: CorpusFile) -> str | None:
    """A front-matter ``title:`` (quotes removed), else the first ``# `` heading."""
    lines = file.lines
    if lines and lines[0].strip() == "---":
        for line in lines[1:]:
            if line.strip() == "---":
                break
            found = _TITLE.match(line)
            if found:
                return found.group(1).strip("\"'")
    for line in lines:
        found = _HEADING.match(line)
        if found:
            return found.group(1)
    return None


def _path(file: CorpusFile) -> str:
    return f"{file.collection}/{file.rel_path}"


def _key(mapping: IdMapping, file: CorpusFile) -> str | None:
    """The server's id of ``file`` before the prefix, in normalised form."""
    if mapping.form == "uri":
        return file.uri
    path = _path(file)
    if mapping.form == "path":
        return str(PurePosixPath(path).with_suffix("")) if mapping.drop_extension else path
    if mapping.form == "permalink":
        return slug(str(PurePosixPath(path).with_suffix("")))
    title = document_title(file)
    return None if title is None else title.strip()


def _normalise(mapping: IdMapping, key: str) -> str:
    """How a server id compares: permalinks by slug, titles with spaces trimmed, paths as they
    are (an optional leading ``./`` dropped)."""
    if mapping.form == "permalink":
        return slug(key.removesuffix(".md"))
    if mapping.form == "title":
        return key.strip()
    return key.removeprefix("./")


@dataclass(frozen=True)
class DocumentIds:
    """The id table of one snapshot under one mapping. ``prefix`` is the mapping's prefix with
    its placeholder filled for the server at hand (its corpus folder differs per prepared root)."""

    mapping: IdMapping
    files: dict[str, CorpusFile]
    server_ids: dict[str, str]

    def file(self, server_id: str, prefix: str) -> CorpusFile | None:
        """The snapshot file a server id names, or None (unknown, or shared by two files)."""
        if not server_id.startswith(prefix):
            return None
        return self.files.get(_normalise(self.mapping, server_id[len(prefix) :]))

    def server_id(self, uri: str, prefix: str) -> str | None:
        """What to send the server for a ``gno://`` URI (None: the file has no id of this form,
        e.g. a page without a title)."""
        key = self.server_ids.get(uri)
        return None if key is None else prefix + key


def document_ids(mapping: IdMapping, snapshot: CorpusSnapshot) -> DocumentIds:
    keyed = [(file, _key(mapping, file)) for file in snapshot.files]
    counts = Counter(_normalise(mapping, key) for _, key in keyed if key is not None)
    files: dict[str, CorpusFile] = {}
    server_ids: dict[str, str] = {}
    for file, key in _named(keyed):
        normal = _normalise(mapping, key)
        if counts[normal] == 1:
            files[normal] = file
            server_ids[file.uri] = key
    return DocumentIds(mapping=mapping, files=files, server_ids=server_ids)


def _named(keyed: Iterable[tuple[CorpusFile, str | None]]) -> Iterable[tuple[CorpusFile, str]]:
    return ((file, key) for file, key in keyed if key is not None)


@dataclass(frozen=True)
class ServerIds:
    """A config's id table with its prefix filled for the server at hand: ``prefix`` gives it
    for a prepared root (``{corpus}`` names a folder of that root)."""

    table: DocumentIds
    prefix: Callable[[Path | None], str]

    def file(self, server_id: str, root: Path | None) -> CorpusFile | None:
        return self.table.file(server_id, self.prefix(root))

    def for_server(self, value: JsonValue, root: Path | None) -> JsonValue:
        """A ``gno://`` URI (or a list of them) as the server names it; a document without an
        id of the server's form is refused before any traffic."""
        if isinstance(value, list):
            return [self.for_server(uri, root) for uri in value]
        found = self.table.server_id(str(value), self.prefix(root))
        if found is None:
            raise AdapterCallError(
                "unknown_index_document",
                "product_error",
                f"{value} has no id of the server's form ({self.table.mapping.form})",
            )
        return found
