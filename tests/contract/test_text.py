"""One rule for shortened text: never over the limit, and an ellipsis when something was cut."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentic.contract.text import ELLIPSIS, clip, one_line


@given(st.text(), st.integers(min_value=1, max_value=50))
def test_a_clipped_text_is_never_longer_than_its_limit(text: str, limit: int) -> None:
    assert len(clip(text, limit)) <= limit


@given(st.text(), st.integers(min_value=1, max_value=50))
def test_a_text_is_kept_whole_or_cut_and_marked(text: str, limit: int) -> None:
    shown = clip(text, limit)
    assert shown == text or (shown.endswith(ELLIPSIS) and text.startswith(shown[:-1]))


def test_one_line_folds_every_run_of_whitespace_into_one_space() -> None:
    assert one_line("a\n\n b\tc  ", 20) == "a b c"


def test_one_line_clips_after_folding() -> None:
    assert one_line("ab\ncd ef", 5) == "ab c" + ELLIPSIS
