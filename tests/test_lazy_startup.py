"""Start-up is lazy: a command imports only what it uses.

Each check runs in a fresh interpreter, since this test process has long imported everything.
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentic.cli import COMMANDS, Command
from agentic.resources import fixtures_dir
from tests.support.tiny_fixture import write_tiny_fixture

# Top-level packages (and kit modules) that only some adapters, agents or commands need;
# jsonschema only when a schema file's bytes are not the published ones (contract/draft7.py).
HEAVY = (
    "mcp", "mcp_types", "llama_cpp", "httpx", "httpx2", "agentic.adapters.qmd",
    "jsonschema", "referencing",
)  # fmt: skip
HEAVY_KIT = (
    "agentic.adapters.mcp",
    "agentic.adapters.qmd",
    "agentic.agents.local_model",
    # the model agents' lock and answer cache: a fixture-agent run needs neither
    "agentic.agents.llm_cache",
    "agentic.agents.openai_chat",
    "agentic.agents.chat_config",
    "agentic.locks",
)

PROBE = """
import json, sys
from agentic.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def imported_after(*argv: str) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    last = done.stderr.strip().splitlines()[-1]
    result = json.loads(last)
    return int(result["code"]), list(result["modules"])


def heavy_modules(modules: list[str]) -> list[str]:
    return [name for name in modules if name.split(".")[0] in HEAVY or name.startswith(HEAVY_KIT)]


def test_a_lexical_and_capsule_run_imports_no_mcp_llama_or_qmd_module(tmp_path: Path) -> None:
    fixture = write_tiny_fixture(tmp_path / "fixture")
    code, modules = imported_after(
        "run",
        "--fixture",
        str(fixture),
        "--adapter",
        "lexical,capsule",
        "--promote",
        "capsule:lexical",
        "--out",
        str(tmp_path / "out"),
        "--quiet",
    )
    assert code in (0, 1)
    assert heavy_modules(modules) == []


def test_validating_a_report_imports_no_adapter_or_agent(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    path.write_text("{}", encoding="utf-8")
    code, modules = imported_after("validate", "task", str(path))
    assert code == 2
    assert [m for m in modules if m.startswith(("agentic.adapters", "agentic.agents"))] == []


# The contract's document models; validating one kind builds that kind's model alone (the
# start-up budget of `agentic validate`: nox -s bench -- startup).
DOCUMENT_MODELS = {
    "agentic.contract.oracle", "agentic.contract.receipt", "agentic.contract.report",
    "agentic.contract.task",
}  # fmt: skip


def test_validating_a_task_imports_the_task_model_alone() -> None:
    task = next((fixtures_dir() / "agentic-retrieval" / "tasks").glob("*.json"))
    code, modules = imported_after("validate", "task", str(task))
    assert code == 0
    assert DOCUMENT_MODELS & set(modules) == {"agentic.contract.task"}
    assert [m for m in modules if m.startswith(("agentic.report", "agentic.runner"))] == []
    assert heavy_modules(modules) == []


def test_the_top_level_help_lists_every_command_without_importing_it() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom agentic.cli import build_parser\nbuild_parser(['--help'])\n"
            "print(sorted(m for m in sys.modules if m.startswith('agentic.commands.')))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "[]"


class RecordingSubparsers:
    """Stands in for argparse's subparsers action and records what a module registers."""

    def __init__(self) -> None:
        self.added: list[tuple[str, str | None]] = []

    def add_parser(self, name: str, **options: Any) -> argparse.ArgumentParser:
        self.added.append((name, options.get("help")))
        return argparse.ArgumentParser(prog=name)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_each_command_module_registers_the_name_and_help_of_its_table_entry(
    command: Command,
) -> None:
    recorder = RecordingSubparsers()
    importlib.import_module(command.module).register(recorder)
    assert recorder.added == [(command.name, command.help)]


VERSION_PROBE = """
import json, sys
from agentic.cli import main
try:
    main(["--version"])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""
# What `agentic --version` may load of the kit: the CLI's table and the error types it prints.
VERSION_KIT = {
    "agentic", "agentic.cli", "agentic.contract", "agentic.contract.canonical",
    "agentic.contract.code_names", "agentic.contract.errors", "agentic.contract.jsrules",
    "agentic.contract.strict_json",
    "agentic.processes",
}  # fmt: skip


def test_the_version_imports_no_command_model_or_schema() -> None:
    done = subprocess.run(
        [sys.executable, "-c", VERSION_PROBE], capture_output=True, text=True, check=True
    )
    modules = json.loads(done.stderr.strip().splitlines()[-1])
    assert {m for m in modules if m.startswith("agentic")} <= VERSION_KIT
    assert [m for m in modules if m.split(".")[0] in ("pydantic", "jsonschema")] == []
