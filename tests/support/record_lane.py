"""``nox -s record -- NAME``: record an endpoint lane's answers with a real model, resumably.

An endpoint lane (``optional/NAME`` in the catalog: an openai-chat agent config and a committed
LLM cache) is recorded by starting llama-cpp-python's OpenAI-compatible server over the lane's
locked model (assembled by ``nox -s model``) on the port its config names, then running
``agentic run --lane optional/NAME --llm-cache-mode record --write``. It runs for hours on two
cores, so it is made to be stopped and started again: every answer is in the cache as soon as it
is given (a rerun asks the server only what is not recorded yet), and an interrupted lane's
journal is resumed (``--resume``). When the lane completes, the answers no pair uses (recorded
before a change of the agent's config, say) are removed, and ``agentic verify optional/NAME``
reruns it from the cache with the server stopped: the committed cache alone must reproduce the
baseline. A pair whose model gave no answer within the step deadline has nothing to reuse, so it
is asked again, from the journal of a resumed recording or by recording the completed lane once
more (``record_answered``). SIGTERM stops the lane's run first and then its server, so no pair
ever runs against a server that is gone (and a server that dies under a run ends the run: the
kit journals no pair for it).

Usage: ``python -m tests.support.record_lane NAME [--threads N]``.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlsplit

from agentic.agents.chat_config import load_agent_config
from agentic.agents.llm_cache import unused_entries, used_keys
from agentic.catalog.load import builtin_catalog
from agentic.commands.model_parts import load_parts_lock
from agentic.lane.journal import PAIRS, journal_folder
from tests.support.openai_server import start_server

ROOT = Path(__file__).resolve().parents[2]
STEP_TIMEOUT_MS = 900_000  # tool calls keep the usual bound; this is only the run's ceiling
# How a pair ends when the model gave it no answer in time.
UNANSWERED = frozenset({"agent_timeout"})
RECORD_ATTEMPTS = 3


# llama-cpp-python's server keeps every prompt token's logits by default (for logprobs, which
# the agent never asks for): an n_ctx x vocabulary float32 array (10 GB for Qwen at 16,384) and
# the output layer computed and copied for each prompt token. Off, prompt evaluation measured
# 17% faster here, and greedy answers start with the same tokens.
LEAN_SERVER = ("--logits_all", "false")


@dataclass(frozen=True)
class Recording:
    """How a lane's model is served: its lock (``locks/<lock>.lock.json``) and the server's
    chat format and context (the config's context budget must fit it)."""

    lock: str
    chat_format: str | None
    n_ctx: int
    server_args: tuple[str, ...] = LEAN_SERVER


# chat_format None: the model's own template from its GGUF (the rendered protocol's tools).
RECORDINGS = {
    "qwen-bundled": Recording(lock="qwen-coder", chat_format=None, n_ctx=8192),
    "qwen-sqlite": Recording(lock="qwen-coder", chat_format=None, n_ctx=8192),
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="record_lane")
    parser.add_argument("name", choices=sorted(RECORDINGS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--lock", action="store_true", help="print the model's lock name")
    args = parser.parse_args(argv)
    recording = RECORDINGS[args.name]
    if args.lock:
        print(recording.lock)
        return 0
    lane = builtin_catalog().lane(f"optional/{args.name}")
    assert lane.agent_config is not None and lane.llm_cache is not None
    config = load_agent_config(ROOT / lane.agent_config)
    lock = load_parts_lock(ROOT / "locks" / f"{recording.lock}.lock.json")
    model = ROOT / ".cache" / "models" / lock.model.fileName
    if not model.is_file():
        raise SystemExit(f"record: {model} is missing: run `nox -s model -- {recording.lock}`")
    logs = ROOT / ".cache" / "record" / args.name
    logs.mkdir(parents=True, exist_ok=True)
    child = Child()
    signal.signal(signal.SIGTERM, child.stop)
    server = start_server(
        model,
        chat_format=recording.chat_format,
        n_ctx=recording.n_ctx,
        threads=args.threads,
        port=urlsplit(config.base_url).port,
        model_alias=config.model,
        log_path=logs / "server.log",
        startup_timeout_s=600,
        extra_args=recording.server_args,
    )
    try:
        code = record_answered(args.name, logs, child)
    finally:
        server.stop()
    if code not in (0, 1):
        return code
    prune(args.name, ROOT / lane.llm_cache)
    return subprocess.run(
        [sys.executable, "-m", "agentic", "verify", f"optional/{args.name}"], check=False
    ).returncode


@dataclass
class Child:
    """The lane's run while one is under way. SIGTERM is passed on to it, so it ends (journal
    sealed, temporary files removed) while its server still answers; with no run under way,
    SIGTERM ends the recorder, which stops the server on its way out."""

    process: subprocess.Popen[bytes] | None = field(default=None)
    stopping: bool = False

    def stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True
        if self.process is None:
            raise SystemExit(128 + signum)
        self.process.send_signal(signum)

    def run(self, argv: list[str], log: Path) -> int:
        if self.stopping:
            return 128 + signal.SIGTERM
        with log.open("ab") as out:
            self.process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
            try:
                return self.process.wait()
            finally:
                self.process = None


def unanswered(receipt: Any) -> bool:
    """Whether this receipt (JSON) ended with no answer from the model (``UNANSWERED``)."""
    return (receipt["canonical"]["failure"] or {}).get("code") in UNANSWERED


def drop_unanswered(target: Path) -> int:
    """Remove from the lane's journal the pairs the model gave no answer, and say how many. Such
    a pair's last request has no recorded answer, so a lane holding it could never be rerun
    from the cache; gone from the journal, it is asked again when the recording resumes (its
    earlier answers come from the cache). A busy machine is the usual cause (a recording paused
    or starved for the length of the config's deadline)."""
    pairs = journal_folder(target) / PAIRS
    entries = sorted(pairs.glob("*.json")) if pairs.is_dir() else []
    dropped = [e for e in entries if unanswered(json.loads(e.read_bytes())["receipt"])]
    for entry in dropped:
        entry.unlink()
    return len(dropped)


def record_answered(name: str, logs: Path, child: Child) -> int:
    """Record the lane until no pair of it is left without an answer (``drop_unanswered``), at
    most RECORD_ATTEMPTS times: a lane completed with an unanswered pair is recorded once more,
    every recorded answer coming from the cache, only the missing ones asked."""
    target = ROOT / "baselines" / "optional" / name
    code = 0
    for _ in range(RECORD_ATTEMPTS):
        dropped = drop_unanswered(target)
        if dropped:
            print(f"record: {dropped} journaled pair(s) got no answer: asking again")
        code = record(name, logs, child)
        if code not in (0, 1) or journal_folder(target).is_dir():
            return code  # stopped or failed before the lane completed: resume later
        report = json.loads((target / "report.json").read_bytes())
        late = sum(1 for receipt in report["receipts"] if unanswered(receipt))
        if not late:
            return code
        print(f"record: {late} pair(s) of the completed lane got no answer: again")
    return code


def prune(name: str, cache: Path) -> None:
    """Remove the cache's answers no pair of the lane uses. A rerun of the whole lane names,
    in each pair's observations, the entries it used (pairs journaled by older recordings may
    not); the verify that follows proves the rest still reproduces the lane."""
    with tempfile.TemporaryDirectory(prefix="agentic-prune-") as folder:
        out = Path(folder) / "rerun"
        argv = [
            sys.executable, "-m", "agentic", "run", "--lane", f"optional/{name}",
            "--llm-cache-mode", "reuse", "--out", str(out), "--quiet",
        ]  # fmt: skip
        if subprocess.run(argv, check=False).returncode not in (0, 1):
            print(f"record: the rerun of optional/{name} failed: nothing pruned")
            return
        report = json.loads((out / "report.json").read_bytes())
    notes = [note for r in report["receipts"] for note in r["observations"]["diagnostics"]]
    keep = used_keys(notes)
    if keep is None:
        print("record: the rerun's notes do not name their cache entries: nothing pruned")
        return
    unused = unused_entries(cache, keep)
    for path in unused:
        path.unlink()
    print(f"record: {len(keep)} answers used, {len(unused)} unused removed from {cache}")


def record(name: str, logs: Path, child: Child) -> int:
    target = ROOT / "baselines" / "optional" / name
    resume = ["--resume"] if journal_folder(target).is_dir() else []
    argv = [
        sys.executable, "-m", "agentic", "run", "--lane", f"optional/{name}",
        "--llm-cache-mode", "record", "--write", *resume,
        "--timeout-ms", str(STEP_TIMEOUT_MS),
    ]  # fmt: skip
    return child.run(argv, logs / "run.log")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
