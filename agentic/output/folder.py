"""What an output folder may hold before the kit replaces it with a report.

Writing a report replaces its whole folder (``artifacts.write_artifacts``), so the folder must be
missing, empty, or a previous report of the kit. Anything else is refused with
``unsafe_output_path``, and nothing is written or removed: the kit never destroys what it did
not write. Refused: a symbolic link (even to a folder), a regular file or anything else that is
not a folder, and a folder with any entry that is not a regular file named as one report kind
writes its files (a subfolder, a symlink, a file of another name, or names of two kinds).

The report kinds and their files:

- lane report (``agentic run --out/--write``): ``report.json``, ``canonical.json``,
  ``observations.json``, ``report.md`` (the committed artifacts) and the companion
  ``report.html``;
- ranking (``agentic ranking --out``): ``ranking.json``, ``ranking.txt``, ``qrels.trec`` and
  ``run.<adapter>.<variant>.trec``;
- generation (``agentic generation --out``): ``generation.json``, ``generation.txt``;
- matrix (``agentic matrix --out``): ``matrix.txt`` and ``generation.<model>.json``;
- shard (``agentic run --shard K/N --out``): ``shard.json``, ``shard.md``.

The kit's own leftover temp files of a companion rewrite (``.agentic-tmp-<companion>-<hex>``,
left by a killed ``contract.files.replace_atomically``) may sit in a lane report too.

A previous report's identity is read from its own bytes, not from a marker beside it, so every
report the kit writes (the committed baselines among them) has one:

- lane report: the agent (``report.json`` ``environment.agentId``) and the sorted adapter ids of
  its ``preparations``;
- ranking: the sorted adapter ids of ``ranking.json``'s ``runs``;
- generation: the model id of ``generation.json`` (``model.id``);
- matrix: the sorted model ids of its ``generation.<model>.json`` files;
- shard: ``K/N``, the agent and the adapter ids of ``shard.json``.

A file that names no identity (unreadable, not JSON, fields missing, over the input cap) makes
the report "unidentified". A write replaces a previous report of its own identity; another
identity (another kind, agent, adapter set or model) is refused with
``output_holds_another_report`` unless the writer was given ``--force``. ``--force`` never
applies to the refusals above.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from agentic.contract.errors import ContractError
from agentic.contract.files import TEMP_PREFIX, TEMP_TOKEN_BYTES, max_input_bytes

# A lane report's files: the committed artifacts, and companions derived from them that a
# reproduced baseline rewrites beside the kept artifacts (never committed: .gitignore).
LANE_ARTIFACTS: tuple[str, ...] = (
    "report.json",
    "canonical.json",
    "observations.json",
    "report.md",
)
LANE_COMPANIONS: tuple[str, ...] = ("report.html",)
_COMPANION = "(?:" + "|".join(re.escape(name) for name in LANE_COMPANIONS) + ")"
_HEX = f"[0-9a-f]{{{2 * TEMP_TOKEN_BYTES}}}"
# Left only by a killed ``contract.files.replace_atomically`` (a companion rewrite, a page).
_TEMP_SHAPE = re.compile(f"{re.escape(TEMP_PREFIX)}{_COMPANION}-{_HEX}")
_MAX_LISTED = 3


@dataclass(frozen=True)
class Identity:
    """Which run a report is of: its kind and, when its files name it, what identifies it."""

    kind: str
    detail: str | None  # None: the report's files name no identity

    def __str__(self) -> str:
        return f"{self.kind} report ({self.detail or 'unidentified'})"


Reader = Callable[[str], object]  # a file name -> its parsed JSON, None when it names nothing


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _ids(items: object, key: str) -> list[str] | None:
    if not isinstance(items, list):
        return None
    found = [_text(item.get(key)) if isinstance(item, dict) else None for item in items]
    if any(value is None for value in found):
        return None
    return sorted({value for value in found if value is not None})


def _lane_identity(names: frozenset[str], read: Reader) -> str | None:
    report = read("report.json")
    if not isinstance(report, dict) or not isinstance(report.get("environment"), dict):
        return None
    agent = _text(report["environment"].get("agentId"))
    adapters = _ids(report.get("preparations"), "adapterId")
    if agent is None or adapters is None:
        return None
    return lane_identity(agent, adapters).detail


def lane_identity(agent_id: str, adapter_ids: Iterable[str]) -> Identity:
    """The identity of a lane report of ``agent_id`` over ``adapter_ids``, as its files name
    it: known before the lane runs, so a folder holding another lane's report is refused
    before the run rather than after it."""
    adapters = ",".join(sorted(set(adapter_ids))) or "none"
    return Identity("lane", f"agent {agent_id}; adapters {adapters}")


def _ranking_identity(names: frozenset[str], read: Reader) -> str | None:
    report = read("ranking.json")
    if not isinstance(report, dict) or report.get("reportKind") != "ranking":
        return None
    adapters = _ids(report.get("runs"), "adapterId")
    return None if adapters is None else f"adapters {','.join(adapters) or 'none'}"


def _model_id(report: object) -> str | None:
    if not isinstance(report, dict) or report.get("reportKind") != "generation":
        return None
    model = report.get("model")
    return _text(model.get("id")) if isinstance(model, dict) else None


def _generation_identity(names: frozenset[str], read: Reader) -> str | None:
    model = _model_id(read("generation.json"))
    return None if model is None else f"model {model}"


_MATRIX_REPORT = re.compile(r"generation\.[A-Za-z0-9._-]+\.json")


def _matrix_identity(names: frozenset[str], read: Reader) -> str | None:
    models = [_model_id(read(name)) for name in sorted(names) if _MATRIX_REPORT.fullmatch(name)]
    if any(model is None for model in models):
        return None
    return f"models {','.join(sorted(m for m in models if m is not None)) or 'none'}"


def _shard_identity(names: frozenset[str], read: Reader) -> str | None:
    document = read("shard.json")
    if not isinstance(document, dict):
        return None
    shard, run = document.get("shard"), document.get("run")
    if not isinstance(shard, dict) or not isinstance(run, dict):
        return None
    agent, adapters = run.get("agent"), run.get("adapters")
    if not isinstance(agent, dict) or not isinstance(adapters, list):
        return None
    ids = _ids(adapters, "id")
    if ids is None:
        return None
    return (
        f"shard {shard.get('index')}/{shard.get('count')} of agent {_text(agent.get('id'))}, "
        f"adapters {','.join(ids)}"
    )


@dataclass(frozen=True)
class ReportKind:
    name: str
    names: frozenset[str]  # exact file names
    pattern: re.Pattern[str] | None  # and file names of this shape
    identify: Callable[[frozenset[str], Reader], str | None]

    def holds(self, name: str) -> bool:
        return name in self.names or (
            self.pattern is not None and bool(self.pattern.fullmatch(name))
        )


KINDS: tuple[ReportKind, ...] = (
    ReportKind("lane", frozenset(LANE_ARTIFACTS + LANE_COMPANIONS), None, _lane_identity),
    ReportKind(
        "ranking",
        frozenset({"ranking.json", "ranking.txt", "qrels.trec"}),
        re.compile(r"run\.[A-Za-z0-9._-]+\.trec"),
        _ranking_identity,
    ),
    ReportKind(
        "generation",
        frozenset({"generation.json", "generation.txt"}),
        None,
        _generation_identity,
    ),
    ReportKind("matrix", frozenset({"matrix.txt"}), _MATRIX_REPORT, _matrix_identity),
    ReportKind("shard", frozenset({"shard.json", "shard.md"}), None, _shard_identity),
)


def kind_of(names: frozenset[str]) -> ReportKind | None:
    """The one kind that writes every name, None when none does (or ``names`` is empty)."""
    if not names:
        return None
    for kind in KINDS:
        if all(kind.holds(name) for name in names):
            return kind
    return None


def _parse(data: bytes) -> object:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def files_identity(files: Mapping[str, bytes]) -> Identity:
    """The identity of a set of files about to be written. Only the files that name the
    identity are read (a lane's ``report.json``, say), each once."""
    names = frozenset(files)
    kind = kind_of(names)
    if kind is None:
        raise ValueError(
            f"{', '.join(sorted(names)) or 'no file'}: no report kind of "
            "agentic/output/folder.py writes these names"
        )

    def read(name: str) -> object:
        return _parse(files[name]) if name in names else None

    return Identity(kind.name, kind.identify(names, read))


def is_temp(name: str) -> bool:
    """A companion temp file of the kit (``.agentic-tmp-report.html-<hex>``)."""
    return bool(_TEMP_SHAPE.fullmatch(name))


class PreviousReport:
    """A previous report of the kit in an output folder; its identity is read when asked."""

    def __init__(self, folder: Path, kind: ReportKind, names: frozenset[str]) -> None:
        self.folder = folder
        self.kind = kind
        self.names = names  # its report files (kit temps left out)
        self._parsed: dict[str, object] = {}

    def read(self, name: str) -> object:
        """The parsed JSON of one of its files; None when absent, unreadable or over the cap."""
        if name not in self.names:
            return None
        if name not in self._parsed:
            self._parsed[name] = self._load(name)
        return self._parsed[name]

    def _load(self, name: str) -> object:
        try:
            fd = os.open(self.folder / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > max_input_bytes():
                return None
            with os.fdopen(fd, "rb", closefd=False) as handle:
                return _parse(handle.read())
        except OSError:
            return None
        finally:
            os.close(fd)

    @cached_property
    def identity(self) -> Identity:
        return Identity(self.kind.name, self.kind.identify(self.names, self.read))

    @cached_property
    def results_fingerprint(self) -> str | None:
        """A lane report's ``resultsFingerprint`` (None for other kinds, or when unreadable)."""
        if self.kind.name != "lane":
            return None
        report = self.read("report.json")
        return _text(report.get("resultsFingerprint")) if isinstance(report, dict) else None


def _refused(message: str) -> ContractError:
    return ContractError(
        "unsafe_output_path",
        f"{message}; nothing was written: choose a new or empty folder, or a previous report "
        "folder of the kit",
    )


def _listed(names: list[str]) -> str:
    shown = ", ".join(repr(name) for name in sorted(names)[:_MAX_LISTED])
    more = len(names) - _MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def check_folder_path(target: Path) -> bool:
    """Whether ``target`` exists; refused (unsafe_output_path) unless it is a real folder."""
    try:
        info = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):
        return False  # created by the writer (which reports a parent that is no folder)
    except OSError as exc:
        raise _refused(f"{target} cannot be inspected ({exc.strerror or exc})") from None
    if stat.S_ISLNK(info.st_mode):
        raise _refused(f"{target} is a symbolic link")
    if not stat.S_ISDIR(info.st_mode):
        what = "a regular file" if stat.S_ISREG(info.st_mode) else "not a folder"
        raise _refused(f"{target} is {what}")
    return True


def previous_report(target: Path) -> PreviousReport | None:
    """The previous report of the kit in ``target``: None when the folder is missing, empty or
    holds only the kit's temp files; ContractError(unsafe_output_path) when it holds anything
    else (see the module docstring). Reads no file: the identity is read when asked."""
    if not check_folder_path(target):
        return None
    try:
        entries = sorted(os.scandir(target), key=lambda entry: entry.name)
    except OSError as exc:
        raise _refused(f"{target} cannot be listed ({exc.strerror or exc})") from None
    folders: list[str] = []
    others: list[str] = []
    names: set[str] = set()
    for entry in entries:
        try:
            regular = entry.is_file(follow_symlinks=False)
            folder = entry.is_dir(follow_symlinks=False)
        except OSError:
            regular = folder = False
        if folder:
            folders.append(entry.name)
        elif not regular:
            others.append(entry.name)
        elif not is_temp(entry.name):
            names.add(entry.name)
    if folders:
        raise _refused(f"{target} holds the folder(s) {_listed(folders)}")
    if others:
        raise _refused(f"{target} holds {_listed(others)}, not regular file(s)")
    found = frozenset(names)
    kind = kind_of(found)
    if found and kind is None:
        foreign = [name for name in found if not any(k.holds(name) for k in KINDS)]
        if foreign:
            raise _refused(f"{target} holds {_listed(foreign)}, which no report of the kit writes")
        raise _refused(f"{target} mixes files of different report kinds ({_listed(list(found))})")
    return None if kind is None else PreviousReport(target, kind, found)


def check_output(target: Path, expected: Identity | None = None, *, force: bool = False) -> None:
    """Refuse an output folder the kit may not replace, before any work is done; with
    ``expected``, also one holding a report of another identity (unless ``force``), which reads
    that report's identity file. ``write_artifacts`` checks both again under its lock."""
    previous = previous_report(target)
    if expected is not None:
        check_replaceable(target, previous, expected, force=force)


def check_replaceable(
    target: Path, previous: PreviousReport | None, new: Identity, *, force: bool
) -> None:
    """Refuse (output_holds_another_report) a previous report of another identity, unless
    ``force``."""
    if previous is None or force or previous.identity == new:
        return
    raise ContractError(
        "output_holds_another_report",
        f"{target} holds a previous {previous.identity}, not this {new}; --force replaces it",
    )
