"""The checkout's ``lanes.toml``: its lanes and example servers are data, read strictly; an
installed kit, which has no such file, lists what the package ships and what the user gives."""

from __future__ import annotations

import importlib
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from agentic import resources
from agentic.catalog.lanes_file import LANES_FILE, load_lanes_file, parse_lanes_file
from agentic.catalog.load import load_catalog
from agentic.cli import main
from agentic.contract.errors import ContractError
from tests.support.backends import write_config

_KIT = ("capsule", "lexical", "mcp-reference")
_BOTH = ("cold", "warm")


def _lane(name: str, agent: str, adapters: tuple[str, ...], **fields: Any) -> dict[str, Any]:
    lane = {"name": name, "agent": agent, "adapters": adapters, "promote": None, "replay": False}
    defaults = {"fixture": "agentic-retrieval", "agent_config": None, "llm_cache": None}
    return {**lane, **defaults, "lifecycles": _BOTH, **fields}


def _server_lane(server: str) -> dict[str, Any]:
    return _lane(f"backends/{server}", "fixture", (server, "lexical"), promote=(server, "lexical"))


# Every lane as agentic/catalog/builtins.py's BUILTIN_LANES and shipped_servers.py defined it before
# the lanes moved to lanes.toml, field by field, in the catalog's order: each committed baseline
# reproduces only while its lane stays exactly this.
SNAPSHOT: tuple[dict[str, Any], ...] = (
    _lane("fixture-agent", "fixture", _KIT, promote=("capsule", "mcp-reference"), replay=True),
    _lane("optional/qmd-lex", "fixture", ("qmd-lex",)),
    _lane("optional/qmd", "fixture", ("qmd",)),
    _lane("optional/local-model", "local-model", _KIT),
    _lane(
        "optional/qwen-bundled", "qwen-bundled", _KIT,
        agent_config="examples/agents/qwen-bundled.toml",
        llm_cache="baselines/llm-cache/qwen-bundled", lifecycles=("cold",),
    ),
    _lane(
        "optional/qwen-sqlite", "qwen-sqlite", ("capsule", "lexical", "qmd-lex"),
        fixture="sqlite-docs", agent_config="examples/agents/qwen-sqlite.toml",
        llm_cache="baselines/llm-cache/qwen-sqlite", lifecycles=("cold",),
    ),
    _lane(
        "sqlite-docs", "fixture", (*_KIT, "qmd-lex"), promote=("capsule", "mcp-reference"),
        replay=True, fixture="sqlite-docs",
    ),
    _server_lane("basic-memory"),
    _server_lane("docs-mcp"),
    _server_lane("gnosis-mcp"),
    _server_lane("qmd-config"),
)  # fmt: skip

PACKAGED_ADAPTERS = ("capsule", "gno-mcp", "lexical", "mcp-reference", "oracle", "qmd", "qmd-lex")
# The lanes that need nothing of a checkout: the package's adapters and agents on the bundled
# fixture (the container image verifies qmd-lex and local-model from the installed wheel).
PACKAGED_LANES = ["fixture-agent", "optional/qmd-lex", "optional/qmd", "optional/local-model"]
ONE_LANE = """\
[[lanes]]
name = "optional/mine"
agent = "fixture"
adapters = ["capsule", "lexical"]
"""


