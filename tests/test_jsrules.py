"""The JavaScript rules the contract inherits from its reference implementation."""

from __future__ import annotations

from agentic.contract.jsrules import is_blank, js_trim, utf16_key


def test_an_astral_character_sorts_before_a_private_use_character() -> None:
    assert sorted(["\ue000", "\U0001f600"], key=utf16_key) == ["\U0001f600", "\ue000"]


def test_trim_strips_the_byte_order_mark_as_javascript_does() -> None:
    assert js_trim("\ufeff value \u3000") == "value"


def test_trim_keeps_the_information_separators_python_would_strip() -> None:
    assert js_trim("\x1cvalue\x85") == "\x1cvalue\x85"


def test_a_line_of_javascript_whitespace_is_blank() -> None:
    assert is_blank("\ufeff\u00a0\t ")


def test_a_line_of_a_separator_python_calls_space_is_not_blank() -> None:
    assert not is_blank("\x1f")
