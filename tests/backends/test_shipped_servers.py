"""The real servers the checkout ships as configs: each one complete (config, install manifest,
pinned requirements, README, committed baseline), registered as an adapter with a lane, and
named unavailable, with the command that installs it, until it is installed."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from agentic.adapters.mcp.backend_config import load_backend_config
from agentic.catalog.load import load_catalog
from agentic.catalog.shipped_servers import shipped_configs, shipped_entries
from tests.support.backends import REPO, write_config

SHIPPED = sorted((REPO / "examples" / "servers").glob("*/backend.toml"))
PINNED = re.compile(r"^[A-Za-z0-9_.\-\[\]]+==[^=\s]+$")


def test_the_checkout_ships_servers() -> None:
    assert shipped_configs() == tuple(SHIPPED)
    assert len(SHIPPED) >= 1


@pytest.mark.parametrize("config", SHIPPED, ids=lambda p: p.parent.name)
def test_a_shipped_config_is_named_for_its_folder(config: Path) -> None:
    assert load_backend_config(config).id == config.parent.name


@pytest.mark.parametrize("config", SHIPPED, ids=lambda p: p.parent.name)
def test_a_shipped_server_has_a_readme_and_a_committed_baseline(config: Path) -> None:
    assert (config.parent / "README.md").is_file()
    baseline = REPO / "baselines" / "backends" / config.parent.name
    assert (baseline / "canonical.json").is_file()
    assert (baseline / "report.json").is_file()


@pytest.mark.parametrize(
    "manifest",
    sorted((REPO / "examples" / "servers").glob("*/server.toml")),
    ids=lambda p: p.parent.name,
)
def test_every_package_of_a_shipped_server_is_pinned(manifest: Path) -> None:
    assert re.fullmatch(r"3\.\d+", tomllib.loads(manifest.read_text())["python"])
    lines = (manifest.parent / "requirements.txt").read_text(encoding="utf-8").splitlines()
    packages = [line for line in lines if line.strip() and not line.startswith("#")]
    assert packages
    assert [line for line in packages if not PINNED.match(line)] == []


def test_each_shipped_server_has_a_lane_beside_lexical() -> None:
    lanes = load_catalog(plugins=False).lanes
    for config in SHIPPED:
        lane = lanes[f"backends/{config.parent.name}"]
        assert lane.adapters == (config.parent.name, "lexical")


def test_a_shipped_server_not_installed_says_how_to_install_it(tmp_path: Path) -> None:
    folder = tmp_path / "servers" / "grep-server"
    config = write_config(folder, {
        "id": "grep-server", "transport": "stdio",
        "command": ["{config_dir}/.venv/bin/grep-server"],
        "tools": {"search": {"name": "grep", "arguments": {"query": "q"}}},
        "results": {"shape": "hits"},
    })  # fmt: skip
    (folder / "server.toml").write_text('python = "3.12"\n', encoding="utf-8")
    adapter, _ = shipped_entries(config)
    reason = adapter.unavailable()
    assert reason is not None
    assert reason.endswith("is not installed: run `nox -s servers -- grep-server`")


def test_a_server_installed_otherwise_points_at_its_readme(tmp_path: Path) -> None:
    folder = tmp_path / "servers" / "npm-server"
    config = write_config(folder, {
        "id": "npm-server", "transport": "stdio",
        "command": ["sh", "-c", "exec node x.js", "{config_dir}/../install"],
        "tools": {"search": {"name": "grep", "arguments": {"query": "q"}}},
        "results": {"shape": "hits"},
    })  # fmt: skip
    adapter, _ = shipped_entries(config)
    assert adapter.unavailable() == f"{folder}/../install is not installed: see {folder}/README.md"


def test_a_shipped_config_given_again_is_registered_once() -> None:
    catalog = load_catalog(tuple(SHIPPED), plugins=False)
    assert {config.parent.name for config in SHIPPED} <= set(catalog.adapters)
