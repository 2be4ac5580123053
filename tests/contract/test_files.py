"""Reading one input file in-process (``contract/files.py``): the cap and its environment
variable, and the one ContractError line each refused path gives. ``tests/test_input_files.py``
covers the same refusals end to end through the CLI, in child processes.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from agentic.contract.errors import ContractError
from agentic.contract.files import (
    DEFAULT_MAX_INPUT_BYTES,
    MAX_INPUT_ENV,
    max_input_bytes,
    read_input_file,
)


def refused(path: Path, **options: object) -> tuple[str, str]:
    with pytest.raises(ContractError) as caught:
        read_input_file(path, **options)  # type: ignore[arg-type]
    return caught.value.code, caught.value.message


def test_without_the_variable_the_cap_is_the_default() -> None:
    assert max_input_bytes({}) == DEFAULT_MAX_INPUT_BYTES == 256 * 1024 * 1024


def test_the_variable_sets_the_cap() -> None:
    assert max_input_bytes({MAX_INPUT_ENV: "1"}) == 1


def test_the_process_environment_is_read_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_INPUT_ENV, "12")

    assert max_input_bytes() == 12


@pytest.mark.parametrize("value", ["0", "-1", "1e3", "", " 5"])
def test_a_cap_that_is_not_a_positive_integer_is_refused(value: str) -> None:
    with pytest.raises(ContractError) as caught:
        max_input_bytes({MAX_INPUT_ENV: value})

    assert (caught.value.code, caught.value.message) == (
        "invalid_cli_option",
        f"{MAX_INPUT_ENV}={value!r} is not a positive integer",
    )


def test_a_file_exactly_at_the_cap_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b"12345")

    assert read_input_file(path, max_bytes=5) == b"12345"


def test_the_cap_comes_from_the_environment_when_not_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b"12345")
    monkeypatch.setenv(MAX_INPUT_ENV, "4")

    assert refused(path)[0] == "input_too_large"


def test_a_file_one_byte_over_the_cap_is_refused_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b"123456")

    assert refused(path, max_bytes=5) == (
        "input_too_large",
        f"{path}: 6 bytes exceed the input cap of 5 ({MAX_INPUT_ENV})",
    )


def test_a_missing_file_names_the_path_and_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "missing.json"

    assert refused(path) == ("unreadable_file", f"{path}: No such file or directory")


def test_a_refusal_carries_the_callers_code(tmp_path: Path) -> None:
    assert refused(tmp_path / "missing.json", code="invalid_manifest")[0] == "invalid_manifest"


def test_a_directory_is_refused_as_a_directory(tmp_path: Path) -> None:
    assert refused(tmp_path) == (
        "unreadable_file",
        f"{tmp_path}: is a directory, not a regular file",
    )


def test_a_fifo_is_refused_as_a_fifo_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "pipe"
    os.mkfifo(path)

    assert refused(path) == ("unreadable_file", f"{path}: is a FIFO, not a regular file")


def test_a_device_is_refused_as_a_device() -> None:
    path = Path("/dev/null")

    assert refused(path) == ("unreadable_file", f"{path}: is a device, not a regular file")


def test_a_socket_cannot_even_be_opened(tmp_path: Path) -> None:
    path = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        assert refused(path) == ("unreadable_file", f"{path}: No such device or address")
    finally:
        server.close()


def test_a_file_that_outgrows_its_reported_size_is_refused_by_what_was_read() -> None:
    # A /proc file reports size 0 and still has content: read past the cap, it is refused.
    path = Path("/proc/self/status")

    assert refused(path, max_bytes=10) == (
        "input_too_large",
        f"{path}: grew past the input cap of 10",
    )


def test_a_read_that_fails_after_opening_names_the_path_and_the_reason() -> None:
    path = Path("/proc/self/mem")  # a regular file whose read at offset 0 fails with EIO

    assert refused(path) == ("unreadable_file", f"{path}: Input/output error")


def test_a_block_device_is_refused_as_a_device() -> None:
    path = Path("/dev/loop0")
    if not path.is_block_device():
        pytest.skip("no block device at /dev/loop0")

    assert refused(path) == ("unreadable_file", f"{path}: is a device, not a regular file")
