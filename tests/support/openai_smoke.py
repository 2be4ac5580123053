"""``nox -s openai-smoke``: the openai-chat agent end to end against a real endpoint.

llama-cpp-python's own OpenAI-compatible server is started over the pinned SmolLM2 GGUF on a
free port of 127.0.0.1. A short lane (lexical, cold, the tasks given, by default two) runs
through ``agentic run --agent-config`` over HTTP, recording every answer into an LLM cache; its
report must validate. The server is stopped, and the lane is replayed from the cache with the
endpoint down: its canonical.json must be byte-identical to the recorded one. Exit 0 only then.

Usage: ``python -m tests.support.openai_smoke [TASK_ID ...]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.fake_openai import config_text
from tests.support.openai_server import RunningServer, start_pinned_server

DEFAULT_TASKS = ("t0e10001", "t1a10001")
STEP_TIMEOUT_S = 300  # a step with ~1,600 prompt tokens takes 15-35 s on two cores


def agent_config(server: RunningServer) -> str:
    return config_text(
        server.base_url,
        id="smollm2-endpoint",
        model=server.model_alias or "model",
        max_output_tokens=256,
        timeout_s=float(STEP_TIMEOUT_S),
        tool_results="user",  # llama.cpp's function-calling template drops tool messages
    )


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


def main(argv: list[str]) -> int:
    tasks = tuple(argv) or DEFAULT_TASKS
    with tempfile.TemporaryDirectory(prefix="agentic-openai-smoke-") as folder:
        work = Path(folder)
        cache, config = work / "cache", work / "agent.toml"
        server = start_pinned_server(log_path=work / "server.log")
        print(f"openai-smoke: llama_cpp.server up at {server.base_url} in {server.startup_s:.1f} s")
        try:
            config.write_text(agent_config(server), encoding="utf-8")
            recorded = run(lane_argv(config, cache, "record", work / "recorded", tasks))
        finally:
            server.stop()
        run([sys.executable, "-m", "agentic", "validate", "report",
             str(work / "recorded" / "report.json")])  # fmt: skip
        replayed = run(lane_argv(config, cache, "replay", work / "replayed", tasks))
        first = (work / "recorded" / "canonical.json").read_bytes()
        same = (work / "replayed" / "canonical.json").read_bytes() == first
        entries = len(list(cache.glob("*.json")))
        for line in pair_lines(work / "recorded" / "report.json"):
            print(f"openai-smoke:   {line}")
        print(
            f"openai-smoke: {len(tasks)} pair(s) recorded in {recorded:.1f} s ({entries} cached "
            f"answers), replayed with the endpoint down in {replayed:.1f} s; canonical.json "
            f"{'byte-identical' if same else 'DIFFERS'}"
        )
        return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
