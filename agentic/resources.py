"""Where the kit's data lives: schemas, the bundled fixture, locks, baselines.

In a source checkout these are the repository's own folders (so ``fixture pin`` edits the real
fixture); in an installed wheel they are the copies under ``agentic/_data``, where the bundled
fixture is the only fixture (``missing_fixture`` says how to get another).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_CHECKOUT = _PACKAGE.parent


def _data_dir(name: str) -> Path:
    in_checkout = _CHECKOUT / name
    if (_CHECKOUT / "pyproject.toml").is_file() and in_checkout.is_dir():
        return in_checkout
    return _PACKAGE / "_data" / name


def schemas_dir() -> Path:
    return _data_dir("schemas")


def fixtures_dir() -> Path:
    return _data_dir("fixtures")


def bundled_fixture_dirs() -> tuple[Path, ...]:
    """Every folder of fixtures that ships with the kit: the checkout's ``fixtures/`` and the
    installed copy under ``agentic/_data`` (both when a wheel sits beside a checkout)."""
    checkout = repo_root()
    candidates = [_PACKAGE / "_data" / "fixtures"]
    if checkout is not None:
        candidates.insert(0, checkout / "fixtures")
    return tuple(path for path in candidates if path.is_dir())


BUNDLED_FIXTURE = "agentic-retrieval"  # the one fixture the wheel carries (pyproject.toml)


def default_fixture_dir() -> Path:
    return fixtures_dir() / BUNDLED_FIXTURE  # the lanes' default (catalog/entries.py)


def missing_fixture(name: str) -> str | None:
    """Why the kit's fixture ``name`` cannot be used here, in one line (None: it can). Only the
    bundled fixture ships in the wheel; the others are built in a checkout (sqlite-docs from its
    pinned Debian package, ``fixtures/sqlite-docs/README.md``)."""
    folder = fixtures_dir() / name
    if folder.is_dir():
        return None
    if repo_root() is not None:
        return f"fixture {name} is missing from this checkout ({folder}); restore it with git"
    return (
        f"fixture {name} is not installed (the wheel carries {BUNDLED_FIXTURE} only): run from a "
        f"source checkout, which holds fixtures/{name} (built by its build.sh; README there), "
        f"or pass --fixture DIR with a copy of that folder"
    )


def locks_dir() -> Path:
    return _data_dir("locks")


def repo_root() -> Path | None:
    """The source checkout, when running from one (baselines are written there)."""
    return _CHECKOUT if (_CHECKOUT / "pyproject.toml").is_file() else None
