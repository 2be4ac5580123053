"""A backend under test cannot see the hidden oracles or the harness, and leaves nothing running.

The hostile server (``tests/support/programs/hostile_stdio.py``) looks for oracle files through
its parent's working directory and every visible process's, ``PYTHONPATH`` entries, relative
paths and guessed absolute paths, and for a secret in the harness's environment; finding any,
it exits before serving, so its adapter cannot be prepared. The lanes run from this checkout,
whose ``fixtures/`` hold real oracles. Without the sandbox the same server does find them: that
control proves the probe has teeth.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic.adapters import sandbox
from agentic.contract.json_access import array_at
from agentic.contract.strict_json import JsonObject
from tests.support.backends import (
    FAULTY_HTTP,
    agentic,
    http_config,
    stdio_config,
    write_config,
)
from tests.support.processes import processes_mentioning
from tests.support.tiny_fixture import TASK_A

pytestmark = [
    pytest.mark.real_process,
    pytest.mark.skipif(not sandbox.bubblewrap_works(), reason="bubblewrap cannot run here"),
]

HOSTILE = Path(__file__).resolve().parent.parent / "support" / "programs" / "hostile_stdio.py"
CHECKOUT_ORACLES = sorted(
    (Path(__file__).resolve().parents[2] / "fixtures").glob("*/oracles/*.json")
)


def hostile_config(mode: str, marker: str, guesses: list[Path]) -> JsonObject:
    return {
        "id": "hostile",
        "transport": "stdio",
        "command": [sys.executable, str(HOSTILE), mode, marker],
        "env": {"HOSTILE_GUESSES": ":".join(str(p) for p in guesses)},
        "tools": {"search": {"name": "find", "arguments": {"query": "q", "collection": "scope"}}},
        "results": {"shape": "hits"},
    }


def run_hostile(tmp_path: Path, fixture_dir: Path, mode: str, marker: str) -> tuple[int, str, Path]:
    guesses = [*CHECKOUT_ORACLES, *sorted(fixture_dir.glob("oracles/*.json"))]
    path = write_config(tmp_path / "config", hostile_config(mode, marker, guesses))
    out = tmp_path / "out"
    done = agentic(
        "run", "--fixture", str(fixture_dir), "--backend", str(path), "--adapter", "hostile",
        "--task", TASK_A, "--promote", "none", "--out", str(out), "--quiet",
        temp=tmp_path / "tmp",
    )  # fmt: skip
    return done.returncode, done.stderr, out


@pytest.fixture
def harness_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_SECRET", secrets.token_hex(8))


def test_the_checkout_holds_oracles_for_the_probe_to_find() -> None:
    assert CHECKOUT_ORACLES


@pytest.mark.usefixtures("harness_secret")
def test_a_hostile_backend_under_bubblewrap_sees_no_oracle_and_no_harness_environment(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "bubblewrap")
    code, stderr, out = run_hostile(tmp_path, tiny_fixture_dir, "probe", "probe")
    assert code in (0, 1), stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["environment"]["isolation"] == "bubblewrap"


@pytest.mark.usefixtures("harness_secret")
def test_without_the_sandbox_the_same_backend_reads_the_oracles(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "none")
    code, stderr, out = run_hostile(tmp_path, tiny_fixture_dir, "probe", "probe")
    assert code == 2
    assert "adapter_preparation_failed" in stderr
    assert not out.exists()


@pytest.mark.parametrize("isolation", ["bubblewrap", "none"])
def test_a_grandchild_that_detached_with_setsid_is_gone_when_the_run_ends(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch, isolation: str
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", isolation)
    marker = f"hostile-detached-{secrets.token_hex(6)}"
    code, stderr, _ = run_hostile(tmp_path, tiny_fixture_dir, "detach", marker)
    assert code in (0, 1), stderr
    assert processes_mentioning(marker) == []


def test_a_required_sandbox_that_cannot_run_is_one_line_and_exit_2(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "bubblewrap")
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # no bwrap on it
    code, stderr, out = run_hostile(tmp_path, tiny_fixture_dir, "probe", "probe")
    assert code == 2
    assert stderr.startswith("agentic: sandbox_unavailable: ")
    assert stderr.count("\n") == 1
    assert not out.exists()


def test_an_unknown_isolation_is_one_line_and_exit_2(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "chroot")
    code, stderr, _ = run_hostile(tmp_path, tiny_fixture_dir, "probe", "probe")
    assert code == 2
    assert stderr == (
        "agentic: sandbox_unavailable: AGENTIC_ISOLATION='chroot' is not one of "
        "auto, bubblewrap, none\n"
    )


def test_a_lane_without_process_backends_records_no_isolation(
    tmp_path: Path, tiny_fixture_dir: Path
) -> None:
    out = tmp_path / "out"
    done = agentic(
        "run", "--fixture", str(tiny_fixture_dir), "--adapter", "lexical", "--task", TASK_A,
        "--promote", "none", "--out", str(out), "--quiet", temp=tmp_path / "tmp",
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert "isolation" not in report["environment"]


@pytest.mark.slow
def test_a_sandboxed_server_that_times_out_ends_the_lane_with_one_line_and_no_traceback(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "bubblewrap")
    # The warm cohort's readiness probe waits up to startup_timeout_s (30 s by default).
    path = write_config(tmp_path / "config", stdio_config("slow", startup_timeout_s=3))
    done = agentic(
        "run", "--fixture", str(tiny_fixture_dir), "--backend", str(path),
        "--adapter", "misbehaving", "--task", TASK_A, "--promote", "none",
        "--timeout-ms", "3000", "--out", str(tmp_path / "out"), "--quiet", temp=tmp_path / "tmp",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr


def _run_config(tmp_path: Path, fixture_dir: Path, config: Path) -> tuple[int, str]:
    done = agentic(
        "run", "--fixture", str(fixture_dir), "--backend", str(config), "--adapter", "hostile",
        "--task", TASK_A, "--promote", "none", "--out", str(tmp_path / "out"), "--quiet",
        temp=tmp_path / "tmp",
    )  # fmt: skip
    return done.returncode, done.stderr


def test_a_prepare_step_that_names_an_oracle_file_is_refused_in_one_line(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "bubblewrap")
    oracle = sorted(tiny_fixture_dir.glob("oracles/*.json"))[0]
    document: JsonObject = {
        **hostile_config("probe", "p", []),
        "prepare": [sys.executable, "-c", "pass", str(oracle)],
    }
    code, stderr = _run_config(tmp_path, tiny_fixture_dir, write_config(tmp_path / "c", document))
    assert code == 2
    assert stderr.count("\n") == 1, stderr
    assert "overlaps the fixture" in stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("named", ["/", "parent"])
def test_a_command_that_names_the_root_or_a_folder_holding_the_fixture_is_refused(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "bubblewrap")
    path = "/" if named == "/" else str(tiny_fixture_dir.parent)
    document = hostile_config("probe", "p", [])
    document["command"] = [*array_at(document, "command"), path]
    code, stderr = _run_config(tmp_path, tiny_fixture_dir, write_config(tmp_path / "c", document))
    assert code == 2
    assert stderr.count("\n") == 1, stderr
    assert "the whole file system" in stderr or "overlaps the fixture" in stderr


@pytest.mark.usefixtures("harness_secret")
def test_a_config_kept_in_a_folder_that_holds_the_fixture_shows_the_backend_no_oracle(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "bubblewrap")
    shared = tmp_path / "shared"
    fixture = shutil.copytree(tiny_fixture_dir, shared / "fixture")
    guesses = sorted(fixture.glob("oracles/*.json"))
    config = write_config(shared, hostile_config("probe", "p", guesses))
    code, stderr = _run_config(tmp_path, fixture, config)
    assert code in (0, 1), stderr
    assert (tmp_path / "out" / "report.json").is_file(), stderr


@pytest.fixture
def host_service() -> Iterator[int]:
    """A TCP service on the host's loopback (a stand-in for the model endpoint)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def _run_http_probe(tmp_path: Path, fixture_dir: Path, port: int) -> tuple[int, str]:
    document = http_config("probe-host", id="hostile", env={"HOSTILE_TARGET_PORT": str(port)})
    return _run_config(tmp_path, fixture_dir, write_config(tmp_path / "c", document))


