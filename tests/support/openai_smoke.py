"""``nox -s openai-smoke``: the openai-chat agent end to end against a real endpoint.

1. Live: llama-cpp-python's own OpenAI-compatible server is started over the pinned SmolLM2 GGUF
   on a free port of 127.0.0.1. A short lane (lexical, cold, the tasks given, by default two)
   runs through ``agentic run --agent-config`` over HTTP, recording every answer into an LLM
   cache; its report must validate. The server is stopped, and the lane is rerun from the
   cache with the endpoint down: its canonical.json must be byte-identical to the recorded one.
2. Committed: the committed cache (``baselines/llm-cache/smollm2-endpoint/``) is reused with
   the example config (``examples/agents/llama-server.toml``), and every receipt must equal the
   committed baseline's (``baselines/optional/openai-smollm2/``): a recorded LLM lane is a
   rerunnable baseline like the others.

Exit 0 only when both hold. ``--restage`` records the committed cache and baseline afresh (the
kit's prompt, tools or model changed): it starts the server, records, and writes both.

Usage: ``python -m tests.support.openai_smoke [--restage] [TASK_ID ...]``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.openai_server import RunningServer, start_pinned_server

DEFAULT_TASKS = ("t0e10001", "t1a10001")
STEP_TIMEOUT_S = 300  # a step with ~1,600 prompt tokens takes 15-35 s on two cores


ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_CONFIG = ROOT / "examples" / "agents" / "llama-server.toml"
COMMITTED_CACHE = ROOT / "baselines" / "llm-cache" / "smollm2-endpoint"
COMMITTED_BASELINE = ROOT / "baselines" / "optional" / "openai-smollm2"
COMMITTED_TASKS = ("t0e10001", "t1a10001", "t2c10001")


def agent_config(server: RunningServer) -> str:
    """The example config, pointed at ``server``: the URL is not part of a cache key, so what
    this records, the example config reuses."""
    lines = EXAMPLE_CONFIG.read_text(encoding="utf-8").splitlines(keepends=True)
    url = f'base_url = "{server.base_url}"\n'
    return "".join(url if line.startswith("base_url =") else line for line in lines)


def lane_argv(config: Path, cache: Path, mode: str, out: Path, tasks: tuple[str, ...]) -> list[str]:
    return [
        sys.executable, "-m", "agentic", "run",
        "--agent-config", str(config),
        "--llm-cache", str(cache), "--llm-cache-mode", mode,
        "--adapter", "lexical", "--lifecycle", "cold", "--task", ",".join(tasks),
        "--promote", "none", "--timeout-ms", str(STEP_TIMEOUT_S * 1000),
        "--out", str(out),
    ]  # fmt: skip


def run(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        raise SystemExit(f"openai-smoke: {' '.join(argv[2:5])} exited {done.returncode}")
    return time.perf_counter() - started


def pair_lines(report_path: Path) -> list[str]:
    """Per pair: its task, calls, and how it ended (the model's quality is not under test)."""
    report = json.loads(report_path.read_text(encoding="utf-8"))
    lines = []
    for receipt, record in zip(report["receipts"], report["scores"], strict=True):
        canon = receipt["canonical"]
        ended = canon["failure"]["code"] or ("success" if record["score"]["success"] else "fail")
        lines.append(f"{canon['taskId']}: {canon['agentCalls']} call(s), {ended}")
    return lines


def record(config: Path, cache: Path, out: Path, tasks: tuple[str, ...], log: Path) -> float:
    """Record the lane into ``cache`` against a freshly started server; the server is stopped
    before this returns."""
    server = start_pinned_server(log_path=log)
    print(f"openai-smoke: llama_cpp.server up at {server.base_url} in {server.startup_s:.1f} s")
    try:
        config.write_text(agent_config(server), encoding="utf-8")
        return run(lane_argv(config, cache, "record", out, tasks))
    finally:
        server.stop()


def verify_committed(work: Path) -> bool:
    """The committed cache reruns to the committed baseline's receipts, endpoint down."""
    out = work / "committed"
    run(lane_argv(EXAMPLE_CONFIG, COMMITTED_CACHE, "reuse", out, COMMITTED_TASKS))
    base = str(COMMITTED_BASELINE / "report.json")
    argv = [sys.executable, "-m", "agentic", "compare", base, str(out / "report.json"),
            "--receipts"]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    print(f"openai-smoke: committed cache reused: {done.stdout.strip().splitlines()[-1]}")
    return done.returncode == 0


def restage() -> int:
    with tempfile.TemporaryDirectory(prefix="agentic-openai-restage-") as folder:
        work = Path(folder)
        if COMMITTED_CACHE.exists():
            shutil.rmtree(COMMITTED_CACHE)  # only the kit writes this folder
        record(work / "agent.toml", COMMITTED_CACHE, work / "recorded", COMMITTED_TASKS,
               work / "server.log")  # fmt: skip
        run([*lane_argv(EXAMPLE_CONFIG, COMMITTED_CACHE, "reuse", COMMITTED_BASELINE,
                        COMMITTED_TASKS), "--force"])  # fmt: skip
        for line in pair_lines(COMMITTED_BASELINE / "report.json"):
            print(f"openai-smoke:   {line}")
    print(f"openai-smoke: restaged {COMMITTED_CACHE} and {COMMITTED_BASELINE}")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--restage"]:
        return restage()
    tasks = tuple(argv) or DEFAULT_TASKS
    with tempfile.TemporaryDirectory(prefix="agentic-openai-smoke-") as folder:
        work = Path(folder)
        cache, config = work / "cache", work / "agent.toml"
        recorded = record(config, cache, work / "recorded", tasks, work / "server.log")
        run([sys.executable, "-m", "agentic", "validate", "report",
             str(work / "recorded" / "report.json")])  # fmt: skip
        rerun = run(lane_argv(config, cache, "reuse", work / "rerun", tasks))
        first = (work / "recorded" / "canonical.json").read_bytes()
        same = (work / "rerun" / "canonical.json").read_bytes() == first
        entries = len(list(cache.glob("*.json")))
        for line in pair_lines(work / "recorded" / "report.json"):
            print(f"openai-smoke:   {line}")
        print(
            f"openai-smoke: {len(tasks)} pair(s) recorded in {recorded:.1f} s ({entries} cached "
            f"answers), rerun from the cache with the endpoint down in {rerun:.1f} s; "
            f"canonical.json {'byte-identical' if same else 'DIFFERS'}"
        )
        committed = verify_committed(work)
        return 0 if same and committed else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
