"""RestClient against the real local platform, and its retry rules against a scripted server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from bandtest.platform import Live
from bandtest.scripted import ScriptedServer, scripted_server

from band.client import (
    BandConnectionError,
    NotFoundError,
    RateLimitError,
    RestClient,
    ServiceUnavailableError,
    UnauthorizedError,
    UnprocessableEntityError,
    path,
)


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_identity_and_envelope(live: Live) -> None:
    agent_id, handle, key = live.register("Rest")

    async def go() -> None:
        async with RestClient(key, live.rest) as rest:
            me = await rest.request("GET", "/agent/me")
            assert me.status_code == 200
            assert me.data["id"] == agent_id and me.data["handle"] == handle
            chats = await rest.request("GET", "/agent/chats", params={"page": 1, "page_size": 5})
            assert chats.data == [] and chats.metadata["page_size"] == 5

    run(go())


def test_error_envelopes_become_typed_errors(live: Live) -> None:
    _, _, key = live.register("Errs")

    async def go() -> None:
        async with RestClient("not-a-key", live.rest) as bad:
            with pytest.raises(UnauthorizedError) as caught:
                await bad.request("GET", "/agent/me")
            assert caught.value.status_code == 401 and caught.value.code == "unauthorized"
        async with RestClient(key, live.rest) as rest:
            with pytest.raises(NotFoundError) as nf:
                await rest.request("GET", path("/agent/memories/{}", "missing-id"))
            assert nf.value.code == "not_found" and nf.value.request_id
            assert "status_code: 404" in str(nf.value)
            with pytest.raises(UnprocessableEntityError) as ve:
                await rest.request("POST", "/agent/chats", json={"chat": "nope"})
            assert ve.value.code == "validation_error"

    run(go())


def test_key_never_in_repr_or_errors(live: Live) -> None:
    secret = "band_a_secret_value_123"

    async def go() -> None:
        async with RestClient(secret, live.rest) as rest:
            assert secret not in repr(rest)
            with pytest.raises(UnauthorizedError) as caught:
                await rest.request("GET", "/agent/me")
            assert secret not in str(caught.value)

    run(go())


def test_pages_reads_offset_and_cursor_listings_to_the_end(live: Live) -> None:
    """One paging helper: offset pages until ``total_count``, cursor pages until ``has_more``."""
    made = [
        live.human("POST", "/api/v1/me/chats", json={"chat": {"title": f"r{i}"}}) for i in range(5)
    ]
    rid = made[0].json()["data"]["id"]
    for i in range(7):
        body = {"message": {"content": f"m{i}", "mentions": []}}
        assert live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body).status_code == 201

    async def go() -> None:
        async with RestClient(live.user_key, live.rest) as rest:
            rooms = [p async for p in rest.pages("/me/chats", {"page_size": 2})]
            assert [len(p.data) for p in rooms] == [2, 2, 1]  # type: ignore[arg-type]
            assert [p.metadata["page"] for p in rooms] == [1, 2, 3]
            url = path("/me/chats/{}/messages", rid)
            pages = [p async for p in rest.pages(url, {"limit": 3})]
            contents = [m["content"] for p in pages for m in p.data]  # type: ignore[union-attr]
            assert [len(p.data) for p in pages] == [3, 3, 1]  # type: ignore[arg-type]
            assert contents == [f"m{i}" for i in reversed(range(7))]  # newest first, each once

    run(go())


def test_path_encodes_ids() -> None:
    assert path("/agent/chats/{}/messages", "../../me") == "/agent/chats/..%2F..%2Fme/messages"
    assert path("/a/{}/b/{}", "x y", "z?") == "/a/x%20y/b/z%3F"


def test_empty_key_rejected() -> None:
    with pytest.raises(ValueError, match="api_key"):
        RestClient("", "http://127.0.0.1:1")


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    yield from scripted_server()


def _err(code: str) -> dict[str, object]:
    return {"error": {"code": code, "message": code, "request_id": "r"}}


def test_idempotent_get_retries_on_503_and_429(scripted: ScriptedServer) -> None:
    scripted.script += [
        (503, {}, _err("unavailable")),
        (429, {"retry-after-ms": "10"}, _err("rate_limited")),
        (200, {}, {"data": {"ok": True}}),
    ]

    async def go() -> None:
        async with RestClient("k", scripted.url, backoff_base_s=0.01) as rest:
            resp = await rest.request("GET", "/agent/me")
            assert resp.data == {"ok": True}

    run(go())
    assert len(scripted.seen) == 3


def test_post_is_not_retried_unless_asked(scripted: ScriptedServer) -> None:
    scripted.script += [(503, {}, _err("unavailable")), (200, {}, {"data": 1})]

    async def go() -> None:
        async with RestClient("k", scripted.url, backoff_base_s=0.01) as rest:
            with pytest.raises(ServiceUnavailableError):
                await rest.request("POST", "/agent/chats", json={})
            assert (await rest.request("POST", "/agent/chats", json={}, retries=0)).data == 1

    run(go())


def test_retries_exhausted_raise_last_error(scripted: ScriptedServer) -> None:
    scripted.script += [(429, {"retry-after": "0"}, _err("rate_limited"))] * 2

    async def go() -> None:
        async with RestClient("k", scripted.url, max_retries=1) as rest:
            with pytest.raises(RateLimitError):
                await rest.request("GET", "/agent/me")

    run(go())
    assert len(scripted.seen) == 2


def test_unreachable_platform_is_a_connection_error() -> None:
    async def go() -> None:
        async with RestClient("k", "http://127.0.0.1:9", max_retries=1, backoff_base_s=0.01) as r:
            with pytest.raises(BandConnectionError):
                await r.request("GET", "/agent/me")

    run(go())
