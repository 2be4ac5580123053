"""Every excerpt is scrubbed before it is cut: a secret straddling the cut leaves no part of
itself, and a ``<secret>`` marker is never cut into a fragment."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.adapters.errors import AdapterError
from agentic.adapters.mcp.process import StderrTail, run_to_completion
from agentic.catalog.load import load_catalog
from agentic.contract.credentials import SECRET, Secrets, clip_head, clip_tail
from agentic.fixture.loader import Fixture
from tests.support.backends import TIMEOUT_S, stdio_config, write_config

TOKEN = "TOK-0123456789GHIJKLMNOPQRSTUVWXYZ0123"  # 38 characters
SECRETS = Secrets.of([TOKEN])
PLAIN = "abcdef \n"  # the text around the secret shares no character with the marker or TOKEN


def without_markers(text: str) -> str:
    return text.replace(SECRET, "")


def leaks(text: str) -> bool:
    """Whether ``text`` holds any part of TOKEN (five characters or more) or of a marker."""
    rest = without_markers(text)
    if "<" in rest or ">" in rest:
        return True
    return any(TOKEN[i : i + 5] in rest for i in range(len(TOKEN) - 4))


@given(
    before=st.text(PLAIN, max_size=60),
    after=st.text(PLAIN, max_size=60),
    chars=st.integers(min_value=0, max_value=160),
)
def test_a_tail_or_head_of_any_length_holds_no_part_of_a_secret_or_marker(
    before: str, after: str, chars: int
) -> None:
    scrubbed = SECRETS.scrub(before + TOKEN + after)
    assert not leaks(clip_tail(scrubbed, chars))
    assert not leaks(clip_head(scrubbed, chars))


def test_a_tail_keeps_a_whole_marker_it_reaches() -> None:
    assert clip_tail(SECRETS.scrub("ab " + TOKEN + " cd"), 11) == SECRET + " cd"


def test_a_tail_that_would_split_a_marker_leaves_the_marker_out() -> None:
    assert clip_tail(SECRETS.scrub(TOKEN + " cd"), 5) == " cd"


def test_a_head_that_would_split_a_marker_leaves_the_marker_out() -> None:
    assert clip_head(SECRETS.scrub("ab " + TOKEN), 5) == "ab "


@given(prefix=st.integers(min_value=0, max_value=80), limit=st.integers(20, 120))
def test_a_stderr_tail_that_dropped_the_start_of_a_secret_shows_none_of_it(
    prefix: int, limit: int
) -> None:
    tail = StderrTail(limit, SECRETS)
    tail.append(("a" * prefix + TOKEN + "b" * 10).encode())
    assert not leaks(tail.text())


def test_a_bounded_commands_output_is_scrubbed_before_its_tail_is_cut(tmp_path: Path) -> None:
    script = f"import sys; sys.stderr.write('x' + {TOKEN!r} + 'y' * 390)"
    finished = run_to_completion(
        (sys.executable, "-c", script), {}, tmp_path, TIMEOUT_S, secrets=SECRETS
    )
    assert not leaks(finished.stderr_tail)
    assert not leaks(finished.tail())


@pytest.mark.real_process
def test_a_crashed_servers_stderr_excerpt_holds_no_half_of_its_secret(
    tmp_path: Path, tiny_fixture: Fixture
) -> None:
    # The excerpt's 300-character cut falls inside the token.
    script = (
        "import os, sys; sys.stderr.write('start ' + os.environ['BACKEND_TOKEN'] + 'y' * 280);"
        " sys.exit(1)"
    )
    document = stdio_config(
        command=[sys.executable, "-c", script],
        env={"BACKEND_TOKEN": TOKEN},
        secret_env=["BACKEND_TOKEN"],
    )
    config = write_config(tmp_path / "config", document)
    adapter = load_catalog((config,), plugins=False).build_adapter(
        "misbehaving", tiny_fixture.snapshot, {}
    )
    with pytest.raises(AdapterError) as raised:
        adapter.prepare(tiny_fixture.snapshot, tmp_path / "root", timeout_s=TIMEOUT_S)
    assert "y" * 200 in str(raised.value)  # the excerpt is there
    assert not leaks(str(raised.value))
