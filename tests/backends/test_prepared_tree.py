"""The digest of what a backend's ``prepare`` step left under ``{prepared}``: streamed, capped in
size and entries before anything is read, symlinks included by their target text (never
followed), and unchanged for a tree without symlinks."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from agentic.adapters.errors import AdapterError
from agentic.adapters.mcp import preparation
from agentic.adapters.mcp.preparation import MAX_PREPARED_BYTES, prepared_tree
from agentic.contract.canonical import fingerprint

# Names whose order differs between path-component order and plain string order ("a.txt" sorts
# before "a/b" as a string, after it by components).
FILES = {
    "a.txt": b"alpha\n",
    "a/b": b"nested\n",
    "a-b/c.json": b"{}",
    "z/.hidden": b"",
    "index.bin": bytes(range(256)) * 9000,
}


def build(root: Path, files: dict[str, bytes] = FILES) -> Path:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def digest_before_symlinks(root: Path) -> str:
    """The digest as it was computed before this change (whole reads, links skipped)."""
    entries = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        entries.append({"path": path.relative_to(root).as_posix(), "sha256": digest})
    return fingerprint(entries)


def test_a_tree_without_symlinks_digests_exactly_as_before(tmp_path: Path) -> None:
    root = build(tmp_path / "prepared")
    assert prepared_tree(root).digest == digest_before_symlinks(root)


def test_an_empty_tree_digests_as_before(tmp_path: Path) -> None:
    (tmp_path / "prepared" / "empty").mkdir(parents=True)
    assert prepared_tree(tmp_path / "prepared").digest == fingerprint([])


def test_the_tree_counts_its_regular_files(tmp_path: Path) -> None:
    root = build(tmp_path / "prepared")
    (root / "link").symlink_to("a.txt")
    assert prepared_tree(root).files == len(FILES)


def test_a_symlink_is_part_of_the_digest(tmp_path: Path) -> None:
    root = build(tmp_path / "prepared")
    before = prepared_tree(root).digest
    (root / "a" / "current").symlink_to("b")
    assert prepared_tree(root).digest != before


def test_a_symlink_is_digested_by_its_target_text(tmp_path: Path) -> None:
    root = build(tmp_path / "prepared")
    (root / "current").symlink_to("a.txt")
    first = prepared_tree(root).digest
    (root / "current").unlink()
    (root / "current").symlink_to("a/b")
    assert prepared_tree(root).digest != first


def test_a_symlink_is_never_followed(tmp_path: Path) -> None:
    outside = build(tmp_path / "outside", {"big.bin": b"x" * 10})
    root = build(tmp_path / "prepared")
    (root / "out").symlink_to(outside)
    (root / "file").symlink_to(outside / "big.bin")
    first = prepared_tree(root).digest
    (outside / "big.bin").write_bytes(b"changed")
    (outside / "new.bin").write_bytes(b"new")
    assert prepared_tree(root).digest == first


def test_a_dangling_symlink_is_digested_not_refused(tmp_path: Path) -> None:
    root = build(tmp_path / "prepared")
    (root / "gone").symlink_to(tmp_path / "nothing-here")
    assert prepared_tree(root).files == len(FILES)


def test_a_sparse_file_over_the_size_cap_is_refused_without_reading_it(tmp_path: Path) -> None:
    root = build(tmp_path / "prepared")
    with (root / "sparse.bin").open("wb") as stream:
        stream.truncate(MAX_PREPARED_BYTES + 1)  # no data blocks: reading it would be the cost
    started = time.monotonic()
    with pytest.raises(AdapterError) as raised:
        prepared_tree(root)
    assert (raised.value.code, raised.value.failure_class) == (
        "prepared_tree_too_large",
        "harness_error",
    )
    assert time.monotonic() - started < 1.0


def test_the_size_cap_counts_every_file_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preparation, "MAX_PREPARED_BYTES", 1000)
    root = build(tmp_path / "prepared", {f"part{i}": b"x" * 300 for i in range(4)})
    with pytest.raises(AdapterError) as raised:
        prepared_tree(root)
    assert raised.value.code == "prepared_tree_too_large"
    assert "more than 1000 bytes" in str(raised.value)


def test_more_entries_than_the_cap_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preparation, "MAX_PREPARED_ENTRIES", 10)
    root = tmp_path / "prepared"
    for i in range(11):
        (root / f"d{i}").mkdir(parents=True)  # folders count too: a walk costs per entry
    with pytest.raises(AdapterError) as raised:
        prepared_tree(root)
    assert raised.value.code == "prepared_tree_too_large"
    assert "more than 10 entries" in str(raised.value)


def test_a_fifo_in_the_tree_is_skipped_not_opened(tmp_path: Path) -> None:
    root = build(tmp_path / "prepared")
    os.mkfifo(root / "pipe")
    assert prepared_tree(root).digest == digest_before_symlinks(root)
