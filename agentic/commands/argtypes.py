"""What the subcommands share: argparse value types, the baselines root, progress and ``--quiet``.
Each value type raises ArgumentTypeError, which argparse turns into a usage error: exit 2, one
line. ``--quiet`` decides what the progress line keeps quiet."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.adapters.deadlines import PREPARE_TIMEOUT_OPTION, PREPARE_TIMEOUT_S
from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import ContractError
from agentic.resources import repo_root
from agentic.runner.progress import Progress, progress_for

if TYPE_CHECKING:
    from agentic.lane.request import Execution

    # What ``register(subparsers)`` of each command module receives (generic only in typeshed).
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


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


# The most pairs a run holds at once. Each is a thread (with its own step worker) or a worker
# process with its own agent, so a few hundred already outnumber any machine's cores and an
# endpoint's rate limit; a mistyped count is refused at once instead of starting that many.
MAX_JOBS = 256


def jobs_count(value: str) -> int:
    number = positive_int(value)
    if number > MAX_JOBS:
        raise argparse.ArgumentTypeError(
            f"{value!r} is above the bound of {MAX_JOBS} pairs at once"
        )
    return number


def non_negative_int(value: str) -> int:
    if value.isdigit():
        return int(value, 10)
    raise argparse.ArgumentTypeError(f"{value!r} is not a non-negative integer")


def add_prepare_timeout_option(parser: argparse.ArgumentParser) -> None:
    """``--prepare-timeout-ms``: each adapter's preparation deadline (its index build, and an MCP
    product's start after it), apart from any per-operation ``--timeout-ms``."""
    parser.add_argument(
        PREPARE_TIMEOUT_OPTION,
        type=positive_int,
        default=round(PREPARE_TIMEOUT_S * 1000),
        help="each adapter's preparation deadline in milliseconds",
    )


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


def add_force_option(parser: argparse.ArgumentParser, *, other: str, where: str) -> None:
    """``--force``: replace a previous report of ``other`` at ``where``, and nothing else."""
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"replace a previous report of {other} at {where} "
        "(never a folder holding anything else)",
    )


def add_quiet_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--quiet``: nothing printed but an error's one line on stderr: no result on stdout
    (``print_result``), no progress or ``agentic: wrote ...`` notes on stderr
    (``progress_printer``). The exit code is the verdict; the files written are the same."""
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="print nothing but errors: no report on stdout, no progress on stderr "
        "(the exit code is the verdict; files written are the same)",
    )


def print_result(text: str, *, quiet: bool) -> None:
    """What a command prints as its result (a report, a table, verdicts): on stdout at once (a
    verdict appears as its lane ends), unless ``--quiet``."""
    if not quiet:
        sys.stdout.write(text)
        sys.stdout.flush()


def add_executor_options(parser: argparse.ArgumentParser) -> None:
    """``--executor``, ``--ray-address`` and ``--retries``: where the pairs of a run execute,
    and how often a pair whose worker or setup failed is attempted again."""
    parser.add_argument(
        "--executor",
        choices=("local", "processes", "ray"),
        default="local",
        help="where pairs run: this process (default; --jobs cold pairs at once in threads, or "
        "in worker processes for an agent that runs one pair at a time), --jobs worker "
        "processes, or Ray tasks on a Ray cluster (the 'distributed' extra); the report is the "
        "same bytes on each",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="the Ray cluster (with --executor ray; default: RAY_ADDRESS, else a cluster "
        "started on this machine with 'ray start')",
    )
    parser.add_argument(
        "--retries",
        type=non_negative_int,
        default=0,
        metavar="K",
        help="re-attempt a pair up to K times after a harness failure (a lost Ray worker or "
        "node, a pair whose setup failed); never after an agent or product failure; each "
        "retry is recorded in the receipt's observations",
    )


def execution(args: argparse.Namespace) -> Execution:
    """The run's ``Execution`` from ``--jobs`` and the executor options."""
    from agentic.lane.request import Execution

    return Execution(
        jobs=args.jobs, executor=args.executor, ray_address=args.ray_address, retries=args.retries
    )


def add_jobs_option(parser: argparse.ArgumentParser) -> None:
    """``--jobs N``: cold pairs at once, at most ``MAX_JOBS``; receipts and reports never
    depend on N."""
    parser.add_argument(
        "--jobs",
        type=jobs_count,
        default=1,
        help="pairs run at once: cold pairs in threads (fixture and endpoint agents), else N "
        f"worker processes, each with its own agent (the local model); at most {MAX_JOBS}; the "
        "report is the same for every N",
    )


def baselines_root(given: Path | None, *, code: ErrorCodeName, needs: str) -> Path:
    """``--baselines DIR``, else the checkout's ``baselines/``. Without a checkout, ``needs``
    (what asked for it) is refused as ``code``, in one line."""
    if given is not None:
        return given
    root = repo_root()
    if root is None:
        raise ContractError(code, f"{needs} needs a source checkout or --baselines DIR")
    return root / "baselines"


def progress_printer(quiet: bool) -> Progress:
    """Progress on stderr: ``agentic: ...`` notes, and for a lane a live pair counter with ETA
    (stderr a terminal) or one line per finished cohort (not); nothing when ``quiet``. Commands
    that only report steps (ranking, generation) use its ``note``."""
    return progress_for(quiet)


def add_key_file_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--key-file F``: the key that seals journals and shards (``lane/journal.py``), for a
    run resumed or merged on another machine."""
    parser.add_argument(
        "--key-file",
        type=Path,
        help=f"{what}, shared by every machine of the run (default: AGENTIC_KEY_FILE, else "
        "this user's key of the run under the state dir)",
    )