def test_a_kit_started_http_server_under_the_sandbox_reaches_no_host_service(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch, host_service: int
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "bubblewrap")
    code, stderr = _run_http_probe(tmp_path, tiny_fixture_dir, host_service)
    assert code in (0, 1), stderr
    assert (tmp_path / "out" / "report.json").is_file(), stderr


@pytest.fixture
def host_socket(tmp_path: Path) -> Iterator[tuple[Path, socket.socket]]:
    """A Unix socket service of the host (a stand-in for docker.sock), not accepting yet."""
    path = tmp_path / "host.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        listener.listen()
        listener.setblocking(False)
        yield path, listener


def test_a_sandboxed_http_server_cannot_turn_the_harness_door_on_a_host_socket(
    tmp_path: Path,
    tiny_fixture_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    host_socket: tuple[Path, socket.socket],
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "bubblewrap")
    target, listener = host_socket
    document = http_config("door-hijack", id="hostile", env={"HOSTILE_TARGET_SOCKET": str(target)})
    code, stderr = _run_config(tmp_path, tiny_fixture_dir, write_config(tmp_path / "c", document))
    assert code in (0, 1), stderr
    with pytest.raises(BlockingIOError):
        listener.accept()  # the harness never connected to the host's socket


def test_without_the_sandbox_the_same_http_server_reaches_the_host_service(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch, host_service: int
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "none")
    code, stderr = _run_http_probe(tmp_path, tiny_fixture_dir, host_service)
    assert code == 2
    assert "adapter_preparation_failed" in stderr


