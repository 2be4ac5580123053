"""Preflight of the qmd lanes fails closed with a precise code: the lock, the install (qmd and
Node), and the full lane's pinned models."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentic.adapters.qmd.install import verify_install
from agentic.adapters.qmd.lockfile import (
    QmdLock,
    check_npm_inputs,
    check_tools,
    load_qmd_lock,
    parse_qmd_lock,
    tool_pins,
    tools_fingerprint,
)
from agentic.adapters.qmd.models import MODEL_CACHE_ENV, verify_models
from agentic.contract.canonical import sha256_hex
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject
from agentic.resources import locks_dir
from tests.support.qmd import write_fake_install


@pytest.fixture(scope="module")
def lock() -> QmdLock:
    return load_qmd_lock()


def _code(caught: pytest.ExceptionInfo[ContractError]) -> str:
    return caught.value.code


# -- the lock ------------------------------------------------------------------------------------


def test_the_committed_lock_matches_the_committed_npm_inputs(lock: QmdLock) -> None:
    check_npm_inputs(lock)
    assert (lock.node.version.split(".")[0], lock.qmd.version) == ("22", "2.8.3")


def test_an_edited_package_lock_without_a_new_qmd_lock_is_refused(
    lock: QmdLock, tmp_path: Path
) -> None:
    shutil.copytree(locks_dir() / "qmd", tmp_path / "qmd")
    lock_file = tmp_path / lock.npm.packageLock.path
    lock_file.write_bytes(lock_file.read_bytes() + b"\n")
    with pytest.raises(ContractError) as caught:
        check_npm_inputs(lock, tmp_path)
    assert _code(caught) == "qmd_lock_mismatch"


def test_a_lock_with_a_duplicate_key_is_malformed() -> None:
    with pytest.raises(ContractError) as caught:
        parse_qmd_lock(b'{"schemaVersion": "1.0", "schemaVersion": "1.0"}', source="x")
    assert _code(caught) == "qmd_lock_malformed"


def test_a_lock_whose_tools_fingerprint_disagrees_is_invalid(lock: QmdLock) -> None:
    document = lock.model_dump(mode="json")
    document["toolsFingerprint"] = "0" * 64
    with pytest.raises(ContractError) as caught:
        parse_qmd_lock(json.dumps(document).encode(), source="x")
    assert _code(caught) == "qmd_lock_invalid"


def _listed(lock: QmdLock) -> list[JsonObject]:
    """Tools exactly as the lock pins them (schemas stand in by their fingerprints)."""
    return [{"name": t.name, "description": t.description, "inputSchema": {}} for t in lock.tools]


def _lock_of(listed: list[JsonObject], lock: QmdLock) -> QmdLock:
    pins = tool_pins(listed)
    return lock.model_copy(update={"tools": pins, "toolsFingerprint": tools_fingerprint(pins)})


def test_listed_tools_equal_to_the_lock_pass(lock: QmdLock) -> None:
    listed = _listed(lock)
    check_tools(_lock_of(listed, lock), listed)


@pytest.mark.parametrize("drift", ["description", "schema", "missing", "extra"])
def test_any_drift_of_the_listed_tools_is_refused(lock: QmdLock, drift: str) -> None:
    listed = _listed(lock)
    pinned = _lock_of(listed, lock)
    if drift == "description":
        listed[0] = {**listed[0], "description": "changed"}
    elif drift == "schema":
        listed[0] = {**listed[0], "inputSchema": {"type": "object"}}
    elif drift == "missing":
        listed.pop()
    else:
        listed.append({"name": "embed", "description": "", "inputSchema": {}})
    with pytest.raises(ContractError) as caught:
        check_tools(pinned, listed)
    assert _code(caught) == "qmd_tool_drift"


# -- the install ---------------------------------------------------------------------------------


def test_a_missing_qmd_install_is_refused(lock: QmdLock, tmp_path: Path) -> None:
    with pytest.raises(ContractError) as caught:
        verify_install(lock, tmp_path)
    assert _code(caught) == "qmd_not_installed"


def test_a_qmd_of_another_version_is_refused(lock: QmdLock, tmp_path: Path) -> None:
    node = f"v{lock.node.version}"
    write_fake_install(tmp_path, lock, node_version=node, qmd_version="2.8.2")
    with pytest.raises(ContractError) as caught:
        verify_install(lock, tmp_path)
    assert _code(caught) == "qmd_version_mismatch"


def test_node_older_than_22_is_refused(lock: QmdLock, tmp_path: Path) -> None:
    write_fake_install(tmp_path, lock, node_version="v20.20.2", qmd_version=lock.qmd.version)
    with pytest.raises(ContractError) as caught:
        verify_install(lock, tmp_path)
    assert _code(caught) == "qmd_node_unsupported"


def test_node_22_other_than_the_pinned_build_is_refused(lock: QmdLock, tmp_path: Path) -> None:
    write_fake_install(tmp_path, lock, node_version="v22.0.0", qmd_version=lock.qmd.version)
    with pytest.raises(ContractError) as caught:
        verify_install(lock, tmp_path)
    assert _code(caught) == "qmd_node_version_mismatch"


def test_an_install_built_from_another_package_lock_is_stale(lock: QmdLock, tmp_path: Path) -> None:
    write_fake_install(tmp_path, lock, node_version="v22.23.3", qmd_version=lock.qmd.version)
    (tmp_path / "install" / "package-lock.json").write_text("{}", encoding="ascii")
    with pytest.raises(ContractError) as caught:
        verify_install(lock, tmp_path)
    assert _code(caught) == "qmd_install_stale"


# -- the full lane's models ----------------------------------------------------------------------


def _small_pins(lock: QmdLock, cache: Path) -> QmdLock:
    """The lock with each model pinned to a small file written into ``cache``."""
    cache.mkdir(exist_ok=True)
    models = []
    for pin in lock.models:
        data = f"GGUF stand-in for {pin.role}".encode()
        (cache / pin.fileName).write_bytes(data)
        models.append(pin.model_copy(update={"sizeBytes": len(data), "sha256": sha256_hex(data)}))
    return lock.model_copy(update={"models": tuple(models)})


def test_models_equal_to_their_pins_verify(lock: QmdLock, tmp_path: Path) -> None:
    pinned = _small_pins(lock, tmp_path)
    verified = verify_models(pinned, {MODEL_CACHE_ENV: str(tmp_path)})
    assert verified.embed == (tmp_path / pinned.model("embed").fileName).resolve()


def test_the_full_lane_needs_a_model_cache(lock: QmdLock) -> None:
    with pytest.raises(ContractError) as caught:
        verify_models(lock, {})
    assert _code(caught) == "qmd_model_cache_unset"


def test_a_missing_model_file_is_refused(lock: QmdLock, tmp_path: Path) -> None:
    pinned = _small_pins(lock, tmp_path)
    (tmp_path / pinned.model("rerank").fileName).unlink()
    with pytest.raises(ContractError) as caught:
        verify_models(pinned, {MODEL_CACHE_ENV: str(tmp_path)})
    assert _code(caught) == "qmd_model_missing"


def test_a_model_file_one_byte_longer_is_refused(lock: QmdLock, tmp_path: Path) -> None:
    pinned = _small_pins(lock, tmp_path)
    with (tmp_path / pinned.model("generate").fileName).open("ab") as handle:
        handle.write(b"\0")
    with pytest.raises(ContractError) as caught:
        verify_models(pinned, {MODEL_CACHE_ENV: str(tmp_path)})
    assert _code(caught) == "qmd_model_size_mismatch"


def test_a_model_file_with_one_byte_changed_is_refused(lock: QmdLock, tmp_path: Path) -> None:
    pinned = _small_pins(lock, tmp_path)
    path = tmp_path / pinned.model("embed").fileName
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ContractError) as caught:
        verify_models(pinned, {MODEL_CACHE_ENV: str(tmp_path)})
    assert _code(caught) == "qmd_model_sha256_mismatch"


def test_the_real_pins_reject_a_file_one_byte_short_without_reading_it(
    lock: QmdLock, tmp_path: Path
) -> None:
    pin = lock.model("embed")
    with (tmp_path / pin.fileName).open("wb") as handle:
        handle.truncate(pin.sizeBytes - 1)  # sparse: no disk used, nothing hashed
    with pytest.raises(ContractError) as caught:
        verify_models(lock, {MODEL_CACHE_ENV: str(tmp_path)})
    assert _code(caught) == "qmd_model_size_mismatch"
