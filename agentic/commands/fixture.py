"""``agentic fixture check|status|pin [DIR]``: verify, describe and re-pin a fixture.

DIR defaults to the bundled fixture. Any violation raises ContractError, which the CLI prints as
one line naming the file and field, with exit code 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agentic.fixture.loader import load_fixture
from agentic.fixture.pin import HeaderOverrides, pin_fixture
from agentic.fixture.status import fixture_status, render_status
from agentic.resources import default_fixture_dir


def _fixture_dir(args: argparse.Namespace) -> Path:
    given: str | None = args.dir
    return Path(given) if given is not None else default_fixture_dir()


def _check(args: argparse.Namespace) -> int:
    fixture = load_fixture(_fixture_dir(args))
    print(fixture.corpus_fingerprint)
    return 0


def _status(args: argparse.Namespace) -> int:
    status = fixture_status(load_fixture(_fixture_dir(args)))
    if args.json:
        print(json.dumps(status, indent=2, ensure_ascii=False))
    else:
        print(render_status(status), end="")
    return 0


def _pin(args: argparse.Namespace) -> int:
    overrides = HeaderOverrides(
        fixture_version=args.fixture_version, license=args.license, provenance=args.provenance
    )
    result = pin_fixture(_fixture_dir(args), overrides)
    print(result.fixture.corpus_fingerprint)
    return 0


def _add_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir", nargs="?", metavar="DIR", help="fixture root (default: the bundled fixture)"
    )


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("fixture", help="verify, describe or re-pin a fixture")
    actions = parser.add_subparsers(dest="fixture_command", required=True)

    check = actions.add_parser("check", help="verify everything; print the corpus fingerprint")
    _add_dir(check)
    check.set_defaults(func=_check)

    status = actions.add_parser("status", help="counts per category, claim type, evidence, ...")
    _add_dir(status)
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    status.set_defaults(func=_status)

    pin = actions.add_parser(
        "pin", help="verify the files on disk, then rewrite manifest.json (hashes, fingerprint)"
    )
    _add_dir(pin)
    pin.add_argument("--fixture-version", help="replace (or set) the manifest fixtureVersion")
    pin.add_argument("--license", help="replace (or set) the manifest license")
    pin.add_argument("--provenance", help="replace (or set) the manifest provenance")
    pin.set_defaults(func=_pin)
