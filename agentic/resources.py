"""Where the kit's data lives: schemas, the bundled fixture, locks, baselines.

In a source checkout these are the repository's own folders (so ``fixture pin`` edits the real
fixture); in an installed wheel they are the copies under ``agentic/_data``.
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


def default_fixture_dir() -> Path:
    return fixtures_dir() / "agentic-retrieval"  # the lanes' default (runner/catalog.py)


def locks_dir() -> Path:
    return _data_dir("locks")


def repo_root() -> Path | None:
    """The source checkout, when running from one (baselines are written there)."""
    return _CHECKOUT if (_CHECKOUT / "pyproject.toml").is_file() else None