def _stand_in_root(monkeypatch: pytest.MonkeyPatch, root: Path | None) -> None:
    """Make ``root`` the running checkout (None: an installed kit). The modules these tests reach
    that bind ``repo_root`` by name are imported first, so none keeps the stand-in afterwards."""
    for module in ("agentic.commands.catalog", "agentic.catalog.source"):
        importlib.import_module(module)
    monkeypatch.setattr(resources, "repo_root", lambda: root)


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kit as a wheel outside any checkout sees itself."""
    _stand_in_root(monkeypatch, None)


def _checkout(monkeypatch: pytest.MonkeyPatch, root: Path, lanes: str | None) -> Path:
    """A stand-in checkout at ``root``, with ``lanes`` as its lanes.toml (None: no file)."""
    root.mkdir(parents=True, exist_ok=True)
    if lanes is not None:
        (root / LANES_FILE).write_text(lanes, encoding="utf-8")
    _stand_in_root(monkeypatch, root)
    return root / LANES_FILE


def _refusal(text: str) -> str:
    with pytest.raises(ContractError) as caught:
        parse_lanes_file(text.encode(), source="lanes.toml")
    assert caught.value.code == "invalid_lanes_file"
    return caught.value.message


def test_the_checkouts_lanes_are_exactly_the_lanes_they_were() -> None:
    lanes = load_catalog(plugins=False).lanes
    assert [asdict(lane) for lane in lanes.values()] == list(SNAPSHOT)


def test_the_repository_file_parses() -> None:
    parsed = load_lanes_file(Path(__file__).resolve().parents[1] / LANES_FILE)
    assert parsed.servers == "examples/servers"


def test_an_installed_kit_lists_only_what_the_package_ships(installed: None) -> None:
    catalog = load_catalog(plugins=False)
    assert catalog.adapter_ids == PACKAGED_ADAPTERS
    assert sorted(catalog.agents) == ["fixture", "local-model", "openai-chat"]
    assert list(catalog.lanes) == PACKAGED_LANES


def test_an_installed_kit_keeps_the_users_backend(installed: None, tmp_path: Path) -> None:
    config = write_config(tmp_path / "mine", {
        "id": "my-search", "transport": "stdio", "command": ["my-search"],
        "tools": {"search": {"name": "grep", "arguments": {"query": "q"}}},
        "results": {"shape": "hits"},
    })  # fmt: skip
    catalog = load_catalog((config,), plugins=False)
    assert catalog.adapter_ids == tuple(sorted((*PACKAGED_ADAPTERS, "my-search")))


def test_an_installed_kit_lists_the_packages_lanes(
    installed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["catalog", "--names", "lanes"]) == 0
    assert capsys.readouterr().out.splitlines() == sorted(PACKAGED_LANES)


def test_a_checkout_without_a_lanes_file_is_the_package_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _checkout(monkeypatch, tmp_path, None)
    catalog = load_catalog(plugins=False)
    assert (catalog.adapter_ids, list(catalog.lanes)) == (PACKAGED_ADAPTERS, PACKAGED_LANES)


def test_a_lanes_file_adds_its_lanes_after_the_packages(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _checkout(monkeypatch, tmp_path, ONE_LANE)
    lane = load_catalog(plugins=False).lane("optional/mine")
    assert (lane.adapters, lane.promote, lane.lifecycles) == (("capsule", "lexical"), None, _BOTH)


def test_the_servers_folder_gives_each_config_an_adapter_and_a_lane(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _checkout(monkeypatch, tmp_path, 'servers = "servers"\n')
    write_config(tmp_path / "servers" / "grep-server", {
        "id": "grep-server", "transport": "stdio", "command": ["grep-server"],
        "tools": {"search": {"name": "grep", "arguments": {"query": "q"}}},
        "results": {"shape": "hits"},
    })  # fmt: skip
    catalog = load_catalog(plugins=False)
    assert catalog.adapter("grep-server").origin == "config"
    assert catalog.lane("backends/grep-server").adapters == ("grep-server", "lexical")


def test_a_broken_lanes_file_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _checkout(monkeypatch, tmp_path, 'nightly = "yes"\n' + ONE_LANE)
    assert main(["catalog"]) == 2
    err = capsys.readouterr().err
    assert err == f"agentic: invalid_lanes_file: {path}: nightly: unknown key\n"


def test_a_lane_naming_an_unknown_adapter_names_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = _checkout(monkeypatch, tmp_path, ONE_LANE.replace('"lexical"', '"my-search"'))
    with pytest.raises(ContractError) as caught:
        load_catalog(plugins=False)
    assert caught.value.code == "invalid_lanes_file"
    assert caught.value.message.startswith(f"{path}: lane optional/mine: unknown adapter")


def test_a_lane_may_not_take_the_packages_lane_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = _checkout(monkeypatch, tmp_path, ONE_LANE.replace("optional/mine", "fixture-agent"))
    with pytest.raises(ContractError, match=f"{path}: lane fixture-agent is already defined"):
        load_catalog(plugins=False)


def test_an_unknown_key_of_a_lane_names_the_lane() -> None:
    assert (
        _refusal(ONE_LANE + "gate = true\n") == "lanes.toml: lane optional/mine: gate: unknown key"
    )


def test_a_missing_key_is_refused() -> None:
    message = _refusal(ONE_LANE.replace('agent = "fixture"\n', ""))
    assert message == "lanes.toml: lane optional/mine: agent: Field required"


def test_replay_must_be_a_boolean() -> None:
    assert "replay" in _refusal(ONE_LANE + 'replay = "yes"\n')


def test_the_gate_must_be_two_of_the_lanes_adapters() -> None:
    message = _refusal(ONE_LANE + 'promote = ["capsule", "mcp-reference"]\n')
    assert message.endswith("promote names mcp-reference, which is not among the lane's adapters")


def test_an_endpoint_lane_needs_its_cache_with_its_config() -> None:
    message = _refusal(ONE_LANE + 'agent_config = "agents/mine.toml"\n')
    assert message.endswith("agent_config and llm_cache come together")


@pytest.mark.parametrize("path", ["/etc/agent.toml", "../agent.toml", "agents/../../x.toml"])
def test_a_path_stays_inside_the_checkout(path: str) -> None:
    lane = ONE_LANE + f'agent_config = "{path}"\nllm_cache = "cache"\n'
    assert "is not a relative path inside the checkout" in _refusal(lane)


def test_a_lane_name_is_one_folder_or_one_group_folder() -> None:
    assert "name" in _refusal(ONE_LANE.replace("optional/mine", "../mine"))


def test_a_lane_is_defined_once() -> None:
    assert _refusal(ONE_LANE + ONE_LANE).endswith("lanes repeats optional/mine")


def test_a_lifecycle_is_cold_or_warm() -> None:
    assert "lifecycles" in _refusal(ONE_LANE + 'lifecycles = ["hot"]\n')


def test_a_file_that_is_not_toml_is_refused() -> None:
    assert _refusal("[[lanes]\n").startswith("lanes.toml: ")
