"""``agentic fixture init|add-task|check|status|pin``: build, verify, describe and re-pin a
fixture (docs/fixtures.md).

DIR defaults to the bundled fixture. Any violation raises ContractError, which the CLI prints as
one line naming the file and field, with exit code 2. ``check`` also runs the oracle ceiling and
exits 1 when a task would fail under it, with one explanation per line.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.fixture.loader import load_fixture
from agentic.fixture.pin import HeaderOverrides, pin_fixture
from agentic.fixture.status import fixture_status, render_status
from agentic.resources import default_fixture_dir

if TYPE_CHECKING:
    from agentic.commands.argtypes import Subparsers


def _fixture_dir(args: argparse.Namespace) -> Path:
    given: str | None = args.dir
    return Path(given) if given is not None else default_fixture_dir()


def _check(args: argparse.Namespace) -> int:
    from agentic.commands.ceiling import diagnose_fixture

    fixture = load_fixture(_fixture_dir(args))
    print(fixture.corpus_fingerprint)
    if args.no_ceiling:
        return 0
    diagnoses = diagnose_fixture(fixture, args.cues)
    for diagnosis in diagnoses:
        for reason in diagnosis.reasons:
            print(f"{diagnosis.task_id}: {reason}")
    total = len(fixture.tasks)
    print(f"oracle ceiling: {total - len(diagnoses)}/{total} tasks solvable")
    return 1 if diagnoses else 0


def _init(args: argparse.Namespace) -> int:
    from agentic.fixture.scaffold import init_fixture

    result = init_fixture(
        Path(args.dir),
        Path(args.corpus),
        license=args.license,
        provenance=args.provenance,
        fixture_version=args.fixture_version,
    )
    for area, count in sorted(result.areas.items()):
        print(f"area {area}: {count} documents")
    if result.skipped:
        print(f"skipped {result.skipped} files that are not .md, .markdown, .txt or .rst")
    print(f"next: write a task spec and run `agentic fixture add-task {args.dir} SPEC.toml`")
    return 0


def _add_task(args: argparse.Namespace) -> int:
    from agentic.fixture.add_task import add_task

    added = add_task(Path(args.dir), Path(args.spec), replace=args.replace)
    collections = ", ".join(f"{area} -> {c}" for area, c in added.collections.items())
    print(f"task {added.task_id} ({collections})")
    print(added.pin.fixture.corpus_fingerprint)
    return 0


def _status(args: argparse.Namespace) -> int:
    status = fixture_status(load_fixture(_fixture_dir(args)))
    if args.format == "json":
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


def _add_header_options(parser: argparse.ArgumentParser, *, new: bool) -> None:
    """The manifest's hand-written header: required to start a fixture (its version defaults
    to 1); when pinning, each given value replaces the manifest's."""
    what = "the manifest's" if new else "replace (or set) the manifest's"
    parser.add_argument("--license", required=new, help=f"{what} license (of the documents)")
    parser.add_argument("--provenance", required=new, help=f"{what} provenance (their source)")
    parser.add_argument(
        "--fixture-version",
        default="1" if new else None,
        help=f"{what} fixtureVersion" + (" (default: 1)" if new else ""),
    )


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("fixture", help="verify, describe or re-pin a fixture")
    actions = parser.add_subparsers(dest="fixture_command", required=True)

    check = actions.add_parser(
        "check",
        help="verify everything, print the corpus fingerprint, and explain each task that would "
        "fail under the oracle ceiling (exit 1 if any)",
    )
    _add_dir(check)
    check.add_argument("--cues", type=Path, help="the fixture agent's cue table")
    check.add_argument(
        "--no-ceiling", action="store_true", help="verify only; do not run the oracle ceiling"
    )
    check.set_defaults(func=_check)

    init = actions.add_parser(
        "init", help="start a fixture from a folder of documents (one area per sub-folder)"
    )
    init.add_argument("dir", metavar="DIR", help="the new fixture's folder (missing or empty)")
    init.add_argument("--corpus", required=True, metavar="SRC", help="folder of .md/.txt documents")
    _add_header_options(init, new=True)
    init.set_defaults(func=_init)

    add = actions.add_parser(
        "add-task", help="turn a task spec (TOML) into task, oracle, corpus and cues; re-pin"
    )
    add.add_argument("dir", metavar="DIR", help="a fixture made by `agentic fixture init`")
    add.add_argument("spec", metavar="SPEC", help="the task spec file (docs/fixtures.md)")
    add.add_argument(
        "--replace", metavar="TASKID", help="rewrite this task from its (edited) spec, same id"
    )
    add.set_defaults(func=_add_task)

    status = actions.add_parser("status", help="counts per category, claim type, evidence, ...")
    _add_dir(status)
    status.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default) or json"
    )
    status.set_defaults(func=_status)

    pin = actions.add_parser(
        "pin", help="verify the files on disk, then rewrite manifest.json (hashes, fingerprint)"
    )
    _add_dir(pin)
    _add_header_options(pin, new=False)
    pin.set_defaults(func=_pin)