def _other_python() -> Path | None:
    """An interpreter of another minor version than this one (a pyenv install, say)."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    for candidate in sorted(root.glob("versions/3.*/bin/python3.*")):
        if candidate.name != f"python3.{sys.version_info.minor}" and candidate.name[-1].isdigit():
            if subprocess.run([candidate, "-c", "pass"], check=False).returncode == 0:
                return candidate
    return None


OTHER_PYTHON = _other_python()


@pytest.mark.skipif(OTHER_PYTHON is None, reason="no Python of another version here")
def test_a_console_script_of_a_venv_made_with_another_python_starts_in_the_sandbox(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "bubblewrap")
    assert OTHER_PYTHON is not None
    venv = tmp_path / "venv"
    subprocess.run([OTHER_PYTHON, "-m", "venv", "--without-pip", venv], check=True)
    script = venv / "bin" / "faulty-http"
    script.write_text(f"#!{venv / 'bin' / 'python'}\n" + FAULTY_HTTP.read_text(encoding="utf-8"))
    script.chmod(0o755)
    document = http_config("ok", id="hostile", command=[str(script), "{port}", "ok"])
    code, stderr = _run_config(tmp_path, tiny_fixture_dir, write_config(tmp_path / "c", document))
    assert code in (0, 1), stderr
    assert (tmp_path / "out" / "report.json").is_file(), stderr


PYENV_SHIMS = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "shims"


@pytest.mark.skipif(not (PYENV_SHIMS / "python3").exists(), reason="no pyenv shims here")
def test_a_command_found_as_a_pyenv_shim_starts_in_the_sandbox(
    tmp_path: Path, tiny_fixture_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_ISOLATION", "bubblewrap")
    monkeypatch.setenv("PATH", f"{PYENV_SHIMS}{os.pathsep}{os.environ['PATH']}")
    document = http_config(
        "ok", id="hostile", command=["python3", str(FAULTY_HTTP), "{port}", "ok"]
    )
    config = write_config(tmp_path / "c", document)
    done = subprocess.run(
        [sys.executable, "-m", "agentic", "run", "--fixture", str(tiny_fixture_dir),
         "--backend", str(config), "--adapter", "hostile", "--task", TASK_A, "--promote", "none",
         "--out", str(tmp_path / "out"), "--quiet"],
        capture_output=True, text=True, check=False, env={**os.environ, "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert (tmp_path / "out" / "report.json").is_file(), done.stderr


def test_a_command_the_sandbox_cannot_exec_is_named_as_not_visible() -> None:
    from agentic.adapters.mcp.client import ConnectionLimits, LoopConnection, McpClientError

    limits = ConnectionLimits(max_message_bytes=4096, stderr_bytes=4096)
    connection: LoopConnection[object] = LoopConnection(limits, "test")
    connection.stderr.append(b"bwrap: execvp /opt/server/bin/serve: No such file or directory\n")
    failure = connection._with_stderr(McpClientError("crashed", "server closed stdout"))
    assert (failure.kind, str(failure)) == (
        "spawn_failed",
        "executable not visible in the sandbox: /opt/server/bin/serve",
    )
