"""The public plugin API (``agentic.plugins``) and the example plugin of docs/plugins.md, built
and installed for real: what a third-party adapter package imports, and that the kit finds it,
lists it and runs it like a built-in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import agentic.plugins
from agentic.contract.schemas import parse_and_load
from tests.support.backends import REPO
from tests.support.tiny_fixture import TASK_IDS

EXAMPLE = REPO / "examples" / "plugins" / "title-search"
EXAMPLE_ID = "title-search"
EXAMPLE_FILES = ("pyproject.toml", "title_search/__init__.py")
GUIDE = REPO / "docs" / "plugins.md"
# Optional dependencies and the kit's implementations: a plugin's entry module must not pull them.
HEAVY_PACKAGES = ("mcp", "mcp_types", "llama_cpp", "httpx", "httpx2", "jinja2", "matplotlib", "ray")
HEAVY_KIT = (
    "agentic.adapters.capsule",
    "agentic.adapters.lexical",
    "agentic.adapters.mcp",
    "agentic.adapters.oracle",
    "agentic.adapters.qmd",
    "agentic.agents.fixture_agent",
    "agentic.agents.local_model",
    "agentic.agents.openai_chat",
    "agentic.agents.chat_config",
    "agentic.commands",
    "agentic.lane",
    "agentic.report",
    "agentic.catalog.agent_openers",
    "agentic.catalog.builtins",
    "agentic.catalog.load",
    "agentic.catalog.source",
    "agentic.catalog.table",
)


def modules_after(code: str) -> list[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    probe = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.splitlines()


def is_under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == prefix or module.startswith(f"{prefix}.") for prefix in prefixes)


def test_every_name_the_plugin_api_exports_exists() -> None:
    missing = [name for name in agentic.plugins.__all__ if not hasattr(agentic.plugins, name)]
    assert missing == []


def test_the_plugin_api_exports_each_name_once() -> None:
    assert len(set(agentic.plugins.__all__)) == len(agentic.plugins.__all__)


def test_the_plugin_api_imports_no_optional_dependency_and_no_adapter_or_agent() -> None:
    modules = modules_after("import agentic.plugins")
    heavy = [m for m in modules if m.split(".")[0] in HEAVY_PACKAGES or is_under(m, HEAVY_KIT)]
    assert heavy == []


def test_the_version_flag_does_not_import_the_plugin_api() -> None:
    code = "import contextlib\nfrom agentic.cli import main\n"
    code += "with contextlib.suppress(SystemExit):\n    main(['--version'])"
    assert "agentic.plugins" not in modules_after(code)


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_the_guide_shows_each_file_of_the_example_plugin_as_it_is(name: str) -> None:
    text = (EXAMPLE / name).read_text(encoding="utf-8")
    assert f"\n{text.rstrip()}\n```" in GUIDE.read_text(encoding="utf-8")


# -- the example plugin, installed --------------------------------------------------------------


@pytest.fixture(scope="module")
def installed_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example plugin built by its own build backend and installed into a bare folder (no
    network: no dependencies, no build isolation, no index)."""
    site = tmp_path_factory.mktemp("plugin-site")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    offline = ["--no-deps", "--no-build-isolation", "--no-index", "--no-cache-dir"]
    subprocess.run(
        [*pip, *offline, "--target", str(site), str(EXAMPLE)],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return site


def seeing(site: Path) -> dict[str, str]:
    """This environment, with the packages installed under ``site`` importable first."""
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


def agentic_with(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``agentic ARGS`` in a child process that sees the packages installed under ``site``."""
    return subprocess.run(
        [sys.executable, "-m", "agentic", *args],
        capture_output=True, text=True, timeout=300, check=False, env=seeing(site),
    )  # fmt: skip


@pytest.mark.real_process
def test_the_catalog_lists_an_installed_plugin_adapter(installed_example: Path) -> None:
    done = agentic_with(installed_example, "catalog")
    assert done.returncode == 0, done.stderr
    assert f"  {EXAMPLE_ID} (plugin: title_search:ADAPTER) ready" in done.stdout.splitlines()


@pytest.mark.real_process
def test_an_installed_plugin_adapter_runs_and_writes_a_valid_report(
    installed_example: Path, tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = agentic_with(
        installed_example,
        "run", "--fixture", str(tiny_fixture_dir), "--adapter", EXAMPLE_ID,
        "--promote", "none", "--out", str(out), "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = (out / "report.json").read_bytes()
    report = parse_and_load("benchmark-report", data, source="report.json")
    assert {r.canonical.adapterId for r in report.receipts} == {EXAMPLE_ID}
    assert report.attemptedPairs == report.scoredPairs == 2 * len(TASK_IDS)


@pytest.mark.real_process
def test_an_installed_plugin_adapter_passes_the_adapter_contract_suite(
    installed_example: Path,
) -> None:
    # The suite lists every catalog adapter, installed plugins included (tests/support/adapters).
    suite = ["tests/adapters/test_contract.py", "-k", EXAMPLE_ID, "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *suite],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
        env=seeing(installed_example),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]  # 5 would mean no test selected it
