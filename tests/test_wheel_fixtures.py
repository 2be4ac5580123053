"""The wheel carries the bundled fixture only. The sqlite-docs fixture (40 MB of SQLite's
documentation) stays in the checkout, built from its pinned Debian package, and so does its lane
(``lanes.toml``): an installed kit asked for that lane names the lanes it has, in one line (exit
2), and lists only the lanes that need nothing of a checkout.

The kit is built here into a real wheel and installed into a fresh virtualenv, then run from
outside any checkout."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.support import wheel
from tests.support.backends import REPO

pytestmark = [pytest.mark.real_process, pytest.mark.slow]

DATA = "agentic/_data/fixtures/"
BUNDLED = "agentic-retrieval"
# The lanes that need nothing of a checkout (agentic/catalog/builtins.py, PACKAGED_LANES).
PACKAGED_LANES = ("fixture-agent", "optional/local-model", "optional/qmd", "optional/qmd-lex")
UNKNOWN_LANE = (
    f"agentic: invalid_cli_option: unknown lane 'sqlite-docs'; known: {', '.join(PACKAGED_LANES)}"
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return wheel.build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def agentic(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return wheel.install_wheel(built, tmp_path_factory.mktemp("kit") / "venv")


def _fixture_files(built: Path) -> set[str]:
    with zipfile.ZipFile(built) as archive:
        return {name for name in archive.namelist() if name.startswith(DATA)}


def test_the_wheel_holds_the_bundled_fixture_whole_and_no_other(built: Path) -> None:
    folder = REPO / "fixtures" / BUNDLED
    expected = {
        DATA + path.relative_to(folder.parent).as_posix()
        for path in folder.rglob("*")
        if path.is_file()
    }
    held = _fixture_files(built)
    assert held == expected
    # What the kit reads of it at run time: manifest, cue table, goldens, README.
    for name in ("manifest.json", "fixture-agent.cues.json", "README.md"):
        assert f"{DATA}{BUNDLED}/{name}" in held
    assert any(name.startswith(f"{DATA}{BUNDLED}/goldens/") for name in held)
    assert not any(name.startswith(f"{DATA}sqlite-docs") for name in held)


def _agentic(agentic: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(agentic), *args], cwd=cwd, check=False, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    "args",
    [
        ("run", "--lane", "sqlite-docs", "--out", "out", "--quiet"),
        ("verify", "sqlite-docs", "--quiet"),
        ("verify", "sqlite-docs", "--baselines", str(REPO / "baselines"), "--quiet"),
    ],
    ids=["run", "verify", "verify-baselines"],
)
def test_the_installed_kit_asked_for_the_sqlite_docs_lane_names_the_lanes_it_has(
    agentic: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    done = _agentic(agentic, tmp_path, *args)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [UNKNOWN_LANE]
    assert not (tmp_path / "out").exists()


def test_the_installed_kit_lists_only_the_lanes_it_ships(agentic: Path, tmp_path: Path) -> None:
    done = _agentic(agentic, tmp_path, "catalog", "--names", "lanes")
    assert done.returncode == 0, done.stderr
    assert tuple(done.stdout.splitlines()) == PACKAGED_LANES


def test_the_installed_kit_lists_no_example_server(agentic: Path, tmp_path: Path) -> None:
    done = _agentic(agentic, tmp_path, "catalog", "--names", "adapters")
    assert done.returncode == 0, done.stderr
    assert "docs-mcp" not in done.stdout.splitlines()


def test_the_installed_kit_reads_its_bundled_fixture(agentic: Path, tmp_path: Path) -> None:
    done = _agentic(agentic, tmp_path, "fixture", "status")
    assert done.returncode == 0, done.stderr
