"""The web view's HTTP side: the page, its static files and the loopback-only local session."""

from __future__ import annotations

import asyncio

import httpx
from bandtest.platform import Live

from band.devserver.app import create_app


def test_page_and_static_files(live: Live) -> None:
    r = live.client.get(live.rest + "/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert '<main id="main"' in r.text and 'src="/static/app.js"' in r.text
    csp = r.headers["content-security-policy"]
    # nothing may load from elsewhere: scripts, styles and the socket are this server's own
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    for name, kind in (
        ("app.js", "javascript"),
        ("phoenix.js", "javascript"),
        ("style.css", "css"),
    ):
        s = live.client.get(f"{live.rest}/static/{name}")
        assert s.status_code == 200 and kind in s.headers["content-type"], name
        assert "http://" not in s.text and "https://" not in s.text, name  # no external URLs
    # the vendored Markdown renderer and sanitizer, as JavaScript modules, with their licences
    for name in ("markdown.js", "marked.esm.js", "purify.es.js"):
        s = live.client.get(f"{live.rest}/static/{name}")
        assert s.status_code == 200 and "javascript" in s.headers["content-type"], name
    for name in ("LICENSE.marked.txt", "LICENSE.dompurify.txt", "LICENSE-MPL.dompurify.txt"):
        assert live.client.get(f"{live.rest}/static/{name}").status_code == 200, name
    assert live.client.get(live.rest + "/static/nope.js").status_code == 404
    # paths stay inside the static root
    escaped = live.client.get(live.rest + "/static/%2e%2e/app.py")
    assert escaped.status_code == 404 and "create_app" not in escaped.text


def test_session_serves_the_key_to_loopback_only(live: Live) -> None:
    r = live.client.get(live.rest + "/dev/session")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    data = r.json()["data"]
    assert data["api_key"] == live.user_key
    me = live.human("GET", "/api/v1/me/profile").json()["data"]
    assert data["user_id"] == me["id"]
    assert 0 < data["heartbeat_s"] <= 30 and data["heartbeat_s"] < live.app.state.idle_timeout
    # a page that reached us under another name (DNS rebinding) gets no key
    port = live.rest.rsplit(":", 1)[1]
    for host in (f"attacker.example:{port}", "attacker.example", f"10.0.0.5:{port}"):
        denied = live.client.get(live.rest + "/dev/session", headers={"Host": host})
        assert denied.status_code == 403, host
        assert live.user_key not in denied.text
        assert denied.json()["error"]["code"] == "forbidden"
    ok = live.client.get(live.rest + "/dev/session", headers={"Host": f"localhost:{port}"})
    assert ok.status_code == 200


def test_session_refused_to_a_remote_client() -> None:
    app = create_app(":memory:")

    async def ask(client_ip: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(client_ip, 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            return await c.get("/dev/session")

    remote = asyncio.run(ask("192.168.1.20"))
    assert remote.status_code == 403 and app.state.user_key not in remote.text
    local = asyncio.run(ask("127.0.0.1"))
    assert local.status_code == 200 and local.json()["data"]["api_key"] == app.state.user_key
    app.state.directory.close()
