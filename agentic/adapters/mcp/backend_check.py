"""``agentic catalog --backend FILE --check``: a backend config tried for real, before a lane.

``agentic catalog`` alone says whether a config *could* run (it parsed, its executables exist).
The check starts it as a lane would, under the sandbox: its ``prepare`` step, its server, the
handshake and server name, its tool list against every mapped tool and argument (the adapter's
own preparation refuses a tool or an input field the server does not declare), a fresh attach,
then a proof of the mapping on the fixture's first task:

- a sample search for a word the snapshot holds (``probe_word``: a word of a line of the task's
  documents, the rarest across the snapshot, so any query form that finds words finds it) must
  give at least one hit the mapping places on a document and a line of the snapshot;
- that hit's document is then read through the config's ``get`` (or the kit's snapshot read,
  with ``reads = "snapshot"``), which must give at least one of its lines.

A step whose replies the mapping read nothing of fails, quoting the server's raw reply: the usual
cause is a result pattern or path that matches nothing the server writes. Each config gets one
line: what matched and what the proof found, or the code and message of the first step that
failed; then a line naming what its command resolved to on the PATH the backend runs with (the
executable, and the interpreter behind it). A server that cannot import a module says so in its
interpreter's name: the usual cause is a ``python3`` on PATH that is not the one the server was
installed for.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentic.adapters.base import Adapter, AdapterSession
from agentic.adapters.deadlines import PREPARE_TIMEOUT_S
from agentic.adapters.errors import AdapterError
from agentic.adapters.mcp.adapter import McpSession
from agentic.adapters.mcp.backend_config import BackendConfig, load_backend_config
from agentic.adapters.mcp.configured import unmapped_tools
from agentic.adapters.mcp.mapped import front_matter_lines
from agentic.adapters.mcp.results import excerpt
from agentic.contract.errors import AgenticError
from agentic.fixture.loader import Fixture
from agentic.fixture.snapshot import CorpusFile

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")
# A probe word: whole, ASCII letters only, at least five of them.
_PROBE = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z]{5,}(?![A-Za-z0-9_])")
_SAMPLE_WORDS = 4
_PYTHON = re.compile(r"python[0-9.]*\Z")
_MISSING_MODULE = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '?([\w.]+)")
_SHEBANG_BYTES = 256
# What provides a module, where its name is not the package's.
_PROVIDERS = {"mcp": "the MCP SDK"}


@dataclass(frozen=True)
class Resolution:
    """What a config's command resolved to: ``found`` is its absolute path on the backend's PATH
    (None when it is not there), ``interpreter`` the program that runs it (the command itself
    for a Python, a script's ``#!`` interpreter), ``runs`` a Python command's script or module."""

    named: str
    found: str | None
    interpreter: str | None = None
    runs: str | None = None

    @property
    def program(self) -> str:
        """The command as it resolved: ``python3 resolved to /usr/bin/python3``."""
        if self.found is None or self.found == self.named:
            return self.found or self.named
        return f"{self.named} resolved to {self.found}"

    @property
    def runner(self) -> str:
        """Who imports the server's modules: the command, or the interpreter of its script."""
        if self.interpreter is None or self.interpreter == self.found:
            return self.program
        return f"{self.program}, whose interpreter is {self.interpreter}"

    @property
    def line(self) -> str:
        if self.found is None:
            return f"    command: {self.named} is not on the PATH the backend runs with"
        if self.runs is not None:
            return f"    command: {self.program} (interpreter), running {self.runs}"
        return f"    command: {self.runner}"


@dataclass(frozen=True)
class BackendCheck:
    """How one config fared: ``problem`` is None when every step passed."""

    adapter_id: str
    summary: str
    problem: str | None = None
    resolution: Resolution | None = None  # None: the user runs the server (a URL alone)
    unmapped: tuple[str, ...] = ()  # what each contract tool the config leaves out will do

    @property
    def line(self) -> str:
        verdict = "ok" if self.problem is None else f"failed: {self.problem}"
        return f"  {self.adapter_id}: {verdict}; {self.summary}"

    @property
    def lines(self) -> tuple[str, ...]:
        found = (self.line,) if self.resolution is None else (self.line, self.resolution.line)
        return found + tuple(f"    {tool}" for tool in self.unmapped)


def _search_path(config: BackendConfig) -> str | None:
    """The PATH the backend runs with: its config's ``env`` may set one, else the kit's."""
    value = config.env.get("PATH")
    return value if value is not None and "{" not in value else os.environ.get("PATH")


def _shebang(path: Path, search: str | None) -> str | None:
    """The interpreter a script's ``#!`` line names, found on ``search`` for ``env NAME``."""
    try:
        with open(path, "rb") as handle:
            head = handle.readline(_SHEBANG_BYTES)
    except OSError:
        return None
    words = head[2:].decode("utf-8", errors="replace").split() if head.startswith(b"#!") else []
    if not words:
        return None
    if Path(words[0]).name == "env" and len(words) > 1:
        return shutil.which(words[-1], path=search) or words[-1]
    return words[0]


def _python_runs(args: Sequence[str]) -> str | None:
    """What a Python command runs: its script (absolute), ``module NAME`` or inline code."""
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            return f"module {args[index + 1]}"
        if arg == "-c":
            return "inline code"
        if not arg.startswith("-"):
            return str(Path(arg).absolute())
    return None


def resolve_command(argv: Sequence[str], search: str | None) -> Resolution:
    """``argv[0]`` looked up as the backend's start would (``shutil.which`` on ``search``)."""
    named = argv[0]
    found = shutil.which(named, path=search)
    if found is None:
        return Resolution(named, None)
    found = str(Path(found).absolute())
    if _PYTHON.match(Path(found).name):
        return Resolution(named, found, found, _python_runs(argv[1:]))
    return Resolution(named, found, _shebang(Path(found), search))


def _resolution(config: BackendConfig, config_dir: Path, step: str) -> Resolution | None:
    """What the command of ``step`` resolved to (the prepare command's when it failed)."""
    argv = config.prepare if step == "prepare" and config.prepare is not None else config.command
    if argv is None:
        return None
    filled = [part.replace("{config_dir}", str(config_dir)) for part in argv]
    resolved = resolve_command(filled, _search_path(config))
    scrub = config.secrets().scrub

    def clean(text: str | None) -> str | None:
        return None if text is None else scrub(text)

    return Resolution(
        scrub(resolved.named),
        clean(resolved.found),
        clean(resolved.interpreter),
        clean(resolved.runs),
    )


def import_problem(message: str, resolution: Resolution | None) -> str | None:
    """One line for a server that failed on a missing module, naming its interpreter."""
    missing = _MISSING_MODULE.search(message)
    if missing is None or resolution is None or resolution.found is None:
        return None
    module = missing.group(1).split(".")[0]
    provider = _PROVIDERS.get(module, module)
    return (
        f"{resolution.runner}, which cannot import {module}: install {provider} there or name "
        "an interpreter that has it"
    )


@dataclass(frozen=True)
class ProbeWord:
    """A word the check searches for, and the snapshot line it was taken from."""

    word: str
    uri: str
    line: int


def _body_lines(file: CorpusFile) -> list[tuple[int, str]]:
    """A document's lines after its front matter (which some servers strip before indexing)."""
    skip = front_matter_lines(file)
    return [(number, text) for number, text in enumerate(file.lines, 1) if number > skip]


def probe_word(fixture: Fixture) -> ProbeWord | None:
    """A word of a line of the first task's documents that any query form finds: ASCII letters
    only (nothing a regex, a phrase or a tokenizer reads otherwise), at least five of them (not a
    stop word). The one in the fewest documents of the snapshot wins, a body line's before a
    heading's, then the first in document order: a rare word's hits are not crowded out of the
    server's default limit by other collections. None when the documents hold no such word."""
    task = fixture.tasks[0]
    frequency: dict[str, int] = {}
    for file in fixture.snapshot.files:
        for word in {found.lower() for found in _PROBE.findall(file.text)}:
            frequency[word] = frequency.get(word, 0) + 1
    best: tuple[tuple[int, bool], ProbeWord] | None = None
    for file in fixture.snapshot.in_collections(task.corpus.collections):
        for number, text in _body_lines(file):
            for word in _PROBE.findall(text):
                rank = (frequency[word.lower()], text.lstrip().startswith("#"))
                if best is None or rank < best[0]:
                    best = (rank, ProbeWord(word, file.uri, number))
    return None if best is None else best[1]


def sample_query(fixture: Fixture) -> str:
    """The probe word, else a few words of the first task's goal."""
    found = probe_word(fixture)
    if found is not None:
        return found.word
    words = _WORD.findall(fixture.tasks[0].brief.goal)[:_SAMPLE_WORDS]
    return " ".join(words) or "a"


def _failed(
    adapter_id: str, config: tuple[BackendConfig, Path], step: str, exc: AdapterError
) -> BackendCheck:
    """The verdict of a step that failed; a missing module is named with its interpreter."""
    parsed, config_dir = config
    message = str(exc)
    command = "prepare" if f"{parsed.id} prepare exited" in message else "start"
    resolution = _resolution(parsed, config_dir, command)
    problem = import_problem(message, resolution) or message
    return BackendCheck(adapter_id, f"stopped at {step}", f"{exc.code}: {problem}", resolution)


class _UnprovenError(AgenticError):
    """A proof step whose replies the mapping read nothing of; ``reply`` quotes them."""

    def __init__(self, step: str, message: str, reply: str) -> None:
        super().__init__(message)
        self.step = step
        self.reply = reply


def _reply(session: AdapterSession) -> str:
    """The start of the server's raw reply to the last call, for a step that read nothing."""
    replies = session.last_replies if isinstance(session, McpSession) else ()
    return excerpt(replies[0]) if replies else "nothing (the kit answered the call itself)"


def _prove(
    session: AdapterSession, config: BackendConfig, fixture: Fixture, timeout_s: float
) -> str:
    """Search for the probe word, read the first hit's document: what each step found."""
    query = sample_query(fixture)
    found = session.call("search", {"query": query}, timeout_s=timeout_s).result.evidence
    if not found:
        message = f"sample search {query!r} mapped no hit to a document and a line of the snapshot"
        raise _UnprovenError("sample search", f"{message} (tools.search.results)", _reply(session))
    first = found[0]
    summary = f"sample search {query!r}: {len(found)} lines, first {first.uri}:{first.startLine}"
    if config.tools.get is None and not config.reads_from_snapshot:
        return summary  # no read tool: its unmapped line says what an agent's read does
    read = session.call("get", {"uri": first.uri}, timeout_s=timeout_s).result.evidence
    if not read:
        message = f"get {first.uri} mapped no line of the snapshot (tools.get.results)"
        raise _UnprovenError("sample read", message, _reply(session))
    how = " (the kit's snapshot read)" if config.reads_from_snapshot else ""
    return f"{summary}; get {first.uri}: {len(read)} lines{how}"


def check_backend(
    adapter: Adapter,
    source: Path,
    fixture: Fixture,
    *,
    timeout_s: float,
    prepare_timeout_s: float = PREPARE_TIMEOUT_S,
) -> BackendCheck:
    """Prepare (within ``prepare_timeout_s``), attach, search and read once (each within
    ``timeout_s``) the adapter of the backend config at ``source``; the first step that fails is
    the verdict."""
    adapter_id = adapter.adapter_id
    config, config_dir = load_backend_config(source), source.resolve().parent
    step = "prepare"
    with tempfile.TemporaryDirectory(prefix="agentic-check-") as root:
        try:
            prepared = adapter.prepare(fixture.snapshot, Path(root), timeout_s=prepare_timeout_s)
            step = "attach"
            session = adapter.attach(prepared, timeout_s=timeout_s)
            try:
                step = "sample search"
                session.reset(fixture.tasks[0], readiness_probe=False, timeout_s=timeout_s)
                proved = _prove(session, config, fixture, timeout_s)
            finally:
                session.close()
        except AdapterError as exc:
            return _failed(adapter_id, (config, config_dir), step, exc)
        except _UnprovenError as exc:
            problem = f"{exc}; the server replied: {exc.reply}"
            resolution = _resolution(config, config_dir, "start")
            return BackendCheck(adapter_id, f"stopped at {exc.step}", problem, resolution)
    return BackendCheck(
        adapter_id,
        f"started, its tools match the mapping; {proved}",
        resolution=_resolution(config, config_dir, "start"),
        unmapped=unmapped_tools(config),
    )
