"""The built site in headless Chromium: home, a tutorial, an API page, and the search box.

The site is served by a plain HTTP server on 127.0.0.1 (search needs its index over HTTP, not
``file://``). Chromium is Debian's, found by ``bandtest.browser``.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bandtest.browser import artifacts_dir, chromium


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site without a log line per request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site's base URL on a free loopback port."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _open(browser: Any, url: str, errors: list[str], hosts: set[str]) -> Any:
    tab = browser.new_page(viewport={"width": 1200, "height": 900})
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    tab.on("request", lambda request: hosts.add(request.url.split("/")[2]))
    tab.goto(url)
    return tab


def test_pages_render_and_search_finds_claim_registry(served: str, tmp_path: Path) -> None:
    errors: list[str] = []
    hosts: set[str] = set()
    with chromium() as browser:
        home = _open(browser, f"{served}/", errors, hosts)
        assert "Band open SDK" in home.title()
        assert home.locator("nav").count() > 0
        home.screenshot(path=str(artifacts_dir(tmp_path) / "docs-home.png"))

        tutorial = _open(browser, f"{served}/tutorials/first-agent/", errors, hosts)
        assert tutorial.locator("h1").first.inner_text().strip() != ""
        assert tutorial.locator("pre code").count() >= 1

        api = _open(browser, f"{served}/reference/band_sdk_core/", errors, hosts)
        assert api.locator('[id="band_sdk_core.ClaimRegistry"]').count() == 1

        # Material's search: type in the box, wait for a result that names the class
        box = home.locator("input.md-search__input")
        box.click()
        box.press_sequentially("ClaimRegistry", delay=30)
        result = home.locator(".md-search-result__item", has_text="ClaimRegistry").first
        result.wait_for(state="visible", timeout=60_000)
        link = result.locator("a").first.get_attribute("href") or ""
        assert "band_sdk_core" in link
    assert errors == []
    assert hosts == {served.split("/")[2]}  # no fonts or scripts from another host
