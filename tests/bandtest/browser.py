"""Headless Chromium for browser tests: Debian's binary driven by Playwright's Python package.

Chromium is never downloaded by Playwright (no ``playwright install``): ``BAND_CHROMIUM`` names
the binary, else ``/usr/bin/chromium`` (what .ci/run installs), else a ``chromium`` or
``google-chrome`` on PATH (GitHub's Ubuntu runners ship the latter). When the browser or
Playwright is missing the test fails under CI (``CI=true``) and skips, with the reason, elsewhere.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import pytest

from band.config.env import env_flag

DEFAULT_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """The Chromium binary to use, or None when there is none."""
    explicit = os.environ.get("BAND_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for path in (DEFAULT_CHROMIUM, shutil.which("chromium"), shutil.which("google-chrome")):
        if path and os.access(path, os.X_OK):
            return path
    return None


def in_ci() -> bool:
    """Whether this run is CI (where a missing browser is a failure, not a skip)."""
    return env_flag("CI")


def unavailable(reason: str) -> NoReturn:
    """Fail under CI, skip elsewhere, saying what is missing."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: the browser tests must run)")
    pytest.skip(f"{reason}; install Debian's chromium (or set BAND_CHROMIUM) and playwright")


@contextmanager
def chromium(extra_args: Sequence[str] = ()) -> Iterator[Any]:
    """A launched headless Chromium (a Playwright ``Browser``), closed on exit.

    Playwright's sync API keeps an event loop running on this thread while it is open, so keep
    it no longer than a module (``asyncio.run`` in later tests would break).
    """
    path = chromium_path()
    if path is None:
        unavailable(f"{os.environ.get('BAND_CHROMIUM') or DEFAULT_CHROMIUM} not found")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=path, args=[*CHROMIUM_ARGS, *extra_args], headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


def artifacts_dir(default: Path | None = None) -> Path:
    """Where screenshots go: ``BAND_TEST_ARTIFACTS``, else ``default``, else a temp folder."""
    root = os.environ.get("BAND_TEST_ARTIFACTS") or default
    path = Path(root or os.path.join(tempfile.gettempdir(), "band-test-artifacts"))
    path.mkdir(parents=True, exist_ok=True)
    return path
