"""Redaction of failure messages (a product's stderr among them) before they reach observations.

Credentials, token-shaped strings, the user, the host and the home directory never survive; the
result is a pure function of the message and the identity; redacting twice changes nothing.
"""

from __future__ import annotations

import json
import os
import pwd
import socket
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.contract.canonical import ZERO_HASH
from agentic.contract.json_access import member
from agentic.contract.receipt import Capabilities, PairIdentity, Timing
from agentic.fixture.loader import Fixture
from agentic.runner.receipts import harness_failure_receipt, unknown_fingerprints
from agentic.runner.redaction import Identity, redact, redact_secrets
from tests.support import documents
from tests.support.backends import agentic, stdio_config, write_config
from tests.support.programs.misbehaving_stdio import LEAKED
from tests.support.tiny_fixture import TASK_A

ALICE = Identity(
    users=("alice",), hosts=("build-box.example.org", "build-box"), homes=("/u/alice",)
)
NOBODY = Identity()

# Secret values a stderr line may carry, each distinct so a survivor is found by its text.
SECRET_LINES = [
    ("API_KEY=abc123def456", "abc123def456"),
    ("export GITHUB_TOKEN=tok-9f8e7d6c5b4a", "tok-9f8e7d6c5b4a"),
    ("DB_PASSWORD='hunter2 hunter3'", "hunter2"),
    ("aws_secret_access_key = wJalrXUtnFEMIK7MDENG", "wJalrXUtnFEMIK7MDENG"),
    ('{"client_secret": "s3cr3t-value"}', "s3cr3t-value"),
    ("Authorization: Bearer opaque.token-value", "opaque.token-value"),
    ("X-Api-Key: key-live-42", "key-live-42"),
    ("credentials:c-7777", "c-7777"),
    ("https://api.example.test/v1?access_token=qwerty123&page=2", "qwerty123"),
]
TOKEN_SHAPES = [
    "sk-proj-AbCdEfGhIjKlMnOpQrSt1234",
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt",
    "ghp_0123456789abcdefghijABCDEFGHIJ",
    "github_pat_11ABCDEFG0123456789_abcdefghij",
    "AKIAIOSFODNN7EXAMPLE",
    "xoxb-1234567890-abcdefghij",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
]


def test_the_message_is_one_line_and_capped() -> None:
    assert redact("a\nb\t c" + " x" * 400, NOBODY).startswith("a b c x")
    assert len(redact(" x" * 400, NOBODY)) == 240


def test_multi_segment_paths_are_redacted() -> None:
    assert redact("cannot open /var/lib/kit/index.db", NOBODY) == "cannot open <path>"


@pytest.mark.parametrize(("line", "value"), SECRET_LINES, ids=[v for _, v in SECRET_LINES])
def test_a_credential_assignment_loses_its_value_and_keeps_its_name(line: str, value: str) -> None:
    redacted = redact(line, NOBODY)
    assert value not in redacted
    assert "<secret>" in redacted


def test_a_bearer_token_alone_is_redacted() -> None:
    assert redact("sent bearer abc.def-ghi", NOBODY) == "sent bearer <secret>"


@pytest.mark.parametrize("token", TOKEN_SHAPES)
def test_a_well_known_token_shape_is_redacted_wherever_it_stands(token: str) -> None:
    assert redact(f"rejected ({token}) twice", NOBODY) == "rejected (<secret>) twice"


def test_a_long_hex_or_base64_run_after_the_word_token_is_redacted() -> None:
    assert redact("invalid token 0123456789abcdef0123", NOBODY) == "invalid token <secret>"
    assert redact("key was a2V5LXZhbHVlLTEyMzQ=", NOBODY) == "key was <secret>"


def test_an_exception_name_is_not_a_credential_name() -> None:
    assert redact("KeyError: 'uri'", NOBODY) == "KeyError: 'uri'"


def test_ordinary_diagnostics_are_kept() -> None:
    message = "tool_timeout: kb_search gave no answer within 30.0 s (3 tokens of 12 used)"
    assert redact(message, NOBODY) == message


def test_the_user_host_and_home_are_redacted() -> None:
    message = "alice@build-box.example.org: cd /u/alice failed; build-box says hi to alice"
    assert redact(message, ALICE) == "<user>@<host>: cd <home> failed; <host> says hi to <user>"


def test_a_name_inside_a_longer_word_is_kept() -> None:
    assert redact("malice and alicebot", ALICE) == "malice and alicebot"


def test_the_secrets_only_form_keeps_paths_for_a_person_to_act_on() -> None:
    message = "cannot start /opt/kit/server: TOKEN=abc123 for alice"
    assert (
        redact_secrets(message, ALICE) == "cannot start /opt/kit/server: TOKEN=<secret> for <user>"
    )


def test_by_default_this_machines_host_name_is_redacted() -> None:
    host = socket.gethostname()
    assert host not in redact(f"connection refused by {host}").split()


