"""How long an adapter's preparation may take is a setting of its own, ``--prepare-timeout-ms``
(600 s by default), on every command that prepares adapters: apart from the per-operation
``--timeout-ms``, named by the message of every preparation that passes it, and in no report,
fingerprint or run identity (it changes no result, only whether a slow index gets built)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agentic.adapters.deadlines import PREPARE_TIMEOUT_S
from agentic.adapters.qmd.proc import run_bounded
from agentic.catalog.load import builtin_catalog
from agentic.cli import UsageError, build_parser
from agentic.commands.verify import Plan, lane_request
from agentic.contract.canonical import ZERO_HASH
from agentic.contract.errors import ContractError
from agentic.lane import Execution, LaneRequest, plan_lane
from agentic.lane.executors.units import worker_spec
from agentic.ranking.runner import RankingSettings
from tests.support.backends import agentic, stdio_config, write_config
from tests.support.tiny_fixture import TASK_A

# Each command that prepares adapters, with the arguments it cannot parse without.
PREPARING = {
    "run": (),
    "verify": ("fixture-agent",),
    "ranking": (),
    "generation": ("--model", "mock"),
    "matrix": (),
    "catalog": ("--check",),
    "prepare": ("--adapter", "lexical"),
}
NAMED = "(--prepare-timeout-ms, or a backend config's prepare_timeout_s)"


def _parsed(command: str, *options: str) -> int:
    argv = [command, *PREPARING[command], *options]
    prepare_timeout_ms: int = build_parser(argv).parse_args(argv).prepare_timeout_ms
    return prepare_timeout_ms


def _sleeping_prepare(folder: Path, seconds: float) -> Path:
    """A backend config whose ``prepare`` step takes ``seconds``."""
    sleep = [sys.executable, "-c", f"import time; time.sleep({seconds})"]
    return write_config(folder, stdio_config("ok", prepare=sleep))


# --- the option ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", sorted(PREPARING))
def test_every_command_that_prepares_adapters_gives_preparation_600_s_by_default(
    command: str,
) -> None:
    assert _parsed(command) == PREPARE_TIMEOUT_S * 1000 == 600_000


@pytest.mark.parametrize("command", sorted(PREPARING))
def test_every_command_that_prepares_adapters_takes_the_deadline_in_milliseconds(
    command: str,
) -> None:
    assert _parsed(command, "--prepare-timeout-ms", "1500") == 1500


@pytest.mark.parametrize("value", ["0", "-5", "1.5", "soon"])
def test_a_prepare_timeout_that_is_no_positive_whole_number_is_a_usage_error(value: str) -> None:
    with pytest.raises(UsageError, match="--prepare-timeout-ms"):
        _parsed("run", "--prepare-timeout-ms", value)


# --- where it goes, and where it does not ---------------------------------------------------------


def test_a_run_prepares_with_the_setting_and_calls_with_the_operation_timeout(
    tiny_fixture_dir: Path,
) -> None:
    request = LaneRequest(fixture_dir=tiny_fixture_dir, timeout_s=0.1, prepare_timeout_s=12.5)
    config = plan_lane(request).config
    assert (config.timeout_s, config.prepare_timeout_s) == (0.1, 12.5)


def test_a_worker_rebuilds_the_lane_with_the_drivers_prepare_timeout(
    tiny_fixture_dir: Path,
) -> None:
    plan = plan_lane(LaneRequest(fixture_dir=tiny_fixture_dir, prepare_timeout_s=12.5))
    spec = worker_spec(plan, shared_filesystem=True)
    rebuilt = plan_lane(spec.request)
    assert rebuilt.config.prepare_timeout_s == 12.5


def test_verify_reruns_a_lane_with_the_prepare_timeout_it_was_given(
    tiny_fixture_dir: Path,
) -> None:
    catalog = builtin_catalog()
    plan = Plan(tiny_fixture_dir, catalog, None, Execution(), prepare_timeout_s=12.5)
    assert lane_request(plan, catalog.lane("fixture-agent")).prepare_timeout_s == 12.5


def test_the_run_identity_is_the_same_whatever_the_prepare_timeout(
    tiny_fixture_dir: Path,
) -> None:
    # A resumed run or a shard may prepare with another deadline: it is the same run.
    short, long = (
        plan_lane(LaneRequest(fixture_dir=tiny_fixture_dir, prepare_timeout_s=seconds))
        for seconds in (1.0, 3600.0)
    )
    assert short.identity == long.identity


def test_the_ranking_reports_settings_hold_no_prepare_timeout() -> None:
    assert RankingSettings(prepare_timeout_s=1.0).to_model() == RankingSettings().to_model()


def test_two_prepare_timeouts_write_the_same_canonical_report(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    for milliseconds in ("60000", "600000"):
        done = agentic(
            "run", "--fixture", str(tiny_fixture_dir), "--adapter", "capsule,lexical",
            "--task", TASK_A, "--promote", "none", "--prepare-timeout-ms", milliseconds,
            "--out", str(tmp_path / milliseconds), "--quiet",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    first = (tmp_path / "60000" / "canonical.json").read_bytes()
    assert first == (tmp_path / "600000" / "canonical.json").read_bytes()


# --- a preparation past it, for real --------------------------------------------------------------


@pytest.mark.real_process
def test_a_run_whose_preparation_passes_the_deadline_fails_naming_the_setting(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    config = _sleeping_prepare(tmp_path / "config", seconds=30)
    done = agentic(
        "run", "--fixture", str(tiny_fixture_dir), "--backend", str(config),
        "--adapter", "misbehaving", "--task", TASK_A, "--lifecycle", "cold",
        "--promote", "none", "--prepare-timeout-ms", "300", "--quiet",
        temp=tmp_path / "tmp",
    )  # fmt: skip
    assert done.returncode == 2
    assert f"misbehaving prepare exceeded 0.3 s {NAMED}" in done.stderr.splitlines()[-1]


@pytest.mark.real_process
@pytest.mark.slow
def test_a_preparation_longer_than_the_operation_timeout_is_not_bound_by_it(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    config = _sleeping_prepare(tmp_path / "config", seconds=1)
    out = tmp_path / "out"
    done = agentic(
        "run", "--fixture", str(tiny_fixture_dir), "--backend", str(config),
        "--adapter", "misbehaving", "--task", TASK_A, "--lifecycle", "cold",
        "--promote", "none", "--timeout-ms", "200", "--out", str(out), "--quiet",
        temp=tmp_path / "tmp",
    )  # fmt: skip
    assert "adapter_preparation" not in done.stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert [p["indexFingerprint"] != ZERO_HASH for p in report["preparations"]] == [True]


@pytest.mark.real_process
def test_a_check_stops_at_a_preparation_past_the_deadline_naming_the_setting(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    config = _sleeping_prepare(tmp_path / "config", seconds=30)
    done = agentic(
        "catalog", "--backend", str(config), "--check", "--fixture", str(tiny_fixture_dir),
        "--prepare-timeout-ms", "300", temp=tmp_path / "tmp",
    )  # fmt: skip
    assert done.returncode == 2
    assert (
        "  misbehaving: failed: adapter_preparation_timeout: misbehaving prepare exceeded 0.3 s "
        f"{NAMED}; stopped at prepare"
    ) in done.stdout.splitlines()


@pytest.mark.real_process
def test_prepare_stops_at_the_deadline_naming_the_setting(
    tiny_fixture_dir: Path, tmp_path: Path
) -> None:
    config = _sleeping_prepare(tmp_path / "config", seconds=30)
    done = agentic(
        "prepare", "--backend", str(config), "--adapter", "misbehaving",
        "--fixture", str(tiny_fixture_dir), "--out", str(tmp_path / "index"),
        "--prepare-timeout-ms", "300", temp=tmp_path / "tmp",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("agentic: adapter_preparation_timeout: misbehaving: ")
    assert f"exceeded 0.3 s {NAMED}" in done.stderr


@pytest.mark.real_process
def test_a_qmd_command_past_its_deadline_names_the_setting_that_set_it(tmp_path: Path) -> None:
    sleep = (sys.executable, "-c", "import time; time.sleep(30)")
    with pytest.raises(ContractError) as caught:
        run_bounded(
            sleep, env={}, cwd=tmp_path, timeout_s=0.2, code="qmd_update_failed",
            setting="--prepare-timeout-ms",
        )  # fmt: skip
    assert caught.value.message.endswith("did not finish within 0.2 s (--prepare-timeout-ms)")
