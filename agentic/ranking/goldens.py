"""Goldens: the questions the ranking and generation tiers ask, checked strictly at load.

A fixture carries its own goldens as ``<fixture>/goldens/*.jsonl`` (outside the manifest), one
JSON object per line, files read in name order. Fields:

- ``id``: unique slug; ``query``: the user's question (its final message when multi-turn);
  ``turns``: prior messages ``{role, content}``; ``tags``: free-form labels (the trap tags).
- ``taskId`` (our extension): the task whose collections the search may see, so a golden runs
  under exactly the visibility an agent on that task has; ``collection`` (optional) narrows the
  search to one of them and is passed to ``search`` as its ``collection`` argument.
- ``searchQuery`` (optional): what the search tool receives, defaulting to ``query``. Our lexical
  grammar joins terms with AND, so a search is written the way an agent writes one; the ranking
  tier measures the backend, not query formulation. A multi-turn golden's search query is its
  raw final message, so that bucket reports the honest floor.
- ``relevantDocIds``: document URIs (``gno://<collection>/<relPath>``); ``grades`` (optional) maps
  some of them to graded relevance (default 1, binary).
- ``mustInclude`` / ``mustNotInclude``: case-insensitive Python regexes over the answer;
  ``expectRefusal``: the right answer is to decline.

Rejected at load, before anything runs (exit 2): malformed lines, unknown fields, duplicate ids,
an unknown task or document, a relevant document outside the searched scope, a refusal that
names relevant documents, an answerable question that names none, a grade for a document that is
not relevant, a regex that does not compile.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field
from pydantic import ValidationError as ModelValidationError

from agentic.contract.base import (
    Bool,
    Collection,
    ContractModel,
    NonEmptyStr,
    PositiveInt,
    Str,
    TaskId,
    Unique,
    first_error,
)
from agentic.contract.canonical import fingerprint
from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject, parse_strict
from agentic.fixture.loader import Fixture
from agentic.fixture.paths import read_regular_file, symlink_on_path

GOLDENS_DIR = "goldens"
GOLDENS_SUFFIX = ".jsonl"

GoldenId = Annotated[Str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$")]
Tag = Annotated[Str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$")]
DocumentUri = Annotated[Str, Field(pattern=r"^gno://c[0-9a-f]{3}/.+$")]


class Turn(ContractModel):
    role: Literal["user", "assistant"]
    content: NonEmptyStr


class Golden(ContractModel):
    id: GoldenId
    taskId: TaskId
    collection: Collection | None = None
    query: NonEmptyStr
    searchQuery: NonEmptyStr | None = None
    turns: tuple[Turn, ...]
    relevantDocIds: Annotated[tuple[DocumentUri, ...], Unique]
    grades: dict[DocumentUri, PositiveInt] = Field(default_factory=dict)
    mustInclude: tuple[NonEmptyStr, ...]
    mustNotInclude: tuple[NonEmptyStr, ...]
    expectRefusal: Bool
    tags: Annotated[tuple[Tag, ...], Unique]

    @property
    def search_text(self) -> str:
        return self.searchQuery if self.searchQuery is not None else self.query

    def grade(self, uri: str) -> int:
        """Graded relevance of one document: 0 when not relevant, 1 unless graded higher."""
        if uri not in self.relevantDocIds:
            return 0
        return self.grades.get(uri, 1)

    def search_arguments(self, limit: int, min_score: float | None) -> JsonObject:
        arguments: JsonObject = {"query": self.search_text, "limit": limit}
        if self.collection is not None:
            arguments["collection"] = self.collection
        if min_score is not None:
            arguments["minScore"] = min_score
        return arguments


@dataclass(frozen=True)
class GoldenSet:
    """Validated goldens sorted by id, and the fingerprint of their canonical JSON."""

    goldens: tuple[Golden, ...]
    fingerprint: str

    def select(self, tags: Sequence[str] | None, limit: int | None = None) -> GoldenSet:
        """The goldens carrying any of ``tags`` (all when None), the first ``limit`` by id.

        The fingerprint stays the full set's: a filtered run measures a subset of the same
        questions, and its settings record the filter.
        """
        chosen = [g for g in self.goldens if tags is None or set(tags) & set(g.tags)]
        if tags is not None:
            unknown = sorted(set(tags) - {t for g in self.goldens for t in g.tags})
            if unknown:
                raise ContractError("golden_tag_unknown", f"no golden has tag {unknown[0]!r}")
        return GoldenSet(tuple(chosen[:limit] if limit is not None else chosen), self.fingerprint)


def recorded_tags(tags: Sequence[str] | None) -> tuple[str, ...] | None:
    """A tag filter (``GoldenSet.select``'s ``tags``) as a tier report's settings record it:
    sorted, so the order given on the command line changes no byte; None for every golden."""
    return tuple(sorted(tags)) if tags is not None else None


def _invalid(code: ErrorCodeName, where: str, message: str) -> ContractError:
    return ContractError(code, f"{where}: {message}")


def parse_lines(data: bytes, source: str) -> list[tuple[str, Golden]]:
    """Parse one JSONL file into (location, golden) pairs; every line must be one golden."""
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise _invalid(
            "golden_file_invalid", source, f"invalid UTF-8 at byte {exc.start}"
        ) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline
    if not lines:
        raise _invalid("golden_file_invalid", source, "no goldens")
    parsed: list[tuple[str, Golden]] = []
    for number, line in enumerate(lines, start=1):
        where = f"{source}:{number}"
        if not line.strip():
            raise _invalid("golden_file_invalid", where, "blank line")
        document = parse_strict(line, source=where)
        try:
            golden = Golden.model_validate(document)
        except ModelValidationError as exc:
            raise _invalid("golden_file_invalid", where, first_error(exc)) from None
        parsed.append((where, golden))
    return parsed


def _compile_patterns(where: str, golden: Golden) -> None:
    for field_name, patterns in (
        ("mustInclude", golden.mustInclude),
        ("mustNotInclude", golden.mustNotInclude),
    ):
        for index, pattern in enumerate(patterns):
            try:
                re.compile(pattern, re.IGNORECASE)
            except re.error as exc:
                raise _invalid(
                    "golden_regex_invalid", where, f"{field_name}[{index}] {pattern!r}: {exc}"
                ) from None


def _searched_collections(where: str, golden: Golden, fixture: Fixture) -> tuple[str, ...]:
    if golden.taskId not in fixture.task_ids:
        raise _invalid("golden_unknown_task", where, f"task {golden.taskId} is not in the fixture")
    visible = fixture.task(golden.taskId).corpus.collections
    if golden.collection is None:
        return visible
    if golden.collection not in visible:
        raise _invalid(
            "golden_scope_invalid",
            where,
            f"collection {golden.collection} is not visible to task {golden.taskId}",
        )
    return (golden.collection,)


def check_golden(where: str, golden: Golden, fixture: Fixture) -> None:
    """Every semantic rule of one golden against the loaded fixture's snapshot."""
    searched = _searched_collections(where, golden, fixture)
    for uri in golden.relevantDocIds:
        document = fixture.snapshot.by_uri(uri)
        if document is None:
            raise _invalid("golden_unknown_document", where, f"{uri} is not in the corpus")
        if document.collection not in searched:
            raise _invalid(
                "golden_scope_invalid", where, f"{uri} is outside the searched collections"
            )
    if golden.expectRefusal and golden.relevantDocIds:
        raise _invalid("golden_refusal_invalid", where, "a refusal golden names relevant documents")
    if not golden.expectRefusal and not golden.relevantDocIds:
        raise _invalid(
            "golden_relevance_missing", where, "an answerable golden names no relevant document"
        )
    for uri in golden.grades:
        if uri not in golden.relevantDocIds:
            raise _invalid("golden_grade_invalid", where, f"grade for {uri}, not a relevant doc")
    _compile_patterns(where, golden)


def build_set(located: Iterable[tuple[str, Golden]], fixture: Fixture) -> GoldenSet:
    seen: dict[str, str] = {}
    goldens: list[Golden] = []
    for where, golden in located:
        if golden.id in seen:
            raise _invalid(
                "golden_duplicate_id",
                where,
                f"id {golden.id!r} is already used at {seen[golden.id]}",
            )
        seen[golden.id] = where
        check_golden(where, golden, fixture)
        goldens.append(golden)
    goldens.sort(key=lambda g: g.id)
    digest = fingerprint([g.to_json() for g in goldens])
    return GoldenSet(tuple(goldens), digest)


def golden_files(root: Path) -> list[str]:
    """Fixture-relative paths of the golden files, in name order."""
    folder = root / GOLDENS_DIR
    if symlink_on_path(root, GOLDENS_DIR) is not None or not folder.is_dir():
        raise ContractError("golden_file_invalid", f"{folder}: no goldens folder")
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(GOLDENS_SUFFIX))
    if not names:
        raise ContractError("golden_file_invalid", f"{folder}: no *{GOLDENS_SUFFIX} file")
    return [f"{GOLDENS_DIR}/{name}" for name in names]


def load_goldens(fixture: Fixture, path: Path | None = None) -> GoldenSet:
    """The goldens of ``fixture`` (its ``goldens/`` folder) or of one JSONL file at ``path``."""
    if path is not None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ContractError("golden_file_invalid", f"{path}: {exc.strerror}") from None
        return build_set(parse_lines(data, str(path)), fixture)
    located: list[tuple[str, Golden]] = []
    for rel in golden_files(fixture.root):
        content = read_regular_file(fixture.root, rel)
        if content is None or symlink_on_path(fixture.root, rel) is not None:
            raise ContractError("golden_file_invalid", f"{rel}: not a regular file")
        located.extend(parse_lines(content, rel))
    return build_set(located, fixture)
