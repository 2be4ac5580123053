"""Writing a page replaces only a page the kit wrote, atomically, with normal permissions."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentic.contract.errors import ContractError
from agentic.output.page import MARK, write_page

PAGE = b"<!DOCTYPE html><html><head>" + MARK + b"</head><body>new</body></html>"


def test_a_missing_page_is_written(tmp_path: Path) -> None:
    write_page(tmp_path / "report.html", PAGE)
    assert (tmp_path / "report.html").read_bytes() == PAGE


def test_a_page_the_kit_wrote_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_bytes(PAGE.replace(b"new", b"old"))
    write_page(target, PAGE)
    assert target.read_bytes() == PAGE


def test_a_foreign_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_bytes(b"<html>my notes</html>")
    with pytest.raises(ContractError) as caught:
        write_page(target, PAGE)
    assert caught.value.code == "unsafe_output_path"
    assert target.read_bytes() == b"<html>my notes</html>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_a_symlink_is_refused_even_to_a_kit_page(tmp_path: Path) -> None:
    real = tmp_path / "real.html"
    real.write_bytes(PAGE)
    link = tmp_path / "report.html"
    link.symlink_to(real)
    with pytest.raises(ContractError):
        write_page(link, PAGE.replace(b"new", b"changed"))
    assert link.is_symlink()
    assert real.read_bytes() == PAGE


def test_a_folder_at_the_path_is_refused(tmp_path: Path) -> None:
    (tmp_path / "report.html").mkdir()
    with pytest.raises(ContractError):
        write_page(tmp_path / "report.html", PAGE)


def test_the_page_gets_the_mode_a_plain_open_gives(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        write_page(tmp_path / "report.html", PAGE)
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "report.html").stat().st_mode) == 0o644
