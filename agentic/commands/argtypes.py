"""argparse value types shared by the subcommands; each raises ArgumentTypeError, which argparse
turns into a usage error (exit 2, one line)."""

from __future__ import annotations

import argparse
from pathlib import Path


def csv_items(value: str) -> tuple[str, ...]:
    """``a,b,c`` -> ``("a", "b", "c")``; an empty item is an error. Duplicates are kept so that
    the schedule can reject them with its own precise code."""
    items = tuple(item.strip() for item in value.split(","))
    if any(not item for item in items):
        raise argparse.ArgumentTypeError(f"empty item in {value!r}")
    return items


def unique_csv_items(value: str) -> tuple[str, ...]:
    items = csv_items(value)
    if len(set(items)) != len(items):
        raise argparse.ArgumentTypeError(f"duplicate item in {value!r}")
    return items


def positive_int(value: str) -> int:
    try:
        number = int(value, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an integer") from None
    if number <= 0:
        raise argparse.ArgumentTypeError(f"{value!r} must be positive")
    return number


def add_backend_option(parser: argparse.ArgumentParser) -> None:
    """``--backend FILE`` (repeatable): register a backend config file as an adapter."""
    parser.add_argument(
        "--backend",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="register a backend config (TOML) as an adapter; repeatable",
    )
