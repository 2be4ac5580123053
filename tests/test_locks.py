"""Pinned artifacts: the agent-model lock is parsed strictly and a model file is verified by name,
size and streaming sha256 before anything may load it. Every failure is one precise code."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agentic.contract.errors import ContractError
from agentic.locks import (
    MODEL_PATH_ENV,
    OFFLINE_ENVIRONMENT,
    THREADS_ENV,
    PinnedFile,
    enforce_offline,
    load_agent_model_lock,
    model_threads,
    parse_agent_model_lock,
    preflight_agent_model,
    resolve_model_path,
    verify_file,
)
from agentic.resources import locks_dir

CONTENT = b"GGUF" + bytes(range(256)) * 40
NAME = "tiny-model.gguf"


def pin_for(content: bytes, name: str = NAME) -> PinnedFile:
    return PinnedFile.model_validate(
        {
            "uri": f"https://example.invalid/{name}",
            "fileName": name,
            "sizeBytes": len(content),
            "sha256": hashlib.sha256(content).hexdigest(),
            "license": "MIT",
            "distribution": {
                "package": "no-such-model-package",
                "version": "0.0.0",
                "module": "no_such_model_package",
                "path": name,
            },
        }
    )


def lock_document(content: bytes = CONTENT) -> dict[str, Any]:
    return {
        "schemaVersion": "1.0",
        "agentId": "local-model-test-v1",
        "model": pin_for(content).to_json(),
        "tokenizer": {"id": "test/tokenizer", "source": "gguf-embedded", "vocabSize": 32},
        "chatFormat": "chatml",
        "runtime": {"contextTokens": 512, "batchTokens": 64, "threads": 1},
        "budgets": {"maxToolCalls": 2, "maxOutputTokens": 64},
        "sampling": {"temperature": 0.3, "topK": 40, "topP": 0.95, "minP": 0.05},
        "trials": [
            {"trialId": "t-1", "seed": 1},
            {"trialId": "t-2", "seed": 2},
            {"trialId": "t-3", "seed": 3},
        ],
    }


def write_model(tmp_path: Path, content: bytes = CONTENT, name: str = NAME) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def error_code(call: Any) -> str:
    with pytest.raises(ContractError) as caught:
        call()
    return caught.value.code


# --- file verification ------------------------------------------------------------------------


def test_exact_file_verifies_with_its_digest_and_size(tmp_path: Path) -> None:
    verified = verify_file(write_model(tmp_path), pin_for(CONTENT))
    assert (verified.sha256, verified.size) == (hashlib.sha256(CONTENT).hexdigest(), len(CONTENT))


def test_one_corrupted_byte_is_a_sha256_mismatch(tmp_path: Path) -> None:
    corrupted = bytearray(CONTENT)
    corrupted[len(corrupted) // 2] ^= 0x01
    path = write_model(tmp_path, bytes(corrupted))
    assert error_code(lambda: verify_file(path, pin_for(CONTENT))) == "model_sha256_mismatch"


def test_truncated_file_is_a_size_mismatch(tmp_path: Path) -> None:
    path = write_model(tmp_path, CONTENT[:-1])
    assert error_code(lambda: verify_file(path, pin_for(CONTENT))) == "model_size_mismatch"


def test_file_of_another_size_is_a_size_mismatch(tmp_path: Path) -> None:
    path = write_model(tmp_path, CONTENT + b"\0")
    assert error_code(lambda: verify_file(path, pin_for(CONTENT))) == "model_size_mismatch"


def test_missing_file_is_reported_as_missing(tmp_path: Path) -> None:
    path = tmp_path / NAME
    assert error_code(lambda: verify_file(path, pin_for(CONTENT))) == "model_file_missing"


def test_directory_in_place_of_the_file_is_reported_as_missing(tmp_path: Path) -> None:
    (tmp_path / NAME).mkdir()
    path = tmp_path / NAME
    assert error_code(lambda: verify_file(path, pin_for(CONTENT))) == "model_file_missing"


def test_lock_pointing_at_another_file_is_a_sha256_mismatch(tmp_path: Path) -> None:
    other = bytes(reversed(CONTENT))  # same name, same size, different bytes
    path = write_model(tmp_path, other)
    assert error_code(lambda: verify_file(path, pin_for(CONTENT))) == "model_sha256_mismatch"


def test_path_naming_a_different_file_name_is_rejected_before_reading(tmp_path: Path) -> None:
    path = write_model(tmp_path, CONTENT, name="other-model.gguf")
    assert error_code(lambda: verify_file(path, pin_for(CONTENT))) == "model_file_name_mismatch"


def test_file_replaced_after_verification_is_detected(tmp_path: Path) -> None:
    path = write_model(tmp_path)
    verified = verify_file(path, pin_for(CONTENT))
    replacement = tmp_path / "replacement"
    replacement.write_bytes(CONTENT)
    os.replace(replacement, path)
    assert error_code(verified.ensure_unchanged) == "model_file_changed"


def test_unchanged_file_passes_the_recheck(tmp_path: Path) -> None:
    verify_file(write_model(tmp_path), pin_for(CONTENT)).ensure_unchanged()


# --- lock parsing -----------------------------------------------------------------------------


def lock_bytes(document: dict[str, Any]) -> bytes:
    return json.dumps(document).encode("utf-8")


def parse(data: bytes) -> Any:
    return parse_agent_model_lock(data, source="test lock")


def test_committed_lock_parses_and_pins_three_trials() -> None:
    lock = load_agent_model_lock(locks_dir() / "agent-model.lock.json")
    assert lock.model.fileName == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert len({t.trialId for t in lock.trials}) == 3


def test_duplicate_key_in_lock_is_its_own_code() -> None:
    text = lock_bytes(lock_document()).replace(b'"threads": 1}', b'"threads": 1, "threads": 2}')
    assert b'"threads": 2' in text
    assert error_code(lambda: parse(text)) == "model_lock_duplicate_key"


def test_lock_that_is_not_json_is_malformed() -> None:
    assert error_code(lambda: parse(b'{"schemaVersion": "1.0",}')) == "model_lock_malformed"


def test_unknown_lock_field_is_invalid() -> None:
    document = lock_document()
    document["model"]["mirror"] = "https://example.invalid/elsewhere"
    assert error_code(lambda: parse(lock_bytes(document))) == "model_lock_invalid"


def trial_list(*pairs: tuple[str, int]) -> list[dict[str, Any]]:
    return [{"trialId": trial_id, "seed": seed} for trial_id, seed in pairs]


@pytest.mark.parametrize(
    "trials",
    [
        trial_list(("t-1", 1), ("t-2", 2)),
        trial_list(("t-1", 1), ("t-1", 2), ("t-3", 3)),
        trial_list(("t-1", 1), ("t-2", 1), ("t-3", 3)),
    ],
    ids=["two-trials", "repeated-id", "repeated-seed"],
)
def test_lock_needs_exactly_three_unique_trials(trials: list[dict[str, Any]]) -> None:
    document = lock_document()
    document["trials"] = trials
    assert error_code(lambda: parse(lock_bytes(document))) == "model_lock_invalid"


def test_size_written_as_a_string_is_invalid() -> None:
    document = lock_document()
    document["model"]["sizeBytes"] = str(len(CONTENT))
    assert error_code(lambda: parse(lock_bytes(document))) == "model_lock_invalid"


def test_missing_lock_file_is_its_own_code(tmp_path: Path) -> None:
    path = tmp_path / "agent-model.lock.json"
    assert error_code(lambda: load_agent_model_lock(path)) == "model_lock_missing"


# --- resolution and preflight -----------------------------------------------------------------


def test_model_path_variable_names_the_file(tmp_path: Path) -> None:
    path = write_model(tmp_path)
    assert resolve_model_path(pin_for(CONTENT), {MODEL_PATH_ENV: str(path)}) == path


def test_without_variable_or_installed_package_the_model_is_missing() -> None:
    assert error_code(lambda: resolve_model_path(pin_for(CONTENT), {})) == "model_file_missing"


def test_preflight_verifies_the_file_the_variable_names(tmp_path: Path) -> None:
    lock_path = tmp_path / "agent-model.lock.json"
    lock_path.write_bytes(lock_bytes(lock_document()))
    path = write_model(tmp_path)
    checked = preflight_agent_model(lock_path, {MODEL_PATH_ENV: str(path)})
    assert checked.model.path == path


def test_preflight_fails_on_a_corrupted_file_named_by_the_variable(tmp_path: Path) -> None:
    lock_path = tmp_path / "agent-model.lock.json"
    lock_path.write_bytes(lock_bytes(lock_document()))
    path = write_model(tmp_path, CONTENT[:-1] + bytes([CONTENT[-1] ^ 0xFF]))
    environ = {MODEL_PATH_ENV: str(path)}
    code = error_code(lambda: preflight_agent_model(lock_path, environ))
    assert code == "model_sha256_mismatch"


def test_offline_switches_are_forced_on() -> None:
    environ = {"HF_HUB_OFFLINE": "0"}
    enforce_offline(environ)
    assert environ == dict(OFFLINE_ENVIRONMENT)


def test_thread_count_comes_from_the_lock_unless_overridden() -> None:
    lock = parse(lock_bytes(lock_document()))
    assert model_threads(lock, {}) == 1
    assert model_threads(lock, {THREADS_ENV: "4"}) == 4


@pytest.mark.parametrize("value", ["0", "two", "-1", "2.0", "٣", "1000"])
def test_thread_override_must_be_a_small_positive_integer(value: str) -> None:
    lock = parse(lock_bytes(lock_document()))
    code = error_code(lambda: model_threads(lock, {THREADS_ENV: value}))
    assert code == "invalid_model_threads"
