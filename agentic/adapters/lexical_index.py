"""The lexical index: one SQLite file with an FTS5 table over every snapshot document.

This module is the storage layer shared by the in-process ``lexical`` / ``capsule`` adapters and
the reference MCP server (``agentic serve``). It knows nothing about tasks, scopes or tool results.

Public API
----------
``build_index(snapshot, db_path) -> IndexBuild``
    Writes a new SQLite file (refuses to overwrite one). Tables:

    - ``documents(id INTEGER PRIMARY KEY, uri, collection, relPath, sourceHash, title, source)``:
      ``source`` is the raw UTF-8 bytes, so reads never touch the filesystem.
    - ``documents_fts(filepath, title, body)``, FTS5 with ``tokenize='porter unicode61'``, whose
      rowid equals ``documents.id``; filepath = relPath, title = first ``# `` heading, body = the
      full text.
    - ``meta(key, value)``: ``schemaVersion``, ``tokenizer``, ``indexFingerprint``.

    Rows are inserted in URI order, so two builds of one snapshot hold identical rows.

``index_fingerprint(snapshot) -> str``
    The canonical fingerprint of ``{tokenizer, documents:[{uri, sourceHash, mirrorHash, active}]}``
    sorted by URI (mirrorHash equals sourceHash: the corpus is stored verbatim).

``LexicalIndex.open(db_path, *, read_only=True) -> LexicalIndex``
    ``search(query, collection, limit, *, deadline=None) -> list[Hit]``: compiles the agent query
    (``fts_query.compile_query``; ``invalid_search_query`` on bad input), ranks one collection by
    ``bm25(documents_fts, 1.5, 4.0, 1.0)`` (lower is better), ties broken by URI.
    ``document(uri, *, deadline=None) -> StoredDocument | None``: the stored text, whose sha256 is
    checked against the stored source hash on every read.
    ``uris(collection) -> list[str]``, ``index_fingerprint`` and ``close()`` (idempotent).

    ``deadline`` is a ``time.monotonic()`` instant: an SQLite progress handler aborts the statement
    once it passes, raising ``AdapterCallError("tool_timeout", "product_error")``. The handler runs
    between VM instructions only, and FTS5 parses a query and ``bm25`` scores a row inside single
    instructions whose cost grows with the square of the query's phrase count; the grammar's size
    caps (``fts_query``) are what keep each such instruction to milliseconds.

A connection is not shared across threads concurrently; open one ``LexicalIndex`` per session.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.fts_query import compile_query
from agentic.contract.canonical import fingerprint
from agentic.contract.jsrules import utf16_key
from agentic.fixture.spans import split_lines

if TYPE_CHECKING:  # the reference server imports this module; it never builds an index
    from agentic.fixture.snapshot import CorpusSnapshot

TOKENIZER = "porter unicode61"
SCHEMA_VERSION = "1"
BM25_WEIGHTS = (1.5, 4.0, 1.0)  # filepath, title, body
# SQLite VM instructions between deadline checks: small enough to stop within milliseconds.
_PROGRESS_STEPS = 1000
# SQLite's largest integer. The tool schema bounds ``limit`` only from below (and, like the
# reference's Ajv, takes 1e19 for an integer), so a larger limit is read as "no limit".
_MAX_LIMIT = 2**63 - 1

_SCHEMA = (
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE documents(id INTEGER PRIMARY KEY, uri TEXT NOT NULL UNIQUE, "
    "collection TEXT NOT NULL, relPath TEXT NOT NULL, sourceHash TEXT NOT NULL, "
    "title TEXT NOT NULL, source BLOB NOT NULL)",
    "CREATE INDEX documents_collection ON documents(collection, uri)",
    # prefix: the query grammar makes every bare word a prefix term ("tok"*), and a term of one
    # to three letters otherwise expands over much of the vocabulary (it halves the slowest
    # capsule searches of sqlite-docs). It changes no result and no index fingerprint.
    "CREATE VIRTUAL TABLE documents_fts USING fts5(filepath, title, body, "
    f"tokenize='{TOKENIZER}', prefix='1 2 3')",
)

# The rowid bounds let FTS5 skip, inside every term's doclist, the documents of other
# collections instead of scoring them all and filtering after: rows are inserted in URI order,
# so a collection's documents (one URI prefix) hold one run of ids. The collection test stays, so
# the answer never depends on that order; only the speed does (4-5x on sqlite-docs' searches).
_SEARCH_SQL = (
    "SELECT d.uri, d.collection, d.relPath, d.title, "
    "bm25(documents_fts, ?, ?, ?) AS score "
    "FROM documents_fts JOIN documents AS d ON d.id = documents_fts.rowid "
    "WHERE documents_fts MATCH ? AND documents_fts.rowid BETWEEN ? AND ? "
    "AND d.collection = ? "
    "ORDER BY score, d.uri LIMIT ?"
)
_COLLECTION_IDS_SQL = "SELECT min(id), max(id) FROM documents WHERE collection = ?"


# The index's file name inside a prepared root.
INDEX_FILE = "lexical.sqlite"
# A search hit's snippet range is the document's first chunk: as many leading lines as fit here.
FIRST_CHUNK_BYTES = 1500


def first_chunk_end(lines: tuple[str, ...]) -> int:
    """Last line of a document's first chunk: the longest prefix of lines whose UTF-8 size,
    counting one LF per line, stays within FIRST_CHUNK_BYTES; never less than line 1."""
    used = 0
    end = 0
    for line in lines:
        used += len(line.encode("utf-8")) + 1
        if used > FIRST_CHUNK_BYTES:
            break
        end += 1
    return max(end, 1)


@dataclass(frozen=True)
class Hit:
    """One ranked document. ``score`` is the raw bm25 value: more negative ranks higher."""

    uri: str
    collection: str
    rel_path: str
    title: str
    score: float


@dataclass(frozen=True)
class StoredDocument:
    uri: str
    collection: str
    rel_path: str
    source_hash: str
    title: str
    text: str

    @property
    def lines(self) -> tuple[str, ...]:
        """Lines per the contract's span rules (CR/CRLF -> LF, one trailing LF dropped)."""
        return split_lines(self.text)


