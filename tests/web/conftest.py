"""Browser tests of the web room view in a real headless Chromium (Debian's package).

Chromium is driven by Playwright's Python package through ``executable_path`` (never
``playwright install``). When Chromium or Playwright is missing the tests fail under CI and
skip, with the reason, on a developer machine.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bandtest.platform import Live

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # a non-loopback name for this machine, to see the page as a remote browser would
    "--host-resolver-rules=MAP band-remote.test 127.0.0.1",
]
REMOTE_HOST = "band-remote.test"
SAVED: list[Path] = []


def chromium_path() -> str | None:
    """The Chromium binary: ``BAND_CHROMIUM`` or Debian's ``/usr/bin/chromium``."""
    explicit = os.environ.get("BAND_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    default = "/usr/bin/chromium"
    return default if os.access(default, os.X_OK) else shutil.which("chromium")


def in_ci() -> bool:
    """Whether this run is CI (where a missing browser is a failure, not a skip)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def _unavailable(reason: str) -> None:
    if in_ci():
        pytest.fail(f"{reason} (CI=true: the browser tests must run)")
    pytest.skip(f"{reason}; install Debian's chromium and pip install playwright to run them")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module.

    Module scope, not session: Playwright's sync API keeps an event loop running on this
    thread while it is open, which would break ``asyncio.run`` in the tests that follow.
    """
    path = chromium_path()
    if path is None:
        _unavailable("chromium is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed")
    with sync_playwright() as pw:
        chrome = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        yield chrome
        chrome.close()


@pytest.fixture
def allowed_errors() -> list[str]:
    """Console error texts a test expects (e.g. the 401 of a wrong pasted key)."""
    return []


@pytest.fixture
def page(browser: Any, live: Live, allowed_errors: list[str]) -> Iterator[Any]:
    """A fresh page (own context) on the live platform, with clipboard access granted."""
    context = browser.new_context(viewport={"width": 1280, "height": 820}, base_url=live.rest)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live.rest)
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: _console(msg, errors))
    yield tab
    context.close()
    unexpected = [e for e in errors if not any(a in e for a in allowed_errors)]
    assert not unexpected, f"browser errors: {unexpected}"


def _console(msg: Any, errors: list[str]) -> None:
    """Collect console errors; the refused local session (remote-browser tests) is expected."""
    if msg.type == "error" and not msg.location.get("url", "").endswith("/dev/session"):
        errors.append(msg.text)


def artifacts_dir() -> Path:
    """Where screenshots go: ``BAND_TEST_ARTIFACTS`` or a folder in the temp dir."""
    root = os.environ.get("BAND_TEST_ARTIFACTS") or os.path.join(
        tempfile.gettempdir(), "band-test-artifacts"
    )
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def screenshot(tab: Any, name: str) -> Path:
    """Save a full-page screenshot as a test artifact and print where it is."""
    path = artifacts_dir() / f"{name}.png"
    tab.screenshot(path=str(path), full_page=True)
    SAVED.append(path)
    print(f"screenshot: {path}")
    return path


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """List the screenshots kept as artifacts."""
    if SAVED:
        terminalreporter.write_sep("-", "web view screenshots")
        for path in SAVED:
            terminalreporter.write_line(str(path))