def test_a_setup_failure_receipt_carries_its_message_redacted() -> None:
    pair = PairIdentity(
        taskId="t0000a01", adapterId="x", trialId="t1", seed=None, lifecycle="cold", agentId="a"
    )
    receipt = harness_failure_receipt(
        pair,
        code="cold_trial_setup_failed",
        message="AdapterError('listing tools: closed; stderr: API_KEY=abc123def456')",
        capabilities=Capabilities.model_validate(
            member(documents.receipt(), "canonical", "capabilities")
        ),
        fingerprints=unknown_fingerprints(ZERO_HASH, ZERO_HASH, ZERO_HASH, None),
        preparation=Timing.unavailable("not prepared"),
    )

    (diagnostic,) = receipt.observations.diagnostics
    assert diagnostic == (
        "cold_trial_setup_failed: AdapterError('listing tools: closed; stderr: API_KEY=<secret>')"
    )


# --- properties ---------------------------------------------------------------------------------

words = st.text(st.characters(codec="utf-8"), max_size=12)
secret_values = st.from_regex(r"[A-Za-z0-9_.+/-]{1,24}", fullmatch=True)
secret_names = st.sampled_from(["API_KEY", "token", "Password", "client_secret", "AUTH", "apiKey"])


@given(st.lists(words, max_size=8).map(" ".join))
def test_redaction_is_deterministic(message: str) -> None:
    assert redact(message, ALICE) == redact(message, ALICE)


@given(st.lists(words, max_size=6).map(" ".join))
def test_redacting_twice_changes_nothing(message: str) -> None:
    once = redact(message, ALICE)
    assert redact(once, ALICE) == once


@given(
    st.lists(words, max_size=3).map(" ".join),
    secret_names,
    st.sampled_from(["=", ": ", " = "]),
    secret_values.filter(lambda v: len(v) >= 6),
    st.lists(words, max_size=3).map(" ".join),
)
def test_an_assigned_credential_never_survives(
    before: str, name: str, separator: str, value: str, after: str
) -> None:
    redacted = redact(f"{before} {name}{separator}{value} {after}", NOBODY)
    assert f"{name}{separator}<secret>" in redacted


@given(
    st.lists(st.sampled_from(["alice", "build-box", "ok", "/u/alice", "x", "-", ":"]), max_size=8)
)
def test_no_identity_name_survives_as_a_word(parts: list[str]) -> None:
    redacted = redact(" ".join(parts), ALICE)
    assert {"alice", "build-box", "/u/alice"}.isdisjoint(redacted.split())


# --- where the messages go: a real product's stderr, through a lane ------------------------------


def _lane_with(tmp_path: Path, fixture: Fixture, document: dict[str, Any]) -> tuple[str, Path]:
    config = write_config(tmp_path / "config", document)
    out = tmp_path / "out"
    done = agentic(
        "run", "--fixture", str(fixture.root), "--backend", str(config),
        "--adapter", document["id"], "--task", TASK_A, "--lifecycle", "cold", "--promote", "none",
        "--timeout-ms", "8000", "--out", str(out), "--quiet", temp=tmp_path / "tmp",
    )  # fmt: skip
    return done.stderr, out


def _machine_names() -> set[str]:
    account = pwd.getpwuid(os.getuid())
    return {account.pw_name, socket.gethostname(), account.pw_dir}


def test_a_products_stderr_reaches_observations_without_secrets_or_names(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    _, out = _lane_with(tmp_path, tiny_fixture, stdio_config("leaky-crash"))

    observations = json.loads((out / "observations.json").read_text(encoding="utf-8"))
    diagnostics = " ".join(
        d for r in observations["receipts"] for d in r["observations"]["diagnostics"]
    )
    assert "tool_call_failed" in diagnostics
    assert [s for s in LEAKED if s in diagnostics] == []
    assert _machine_names().isdisjoint(diagnostics.replace(";", " ").split())


def test_a_failed_preparation_reports_its_reason_without_secrets_but_with_its_paths(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    prepare = ["/bin/sh", "-c", "echo TOKEN=s3cr3t-0042 in /opt/prep/logs >&2; exit 7"]
    stderr, _ = _lane_with(tmp_path, tiny_fixture, stdio_config(prepare=prepare))

    assert "prepare exited 7" in stderr
    assert "s3cr3t-0042" not in stderr
    assert "TOKEN=<secret> in /opt/prep/logs" in stderr


TOKEN = "plain7words-0f9e8d7c6b5a"


@pytest.mark.parametrize("marked", [True, False])
def test_a_secret_env_value_a_product_echoes_reaches_no_artifact(
    tmp_path: Path, tiny_fixture: Fixture, marked: bool
) -> None:
    document = stdio_config("echo-token", env={"BACKEND_TOKEN": TOKEN})
    if marked:
        document["secret_env"] = ["BACKEND_TOKEN"]
    stderr, out = _lane_with(tmp_path, tiny_fixture, document)
    written = stderr + "".join(p.read_text(encoding="utf-8") for p in sorted(out.iterdir()))
    assert "cannot open" in written
    # Unmarked, the value has no credential shape and passes: the control that the echo is real.
    assert (TOKEN in written) is not marked
