"""Headless Chromium (the Debian package, installed by ``nox -s system-packages``) opening a page
from disk: the DOM after its scripts ran, every console message, a screenshot, and wall time.

The browser writes its console to stderr (``--enable-logging=stderr``); the page itself logs
nothing, so any console line is an error of the page (a script error, a blocked resource).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

FLAGS = (
    "--headless",
    "--no-sandbox",  # CI runs as root in a container, where Chromium's own sandbox cannot start
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--mute-audio",
    "--enable-logging=stderr",
    "--v=0",
)
WINDOW = "--window-size=1280,2000"
TIMEOUT_S = 120
# "[pid:tid:date:INFO:CONSOLE:12] "message", source: file:///... (12)" (older: CONSOLE(12)).
CONSOLE = re.compile(r':CONSOLE(?::\d+|\(\d+\))\] "(.*)", source: ')
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


requires_chromium = pytest.mark.skipif(
    chromium() is None and not os.environ.get("AGENTIC_REQUIRE_BROWSER"),
    reason="chromium is not installed (run 'nox -s system-packages')",
)


@dataclass(frozen=True)
class PageRun:
    dom: str
    console: tuple[str, ...]
    screenshot: bytes
    seconds: float  # wall time of the DOM dump: start, load, scripts, serialise


def _run(page: Path, profile: Path, *extra: str) -> tuple[str, str, float]:
    binary = chromium()
    if binary is None:
        raise RuntimeError("chromium is not installed")
    command = [binary, *FLAGS, f"--user-data-dir={profile}", WINDOW, *extra, page.as_uri()]
    started = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False, cwd=profile
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"chromium exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout, done.stderr, seconds


def open_page(page: Path, workdir: Path) -> PageRun:
    """Load ``page`` twice in a fresh profile: once to dump the DOM, once for a screenshot."""
    profile = workdir / "chromium-profile"
    profile.mkdir(parents=True, exist_ok=True)
    dom, log, seconds = _run(page, profile, "--dump-dom")
    shot = workdir / "screenshot.png"
    _, shot_log, _ = _run(page, profile, f"--screenshot={shot}", "--hide-scrollbars")
    console = tuple(m.group(1) for m in CONSOLE.finditer(log + "\n" + shot_log))
    return PageRun(dom=dom, console=console, screenshot=shot.read_bytes(), seconds=seconds)
