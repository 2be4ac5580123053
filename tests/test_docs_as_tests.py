"""Every documented path works as written: each TOML block of README.md and docs/ loads with the
kit's own loaders, each `agentic` command parses with the real parsers, and the README's two
quick starts (your MCP server, your model endpoint) run end to end against a server of the
kit's own examples and a scripted endpoint."""

from __future__ import annotations

import re
import shlex
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentic.adapters.mcp.backend_config import load_backend_config
from agentic.agents.chat_config import load_agent_config
from agentic.cli import UsageError, build_parser, main, reject_renamed
from agentic.contract.json_access import str_at
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from tests.support.fake_openai import (
    FakeEndpoint,
    Reply,
    json_reply,
    scripted_reply,
    serving,
    tool_call_reply,
)

ROOT = Path(__file__).resolve().parent.parent
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
SHELL = frozenset({"bash", "sh", "console", "shell"})


@dataclass(frozen=True)
class Block:
    page: Path
    language: str
    text: str

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}: {self.text.splitlines()[0][:60]}"


def blocks(*languages: str) -> list[Block]:
    return [
        Block(page, match.group(1), match.group(2))
        for page in PAGES
        for match in FENCE.finditer(page.read_text(encoding="utf-8"))
        if match.group(1) in languages
    ]


def commands(block: Block) -> list[list[str]]:
    """The ``agentic`` commands of a shell block: continuations joined, prompts and comments
    dropped, each command of a ``&&`` / ``;`` / ``|`` chain on its own."""
    joined = block.text.replace("\\\n", " ")
    found: list[list[str]] = []
    for line in joined.splitlines():
        words = shlex.split(line.removeprefix("$ "), comments=True)
        segment: list[str] = []
        for word in [*words, "&&"]:
            if word in ("&&", ";", "|", "||"):
                if segment[:1] == ["agentic"]:
                    found.append(segment[1:])
                segment = []
            else:
                segment.append(word)
    return found


def toml_blocks() -> list[Block]:
    return blocks("toml")


def shell_commands() -> list[tuple[Block, list[str]]]:
    return [(block, argv) for block in blocks(*SHELL) for argv in commands(block)]


def test_the_pages_show_commands_and_configs() -> None:
    assert len(toml_blocks()) >= 5
    assert len(shell_commands()) >= 20


@pytest.mark.parametrize("block", toml_blocks(), ids=str)
def test_a_documented_config_loads_with_the_kits_loader(block: Block, tmp_path: Path) -> None:
    document = tomllib.loads(block.text)
    path = tmp_path / "config.toml"
    path.write_text(block.text, encoding="utf-8")
    if document.get("kind") == "openai-chat":
        load_agent_config(path)
    elif "tools" in document and ("command" in document or "url" in document):
        load_backend_config(path)  # a whole backend config (a page may show one in parts)


@pytest.mark.parametrize(("block", "argv"), shell_commands(), ids=lambda v: str(v)[:80])
def test_a_documented_command_parses_with_the_real_parser(block: Block, argv: list[str]) -> None:
    try:
        reject_renamed(argv)
        build_parser(argv).parse_args(argv)
    except UsageError as exc:
        pytest.fail(f"{block}: agentic {' '.join(argv)}: {exc}")
    except SystemExit as exit_:  # --help and --version print and exit 0
        assert exit_.code == 0


def endpoint_policy(body: JsonObject) -> Reply:
    """The scripted model, and what ``catalog --check`` asks first: a chat, a tool call."""
    tools = body.get("tools")
    names = [str_at(tool, "function", "name") for tool in tools] if isinstance(tools, list) else []
    if not names:
        return json_reply({"choices": [{"index": 0, "message": {"content": "OK"}}]})
    if names == ["ping"]:
        return tool_call_reply("ping", "{}")
    return scripted_reply(body)


def readme_block(language: str, marker: str) -> str:
    readme = ROOT / "README.md"
    return next(b.text for b in blocks(language) if b.page == readme and marker in b.text)


@pytest.mark.real_process
def test_the_readmes_server_quick_start_runs_as_written(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    """The README's config beside a server that speaks it (the notes example, as server.py)."""
    folder = tmp_path / "my-search"  # beside the fixture, never holding it
    folder.mkdir()
    shutil.copy(ROOT / "examples/backends/notes-stdio/notes_stdio.py", folder / "server.py")
    config = folder / "my-search.toml"
    config.write_text(readme_block("toml", 'id = "my-search"'), encoding="utf-8")
    fixture = ("--fixture", str(tiny_fixture_dir))
    assert main(["catalog", "--backend", str(config), "--check", *fixture]) == 0
    out = tmp_path / "out"
    run = ["run", "--backend", str(config), "--adapter", "my-search,lexical", "--quiet"]
    assert main([*run, "--promote", "my-search:lexical", *fixture, "--out", str(out)]) in (0, 1)
    assert (out / "report.json").is_file()


def test_the_readmes_endpoint_quick_start_runs_as_written(
    tiny_fixture: Fixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's config pointed at a scripted endpoint: checked, recorded, then rerun
    with the endpoint down to the same canonical bytes."""
    text = readme_block("toml", 'kind = "openai-chat"')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    with serving(FakeEndpoint(policy=endpoint_policy, models=("smollm2-135m",))) as endpoint:
        config = tmp_path / "my-model.toml"
        url = re.sub(r'base_url = "[^"]*"', f'base_url = "{endpoint.base_url}"', text)
        config.write_text(url, encoding="utf-8")
        assert main(["catalog", "--agent-config", str(config), "--check"]) == 0
        recorded = cached_run_argv(config, tiny_fixture, tmp_path, "record", "recorded")
        assert main(recorded) == 0
    assert main(cached_run_argv(config, tiny_fixture, tmp_path, "reuse", "rerun")) == 0
    first = (tmp_path / "recorded" / "canonical.json").read_bytes()
    assert (tmp_path / "rerun" / "canonical.json").read_bytes() == first


def cached_run_argv(config: Path, fixture: Fixture, tmp: Path, mode: str, out: str) -> list[str]:
    return [
        "run", "--agent-config", str(config), "--adapter", "lexical", "--fixture",
        str(fixture.root), "--llm-cache", str(tmp / "cache"), "--llm-cache-mode", mode,
        "--out", str(tmp / out), "--quiet",
    ]  # fmt: skip
