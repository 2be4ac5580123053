"""The catalog: one table of adapters, agents and named lanes, from built-ins, installed plugins
(entry points) and backend config files alike; every name list elsewhere derives from it."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic.adapters.mcp.profiles import PROFILES
from agentic.catalog.entries import AdapterEntry, AdapterInputs
from agentic.catalog.load import builtin_catalog, load_catalog
from agentic.cli import main
from agentic.contract.errors import ContractError
from agentic.fixture.loader import Fixture
from agentic.resources import default_fixture_dir, fixtures_dir
from tests.support.tiny_fixture import TASK_A, write_tiny_fixture

PLUGIN_MODULE = '''
from dataclasses import replace

from agentic.adapters.lexical import LexicalAdapter
from agentic.plugins import AdapterEntry, AgentEntry
from agentic.catalog.load import builtin_catalog


class Renamed:
    """The lexical adapter under another id, as a third-party package would ship one."""

    adapter_id = "plugin-lexical"

    def __init__(self, snapshot):
        self._inner = LexicalAdapter(snapshot)
        self.capabilities = self._inner.capabilities
        self.config = self._inner.config

    def prepare(self, snapshot, root, *, timeout_s):
        prepared = self._inner.prepare(snapshot, root, timeout_s=timeout_s)
        return replace(prepared, adapter_id=self.adapter_id)

    def attach(self, prepared, *, timeout_s):
        return self._inner.attach(replace(prepared, adapter_id="lexical"), timeout_s=timeout_s)


ADAPTER = AdapterEntry("plugin-lexical", lambda inputs: Renamed(inputs.snapshot))


def agent():
    return AgentEntry("plugin-fixture", builtin_catalog().agent("fixture").open)
'''


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An installed distribution declaring one adapter and one agent through entry points."""
    site = tmp_path / "site"
    info = site / "agentic_test_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: agentic-test-plugin\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[agentic.adapters]\nplugin-lexical = agentic_test_plugin:ADAPTER\n\n"
        "[agentic.agents]\nplugin-fixture = agentic_test_plugin:agent\n",
        encoding="utf-8",
    )
    (site / "agentic_test_plugin.py").write_text(textwrap.dedent(PLUGIN_MODULE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield site
    sys.modules.pop("agentic_test_plugin", None)


def test_the_builtins_are_the_kits_adapters_agents_and_lanes() -> None:
    catalog = builtin_catalog()
    assert catalog.adapter_ids == (
        "capsule", "gno-mcp", "lexical", "mcp-reference", "oracle", "qmd", "qmd-lex",
    )  # fmt: skip
    assert catalog.default_adapters == ("capsule", "lexical", "mcp-reference")
    assert sorted(catalog.agents) == ["fixture", "local-model", "openai-chat"]
    assert sorted(catalog.lanes) == [
        "fixture-agent", "optional/local-model", "optional/qmd", "optional/qmd-lex",
        "optional/qwen-bundled", "optional/qwen-sqlite", "sqlite-docs",
    ]  # fmt: skip


def test_a_lane_runs_on_its_own_fixture_folder() -> None:
    catalog = builtin_catalog()
    assert catalog.lane("fixture-agent").fixture_dir() == default_fixture_dir()
    sqlite = catalog.lane("sqlite-docs")
    assert sqlite.fixture_dir() == fixtures_dir() / "sqlite-docs"
    assert (sqlite.adapters, sqlite.promote) == (
        ("capsule", "lexical", "mcp-reference", "qmd-lex"),
        ("capsule", "mcp-reference"),
    )


def test_the_authoritative_lane_is_gated_and_replayed() -> None:
    lane = builtin_catalog().lane("fixture-agent")
    assert (lane.agent, lane.adapters) == ("fixture", ("capsule", "lexical", "mcp-reference"))
    assert (lane.promote, lane.replay, lane.folder) == (
        ("capsule", "mcp-reference"),
        True,
        "fixture-agent",
    )


def test_only_the_oracle_reads_oracles_and_only_the_capsule_replays() -> None:
    catalog = builtin_catalog()
    readers = [a for a in catalog.adapter_ids if catalog.adapter(a).reads_oracles]
    replayed = [a for a in catalog.adapter_ids if catalog.adapter(a).replayable_bundle]
    assert (readers, replayed) == (["oracle"], ["capsule"])


def test_exactly_the_shipped_mcp_profiles_spawn_processes() -> None:
    catalog = builtin_catalog()
    spawning = {a for a in catalog.adapter_ids if catalog.adapter(a).spawns_processes}
    assert spawning == set(PROFILES) == {"gno-mcp", "mcp-reference", "qmd", "qmd-lex"}


def test_a_shipped_profile_is_keyed_by_its_own_id() -> None:
    assert all(profile.adapter_id == key for key, profile in PROFILES.items())


def test_every_builtin_adapter_reports_the_id_it_is_registered_under(tiny_fixture: Fixture) -> None:
    catalog = builtin_catalog()
    reported = {
        adapter_id: catalog.build_adapter(
            adapter_id, tiny_fixture.snapshot, tiny_fixture.oracles
        ).adapter_id
        for adapter_id in catalog.adapter_ids
    }
    assert reported == {adapter_id: adapter_id for adapter_id in catalog.adapter_ids}


def test_an_adapter_that_reads_oracles_cannot_be_prepared_or_ranked() -> None:
    catalog = builtin_catalog()
    for check in (catalog.preparable, catalog.rankable):
        with pytest.raises(ContractError, match="reads hidden oracles"):
            check("oracle")
    assert catalog.preparable("lexical").rankable


def test_an_oracle_reader_runs_alone() -> None:
    with pytest.raises(ContractError, match="runs alone"):
        builtin_catalog().check_schedule(("lexical", "oracle"))
    builtin_catalog().check_schedule(("oracle",))


def test_a_product_is_built_without_the_oracles() -> None:
    seen: list[AdapterInputs] = []

    def build(inputs: AdapterInputs) -> object:
        seen.append(inputs)
        return object()

    catalog = builtin_catalog().add_adapter(AdapterEntry("spy", build))  # type: ignore[arg-type]
    sentinel = {"t0000001": object()}
    catalog.build_adapter("spy", snapshot=None, oracles=sentinel)  # type: ignore[arg-type]
    assert seen[0].oracles == {}


def test_a_replayable_bundle_must_be_the_capsule() -> None:
    entry = AdapterEntry("bundle", lambda inputs: None, replayable_bundle=True)  # type: ignore[arg-type,return-value]
    with pytest.raises(ContractError) as caught:
        builtin_catalog().add_adapter(entry)
    assert caught.value.code == "invalid_adapter_entry"


def test_an_unknown_lane_lists_the_known_ones() -> None:
    with pytest.raises(ContractError, match="known: fixture-agent, optional/local-model"):
        builtin_catalog().lane("nightly")


def test_an_unknown_agent_lists_the_known_ones() -> None:
    known = "known: fixture, local-model, openai-chat"
    with pytest.raises(ContractError, match=f"unknown agent 'gpt'; {known}"):
        builtin_catalog().agent("gpt")


def test_the_endpoint_agent_is_listed_with_what_it_requires(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["catalog"]) == 0
    listed = "  openai-chat (builtin: agentic) requires --agent-config FILE\n"
    assert listed in capsys.readouterr().out


def test_the_endpoint_agent_without_its_config_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--agent", "openai-chat", "--adapter", "lexical"]) == 2
    assert capsys.readouterr().err == (
        "agentic: invalid_cli_option: agent openai-chat talks to the endpoint its config "
        "names: pass --agent-config FILE instead of --agent openai-chat (docs/agents.md)\n"
    )


def test_a_config_named_openai_chat_takes_the_place_of_the_listed_entry(tmp_path: Path) -> None:
    from agentic.catalog.source import CatalogSource
    from tests.support.fake_openai import config_text

    path = tmp_path / "agent.toml"
    path.write_text(config_text("http://127.0.0.1:9/v1", id="openai-chat"), encoding="utf-8")
    catalog, kind = CatalogSource(agent_config=path).load()
    assert kind == "openai-chat"
    assert (catalog.agent(kind).origin, catalog.agent(kind).requires) == ("config", None)


def test_a_configured_agent_may_not_take_an_opening_agents_kind(tmp_path: Path) -> None:
    from agentic.catalog.source import CatalogSource
    from tests.support.fake_openai import config_text

    path = tmp_path / "agent.toml"
    path.write_text(config_text("http://127.0.0.1:9/v1", id="fixture"), encoding="utf-8")
    with pytest.raises(ContractError, match=r"agent 'fixture' from .* is already taken"):
        CatalogSource(agent_config=path).load()


def test_a_write_must_be_a_named_lane() -> None:
    with pytest.raises(ContractError) as caught:
        builtin_catalog().baseline_lane(
            agent="fixture",
            adapters=("lexical",),
            task_ids=("t1",),
            all_task_ids=("t1",),
            lifecycles=("cold", "warm"),
        )
    assert caught.value.code == "unsafe_baseline_write"


def test_a_plugin_adds_an_adapter_and_an_agent(plugin: Path) -> None:
    catalog = load_catalog()
    adapter, agent = catalog.adapter("plugin-lexical"), catalog.agent("plugin-fixture")
    assert (adapter.origin, adapter.source) == ("plugin", "agentic_test_plugin:ADAPTER")
    assert (agent.origin, agent.source) == ("plugin", "agentic_test_plugin:agent")


def test_a_plugin_adapter_and_agent_run_a_lane(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = write_tiny_fixture(tmp_path / "fixture")
    out = tmp_path / "out"
    code = main(
        ["run", "--fixture", str(fixture), "--adapter", "plugin-lexical", "--agent",
         "plugin-fixture", "--task", TASK_A, "--promote", "none", "--out", str(out), "--quiet"]
    )  # fmt: skip
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert code == 0, capsys.readouterr().err
    assert {r["canonical"]["adapterId"] for r in report["receipts"]} == {"plugin-lexical"}
    assert report["scoredPairs"] == report["attemptedPairs"] == 2


def test_a_plugin_may_not_take_a_builtin_id(tmp_path: Path, plugin: Path) -> None:
    module = plugin / "agentic_test_plugin.py"
    module.write_text(
        module.read_text(encoding="utf-8").replace('Entry("plugin-lexical"', 'Entry("lexical"'),
        encoding="utf-8",
    )
    with pytest.raises(ContractError) as caught:
        load_catalog()
    assert caught.value.code == "duplicate_adapter_id"


def test_a_broken_plugin_is_one_clear_error(plugin: Path) -> None:
    (plugin / "agentic_test_plugin.py").write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    with pytest.raises(ContractError) as caught:
        load_catalog()
    assert caught.value.code == "invalid_plugin"
    assert "plugin-lexical" in caught.value.message and "boom" in caught.value.message


def test_plugins_can_be_left_out(plugin: Path) -> None:
    assert "plugin-lexical" not in load_catalog(plugins=False).adapters


@pytest.mark.parametrize("option", [["--adapter", "lexical"], ["--agent", "fixture"],
                                    ["--promote", "none"], ["--no-replay"]])  # fmt: skip
def test_a_named_lane_excludes_the_options_it_sets(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--lane", "fixture-agent", *option]) == 2
    assert "--lane excludes" in capsys.readouterr().err


def test_an_unknown_lane_on_the_command_line_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--lane", "nightly"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fixture-agent, optional/local-model" in err


def test_an_unknown_task_on_the_command_line_lists_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = write_tiny_fixture(tmp_path / "fixture")
    assert main(["run", "--fixture", str(fixture), "--adapter", "lexical", "--task", "t9"]) == 2
    assert "unknown task 't9'; known: t0000a01, t0000b02, t0000c03" in capsys.readouterr().err


def test_an_unknown_adapter_on_the_command_line_lists_known_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--adapter", "my-search"]) == 2
    assert "unknown adapter 'my-search'; known: basic-memory, capsule" in capsys.readouterr().err


def test_an_endpoint_lane_replays_its_committed_cache_unless_a_run_records() -> None:
    from agentic.catalog.source import CatalogSource

    lane = builtin_catalog().lane("optional/qwen-sqlite")
    source = CatalogSource.for_lane(lane)
    assert source.agent_config is not None and source.agent_config.name == "qwen-sqlite.toml"
    assert source.llm_cache is not None and source.llm_cache.name == "qwen-sqlite"
    assert source.llm_cache_mode == "reuse"
    assert CatalogSource.for_lane(lane, "record").llm_cache_mode == "record"
    assert lane.lifecycles == ("cold",)


def test_an_endpoint_lane_refuses_another_agent_config(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "agent.toml"
    config.write_text("", encoding="utf-8")
    assert main(["run", "--lane", "optional/qwen-sqlite", "--agent-config", str(config)]) == 2
    assert "lane optional/qwen-sqlite names its agent; drop --agent-config" in (
        capsys.readouterr().err
    )


def test_a_baseline_of_an_endpoint_lane_needs_its_own_lifecycles() -> None:
    lane = builtin_catalog().lane("optional/qwen-sqlite")
    catalog = builtin_catalog()
    with pytest.raises(ContractError) as caught:
        catalog.baseline_lane(
            agent=lane.agent, adapters=lane.adapters, task_ids=["t"], all_task_ids=["t"],
            lifecycles=["cold", "warm"],
        )  # fmt: skip
    assert "--write of lane optional/qwen-sqlite needs cold" in str(caught.value)
