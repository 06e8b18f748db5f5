"""band-sdk's small modules (issue 55): band.prompts' role prompts and band.credentials'
placeholder key, doing what band-sdk documents."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from bandtest.platform import Live, serve_in_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from band.client.errors import UnauthorizedError
from band.client.rest import RestClient
from band.credentials import PROXY_MANAGED_API_KEY
from band.prompts import get_available_roles, get_role_prompt, load_role_prompt


def test_role_prompts_are_built_in_and_personalised() -> None:
    assert get_available_roles() == ["planner", "reviewer"]
    planner = get_role_prompt("planner", "Ada")
    assert planner.startswith("Role: Planner") and "You are Ada." in planner
    assert "You are Reviewer." in get_role_prompt("reviewer")  # the role names the agent
    with pytest.raises(ValueError, match=r"^Unknown role 'poet'. Available roles: planner, rev"):
        get_role_prompt("poet")


def test_a_role_prompt_file_comes_before_the_built_in_one(tmp_path: Path) -> None:
    (tmp_path / "planner.md").write_text("Plan carefully.", encoding="utf-8")
    assert load_role_prompt("planner", tmp_path) == "Plan carefully."
    assert load_role_prompt("reviewer", str(tmp_path)) == get_role_prompt("reviewer")
    (tmp_path / "poet.md").write_text("Rhyme.", encoding="utf-8")
    assert load_role_prompt("poet", tmp_path) == "Rhyme."
    assert load_role_prompt("poet") is None


def _key_swapping_proxy(target: str, real_key: str) -> Starlette:
    """What a credential proxy does: forward each request with the real key put in."""

    async def forward(request: Request) -> Response:
        assert request.headers["x-api-key"] == PROXY_MANAGED_API_KEY
        headers = {"x-api-key": real_key, "content-type": request.headers.get("content-type", "")}
        async with httpx.AsyncClient(base_url=target) as client:
            answer = await client.request(
                request.method,
                request.url.path,
                params=request.query_params,
                content=await request.body(),
                headers=headers,
            )
        return Response(answer.content, answer.status_code, media_type="application/json")

    return Starlette(routes=[Route("/{path:path}", forward, methods=["GET", "POST"])])


@pytest.fixture
def proxy(live: Live) -> Iterator[tuple[str, str]]:
    """(proxy URL, agent id): a proxy in front of band dev holding the agent's real key."""
    aid, _, key = live.register("Proxied")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(_key_swapping_proxy(live.rest, key), log_level="error")
    server, thread = serve_in_thread(config, sock, "proxy")
    yield f"http://127.0.0.1:{sock.getsockname()[1]}", aid
    server.should_exit = True
    thread.join(10)
    sock.close()


def test_the_placeholder_key_works_behind_a_proxy_and_nowhere_else(
    live: Live, proxy: tuple[str, str]
) -> None:
    url, aid = proxy

    async def go() -> None:
        async with RestClient(PROXY_MANAGED_API_KEY, url) as rest:
            me = await rest.request("GET", "/agent/me")
            assert me.data["id"] == aid  # type: ignore[index,call-overload]
        async with RestClient(PROXY_MANAGED_API_KEY, live.rest) as rest:
            with pytest.raises(UnauthorizedError):
                await rest.request("GET", "/agent/me", retries=0)

    asyncio.run(go())