@dataclass(frozen=True)
class IndexBuild:
    db_path: Path
    index_fingerprint: str
    document_count: int


def index_fingerprint(snapshot: CorpusSnapshot, tokenizer: str = TOKENIZER) -> str:
    """The contract's index fingerprint of a verbatim snapshot index: its tokenizer and each
    document's URI, source and mirror hash (equal: the corpus is stored verbatim), by URI."""
    documents = sorted(
        (
            {"uri": f.uri, "sourceHash": f.source_hash, "mirrorHash": f.source_hash, "active": True}
            for f in snapshot.files
        ),
        key=lambda d: utf16_key(str(d["uri"])),
    )
    return fingerprint({"tokenizer": tokenizer, "documents": documents})


def build_index(snapshot: CorpusSnapshot, db_path: Path) -> IndexBuild:
    """Write the index of every snapshot file into a new SQLite file at ``db_path``."""
    if db_path.exists():
        raise FileExistsError(f"index file already exists: {db_path}")
    fp = index_fingerprint(snapshot)
    files = sorted(snapshot.files, key=lambda f: utf16_key(f.uri))
    connection = sqlite3.connect(db_path)
    try:
        # A new file that nothing reads until it is whole: no rollback journal and no fsync
        # (a failed build is thrown away with its prepared root). Neither changes a byte of it.
        connection.execute("PRAGMA journal_mode = OFF")
        connection.execute("PRAGMA synchronous = OFF")
        with connection:
            for statement in _SCHEMA:
                connection.execute(statement)
            connection.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?)",
                [
                    ("schemaVersion", SCHEMA_VERSION),
                    ("tokenizer", TOKENIZER),
                    ("indexFingerprint", fp),
                ],
            )
            for row_id, f in enumerate(files, start=1):
                connection.execute(
                    "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (row_id, f.uri, f.collection, f.rel_path, f.source_hash, f.title, f.data),
                )
                connection.execute(
                    "INSERT INTO documents_fts(rowid, filepath, title, body) VALUES (?, ?, ?, ?)",
                    (row_id, f.rel_path, f.title, f.text),
                )
    finally:
        connection.close()
    return IndexBuild(db_path=db_path, index_fingerprint=fp, document_count=len(files))


