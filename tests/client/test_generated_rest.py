"""band-sdk's ``band.client.rest`` names that come from Band's generated client (the [rest] extra).

Code written against band-sdk imports ``AsyncRestClient``, the request models and
``DEFAULT_REQUEST_OPTIONS`` from ``band.client.rest``; here that code runs against a real
``band dev`` through the names imported from our module.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import band_rest
import pytest
from band_rest.core.api_error import ApiError
from bandtest.platform import Live, room_with, say
from bandtest.process import python_ok
from bandtest.scripted import ScriptedServer, scripted_server

from band.client import rest


def test_band_sdk_rest_code_runs_on_band_dev(live: Live) -> None:
    aid, _, key = live.register("Rester")
    rid = room_with(live, aid)
    me = live.human("GET", "/api/v1/me/profile").json()["data"]
    say(live, rid, "hello agent", aid)

    async def go() -> None:
        from band.client.rest import (
            DEFAULT_REQUEST_OPTIONS,
            NO_RETRY_REQUEST_OPTIONS,
            AgentMe,
            AsyncRestClient,
            ChatMessage,
            ChatMessageRequest,
            ChatMessageRequestMentionsItem,
            aclose_rest_client,
        )

        client = AsyncRestClient(api_key=key, base_url=live.rest)
        got = await client.agent_api_identity.get_agent_me(request_options=DEFAULT_REQUEST_OPTIONS)
        assert isinstance(got.data, AgentMe)
        assert (got.data.id, got.data.name) == (aid, "Rester")
        message = ChatMessageRequest(
            content="hello person", mentions=[ChatMessageRequestMentionsItem(id=me["id"])]
        )
        sent = await client.agent_api_messages.create_agent_chat_message(
            rid, message=message, request_options=NO_RETRY_REQUEST_OPTIONS
        )
        listing = await client.agent_api_messages.list_agent_messages(chat_id=rid, status="all")
        rows = [m for m in listing.data if isinstance(m, ChatMessage)]
        # the platform writes the mentions into the content ("@[[id]] hello agent")
        assert [m.content.endswith(" hello agent") for m in rows] == [True]
        seen = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
        assert [m["sender_id"] for m in seen if m["id"] == sent.data.id] == [aid]
        await aclose_rest_client(client)
        with pytest.raises(RuntimeError, match="closed"):  # httpx: the client has been closed
            await client.agent_api_identity.get_agent_me()

    asyncio.run(go())


def test_agent_tools_take_band_sdks_async_rest_client(live: Live) -> None:
    """band-sdk scripts build AgentTools on band_rest's AsyncRestClient: ours speaks for it."""
    aid, _, key = live.register("Adopted")
    rid = room_with(live, aid)

    async def go() -> None:
        from band.client.rest import AsyncRestClient, RestClient, aclose_rest_client
        from band.runtime.tools import AgentTools

        client = AsyncRestClient(api_key=key, base_url=live.rest)
        tools = AgentTools(rid, client, agent_id=aid)
        assert isinstance(tools.rest, RestClient)
        assert AgentTools(rid, client, agent_id=aid).rest is tools.rest  # one per client
        people = await tools.get_participants()
        assert aid in {p["id"] for p in people}
        await tools.send_event("adopted client works", message_type="thought")
        await aclose_rest_client(client)
        assert tools.rest.closed

    asyncio.run(go())
    seen = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    assert [m["content"] for m in seen if m["sender_id"] == aid] == ["adopted client works"]


def test_the_names_are_band_rests_own() -> None:
    """The lazily handed-out names are band_rest's classes (isinstance/except work across)."""
    assert rest.AsyncRestClient is band_rest.AsyncRestClient
    assert rest.ParsingError is band_rest.core.ParsingError
    assert rest.RequestOptions is band_rest.core.request_options.RequestOptions
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        rest.NoSuchName  # noqa: B018


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    yield from scripted_server()


def test_default_options_retry_a_rate_limit_and_no_retry_does_not(
    scripted: ScriptedServer,
) -> None:
    limited = (429, {"retry-after": "0"}, {"error": {"code": "rate_limited", "message": "x"}})
    stamp = "2026-01-01T00:00:00Z"
    me = {"id": "a1", "handle": "o/a", "name": "A", "feature_flags": {}, "owner_uuid": "o1"}
    me = {"data": me | {"inserted_at": stamp, "updated_at": stamp}}
    scripted.script += [limited, (200, {}, me), limited]

    async def go() -> None:
        client = rest.AsyncRestClient(api_key="k", base_url=scripted.url)
        got = await client.agent_api_identity.get_agent_me(
            request_options=rest.DEFAULT_REQUEST_OPTIONS
        )
        assert got.data.id == "a1"
        with pytest.raises(ApiError) as caught:
            await client.agent_api_identity.get_agent_me(
                request_options=rest.NO_RETRY_REQUEST_OPTIONS
            )
        assert caught.value.status_code == 429
        await rest.aclose_rest_client(client)

    asyncio.run(go())
    assert len(scripted.seen) == 3


def test_aclose_rest_client_closes_our_client_too() -> None:
    async def go() -> bool:
        client = rest.RestClient("k", "http://127.0.0.1:9")
        await rest.aclose_rest_client(client)
        return client.closed

    assert asyncio.run(go())


def test_without_the_extra_the_name_says_which_extra_in_one_line() -> None:
    code = (
        "import sys; sys.modules['band_rest'] = None\n"
        "from band.client.rest import RestClient, DEFAULT_REQUEST_OPTIONS  # ours: fine\n"
        "try:\n"
        "    from band.client.rest import AsyncRestClient\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    done = python_ok(code)
    assert done.stdout == (
        "MissingExtraError band.client.rest.AsyncRestClient (Band's generated REST client) "
        "needs the [rest] extra: pip install 'band-open-sdk[rest]'\n"
    )
