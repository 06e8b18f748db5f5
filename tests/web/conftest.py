"""Browser tests of the web room view in a real headless Chromium (Debian's package).

Chromium is driven by Playwright's Python package through ``executable_path`` (never
``playwright install``). When Chromium or Playwright is missing the tests fail under CI and
skip, with the reason, on a developer machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bandtest.browser import artifacts_dir, chromium
from bandtest.platform import Live

# a non-loopback name for this machine, to see the page as a remote browser would
REMOTE_ARGS = ["--host-resolver-rules=MAP band-remote.test 127.0.0.1"]
REMOTE_HOST = "band-remote.test"
SAVED: list[Path] = []


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (Playwright's sync loop must not outlive it)."""
    with chromium(REMOTE_ARGS) as chrome:
        yield chrome


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