def _timeout_error() -> AdapterCallError:
    return AdapterCallError("tool_timeout", "product_error", "index query exceeded its deadline")


class LexicalIndex:
    """A read handle on one built index. Not thread-safe; ``close`` is idempotent."""

    def __init__(self, connection: sqlite3.Connection, db_path: Path) -> None:
        self._connection: sqlite3.Connection | None = connection
        self.db_path = db_path
        # Each collection's lowest and highest document id, looked up on its first search.
        self._id_bounds: dict[str, tuple[int, int] | None] = {}
        self.index_fingerprint = self._meta("indexFingerprint")
        tokenizer = self._meta("tokenizer")
        if tokenizer != TOKENIZER:
            raise ValueError(
                f"index {db_path} uses tokenizer {tokenizer!r}, expected {TOKENIZER!r}"
            )

    @classmethod
    def open(cls, db_path: Path, *, read_only: bool = True) -> LexicalIndex:
        if not db_path.is_file():
            raise FileNotFoundError(f"no index file at {db_path}")
        mode = "ro" if read_only else "rw"
        connection = sqlite3.connect(
            f"{db_path.resolve().as_uri()}?mode={mode}", uri=True, check_same_thread=False
        )
        try:
            return cls(connection, db_path)
        except Exception:
            connection.close()
            raise

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            raise AdapterCallError("tool_call_failed", "product_error", "index is closed")
        return self._connection

    def _meta(self, key: str) -> str:
        row = self._db().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise ValueError(f"index {self.db_path} has no {key!r} entry")
        return str(row[0])

    @contextmanager
    def _deadline(self, deadline: float | None) -> Iterator[sqlite3.Connection]:
        db = self._db()
        if deadline is None:
            yield db
            return
        if time.monotonic() >= deadline:
            raise _timeout_error()
        db.set_progress_handler(lambda: int(time.monotonic() >= deadline), _PROGRESS_STEPS)
        try:
            yield db
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc).lower():
                raise _timeout_error() from exc
            raise
        finally:
            db.set_progress_handler(None, _PROGRESS_STEPS)

    def search(
        self, query: str, collection: str, limit: int, *, deadline: float | None = None
    ) -> list[Hit]:
        """Rank the documents of one collection for an agent query, best first."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        expression = compile_query(query)
        with self._deadline(deadline) as db:
            bounds = self._bounds(db, collection)
            if bounds is None:
                return []
            rows = db.execute(
                _SEARCH_SQL,
                (*BM25_WEIGHTS, expression, *bounds, collection, min(limit, _MAX_LIMIT)),
            ).fetchall()
        return [Hit(uri=r[0], collection=r[1], rel_path=r[2], title=r[3], score=r[4]) for r in rows]

    def _bounds(self, db: sqlite3.Connection, collection: str) -> tuple[int, int] | None:
        """The ids a collection's documents lie between; None for a collection with none."""
        if collection not in self._id_bounds:
            low, high = db.execute(_COLLECTION_IDS_SQL, (collection,)).fetchone()
            self._id_bounds[collection] = None if low is None else (int(low), int(high))
        return self._id_bounds[collection]

    def document(self, uri: str, *, deadline: float | None = None) -> StoredDocument | None:
        """The stored document, or None for an unknown URI; its bytes are hash-checked."""
        with self._deadline(deadline) as db:
            row = db.execute(
                "SELECT uri, collection, relPath, sourceHash, title, source FROM documents "
                "WHERE uri = ?",
                (uri,),
            ).fetchone()
        if row is None:
            return None
        source: bytes = row[5]
        if hashlib.sha256(source).hexdigest() != row[3]:
            raise AdapterCallError(
                "source_hash_mismatch", "product_error", f"stored text of {uri} fails its hash"
            )
        return StoredDocument(
            uri=row[0],
            collection=row[1],
            rel_path=row[2],
            source_hash=row[3],
            title=row[4],
            text=source.decode("utf-8"),
        )

    def uris(self, collection: str) -> list[str]:
        rows = (
            self._db()
            .execute("SELECT uri FROM documents WHERE collection = ? ORDER BY uri", (collection,))
            .fetchall()
        )
        return [str(r[0]) for r in rows]

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
