"""Contact event strategies of the runtime against the real local platform.

A person sends the agent a contact request over the human API; the platform pushes the
contact events on ``agent_contacts:{agent_id}``; each strategy does what it documents.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from bandtest.agents import FAST_POLICY
from bandtest.platform import Live

from band import Agent
from band.client.rest import RestClient
from band.core import BandConfigError
from band.platform.event import (
    ContactAddedEvent,
    ContactRequestReceivedEvent,
    ContactRequestUpdatedEvent,
)
from band.runtime.agentconfig import AgentConfig
from band.runtime.contacts.config import ContactEventConfig, ContactEventStrategy
from band.runtime.contacts.events import contact_event
from band.runtime.contacts.handler import ContactEventHandler
from band.runtime.contacts.hub import HUB_TITLE
from band.runtime.contacts.tools import ContactTools
from band_sdk_core import SessionPolicy

from .conftest import Echo, Human, fast_agent, room_with, wait_for

H = "/api/v1/me/contacts"
REQUEST_ID = re.compile(r"Request ID: (\S+)")


async def request_contact(human: Human, handle: str, message: str | None = None) -> str:
    """The local person asks the agent ``handle`` to become a contact; the request id."""
    body: dict[str, Any] = {"recipient_handle": "@" + handle}
    if message is not None:
        body["message"] = message
    r = await human.http.post(f"{H}/requests", json={"contact_request": body})
    assert r.status_code in (200, 201), r.text
    return str(r.json()["data"]["id"])


async def sent_status(human: Human, request_id: str) -> str | None:
    """The status of a request the local person sent."""
    r = await human.http.get(f"{H}/requests/sent", params={"status": "all"})
    assert r.status_code == 200, r.text
    for row in r.json()["data"]:
        if row["id"] == request_id:
            return str(row["status"])
    return None


async def agent_rooms(live: Live, key: str) -> list[dict[str, Any]]:
    r = await asyncio.to_thread(live.agent, key, "GET", "/api/v1/agent/chats")
    assert r.status_code == 200, r.text
    return list(r.json()["data"])


def test_config_validation_and_create_arguments(live: Live) -> None:
    assert ContactEventConfig().strategy is ContactEventStrategy.DISABLED
    assert ContactEventConfig().broadcast_changes is False
    assert [s.value for s in ContactEventStrategy] == ["disabled", "callback", "hub_room"]
    with pytest.raises(ValueError, match=r"^CALLBACK strategy requires on_event callback$"):
        ContactEventConfig(strategy=ContactEventStrategy.CALLBACK)
    with pytest.raises(ValueError, match=r"^hub_task_id must be a UUID, got 'task-1'$"):
        ContactEventConfig(strategy=ContactEventStrategy.HUB_ROOM, hub_task_id="task-1")
    aid, _, key = live.register("Cfg")
    with pytest.raises(BandConfigError, match="contact_config must be a ContactEventConfig"):
        Agent.create(Echo(), aid, key, rest_url=live.rest, ws_url=live.ws, contact_config="hub")  # type: ignore[arg-type]
    agent = Agent.create(
        Echo(), aid, key, rest_url=live.rest, ws_url=live.ws, contact_config=ContactEventConfig()
    )
    assert agent.contact_config.strategy is ContactEventStrategy.DISABLED


def test_disabled_strategy_leaves_requests_alone(live: Live) -> None:
    asyncio.run(_disabled_strategy_leaves_requests_alone(live))


async def _disabled_strategy_leaves_requests_alone(live: Live) -> None:
    aid, handle, key = live.register("Quiet")
    human = Human(live)
    agent = fast_agent(live, Echo(), aid, key)
    try:
        await agent.start()
        assert agent.runtime.contacts is None  # the contacts topic is not even joined
        rid = await request_contact(human, handle)
        # a message round trip later the request is still untouched and no room was made
        room = await asyncio.to_thread(room_with, live, aid)
        await human.send(room, aid, "ping")
        await wait_for(lambda: human.replies(room, aid))
        assert await sent_status(human, rid) == "pending"
        assert [r["id"] for r in await agent_rooms(live, key)] == [room]
    finally:
        await agent.stop()
        await human.aclose()


def test_callback_strategy_gets_events_and_working_contact_tools(live: Live) -> None:
    asyncio.run(_callback_strategy_gets_events_and_working_contact_tools(live))


async def _callback_strategy_gets_events_and_working_contact_tools(live: Live) -> None:
    aid, handle, key = live.register("Gatekeeper")
    human = Human(live)
    events: list[Any] = []
    contacts_seen: list[dict[str, Any]] = []

    async def auto_approve(event: Any, tools: ContactTools) -> None:
        assert isinstance(tools, ContactTools)
        events.append(event)
        if isinstance(event, ContactRequestReceivedEvent):
            assert event.payload is not None
            await tools.respond_contact_request("approve", request_id=event.payload.id)
        if isinstance(event, ContactAddedEvent):
            contacts_seen.append(await tools.list_contacts())

    config = ContactEventConfig(strategy=ContactEventStrategy.CALLBACK, on_event=auto_approve)
    agent = fast_agent(live, Echo(), aid, key, {"contact_config": config})
    try:
        await agent.start()
        rid = await request_contact(human, handle, message="let us talk")

        async def approved() -> bool:
            return await sent_status(human, rid) == "approved"

        await wait_for(approved)
        await wait_for(lambda: asyncio.sleep(0, bool(contacts_seen)))
        received = events[0]
        assert isinstance(received, ContactRequestReceivedEvent)
        assert received.payload is not None and received.payload.id == rid
        assert received.payload.message == "let us talk" and received.payload.status == "pending"
        kinds = [type(e) for e in events]
        assert ContactRequestUpdatedEvent in kinds and ContactAddedEvent in kinds
        update = next(e for e in events if isinstance(e, ContactRequestUpdatedEvent))
        assert update.payload is not None and update.payload.status == "approved"
        assert len(contacts_seen[0]["data"]) == 1  # the person is now a contact
        assert await agent_rooms(live, key) == []  # the callback strategy makes no room
    finally:
        await agent.stop()
        await human.aclose()


def test_failing_callback_is_logged_and_the_agent_keeps_serving(
    live: Live, caplog: pytest.LogCaptureFixture
) -> None:
    asyncio.run(_failing_callback_is_logged_and_the_agent_keeps_serving(live, caplog))


async def _failing_callback_is_logged_and_the_agent_keeps_serving(
    live: Live, caplog: pytest.LogCaptureFixture
) -> None:
    aid, handle, key = live.register("Clumsy")
    human = Human(live)

    async def broken(event: Any, tools: ContactTools) -> None:
        raise RuntimeError("callback bug")

    config = ContactEventConfig(strategy=ContactEventStrategy.CALLBACK, on_event=broken)
    agent = fast_agent(live, Echo(), aid, key, {"contact_config": config})
    try:
        await agent.start()
        await request_contact(human, handle)
        contacts = agent.runtime.contacts
        assert contacts is not None
        await wait_for(lambda: asyncio.sleep(0, contacts.handled == 1))
        assert "contact event callback failed" in caplog.text
        room = await asyncio.to_thread(room_with, live, aid)
        await human.send(room, aid, "still there?")
        assert await wait_for(lambda: human.replies(room, aid))
    finally:
        await agent.stop()
        await human.aclose()


class HubKeeper(Echo):
    """A stand-in for a model: in the hub room it approves every request it reads about."""

    def __init__(self) -> None:
        super().__init__()
        self.hub_turns: list[dict[str, Any]] = []

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        if not tools.is_hub_room:
            await super().on_message(
                msg, tools, history, participants_msg, contacts_msg,
                is_session_bootstrap=is_session_bootstrap, room_id=room_id,
            )  # fmt: skip
            return
        names = {
            s["function"]["name"] for s in tools.get_openai_tool_schemas(capabilities=frozenset())
        }
        self.hub_turns.append(
            {"msg": msg, "contacts_msg": contacts_msg, "room_id": room_id, "tools": names}
        )
        found = REQUEST_ID.search(msg.content)
        if msg.content.startswith("[Contact Request]") and found:
            await tools.respond_contact_request("approve", request_id=found.group(1))
        # no reply on purpose: a hub turn owes the room nothing and is not judged


def test_hub_room_created_once_gets_turns_and_is_reused_after_restart(live: Live) -> None:
    asyncio.run(_hub_room_created_once_gets_turns_and_is_reused_after_restart(live))


async def _hub_room_created_once_gets_turns_and_is_reused_after_restart(live: Live) -> None:
    aid, handle, key = live.register("Hubby")
    human = Human(live)
    config = ContactEventConfig(strategy=ContactEventStrategy.HUB_ROOM)
    adapter = HubKeeper()
    agent = fast_agent(live, adapter, aid, key, {"contact_config": config})
    try:
        await agent.start()
        rooms = await agent_rooms(live, key)
        assert [r["title"] for r in rooms] == [HUB_TITLE]
        hub = rooms[0]["id"]
        assert agent.runtime.hub_room_id == hub and hub in agent.runtime.rooms

        rid = await request_contact(human, handle, message="hello hub")

        async def approved() -> bool:
            return await sent_status(human, rid) == "approved"

        await wait_for(approved)
        first = adapter.hub_turns[0]
        assert first["room_id"] == hub
        assert first["msg"].sender_type == "System" and first["msg"].sender_id == "contact-events"
        assert rid in first["msg"].content and "hello hub" in first["msg"].content
        assert "Contacts hub" in first["contacts_msg"]  # the hub instructions, once
        assert "band_respond_contact_request" in first["tools"]  # contact tools always on
        # the update and the new contact follow as hub turns, without the instructions again
        await wait_for(lambda: asyncio.sleep(0, len(adapter.hub_turns) >= 3))
        later = adapter.hub_turns[1:]
        assert all(t["contacts_msg"] is None for t in later)
        texts = " ".join(t["msg"].content for t in later)
        assert "[Contact Request Update]" in texts and "[Contact Added]" in texts
        # each event is also left visible in the hub room as a task event; no error events
        events = await wait_for(lambda: human_events(live, key, hub))
        assert {e["metadata"]["contact_event_type"] for e in events} >= {"contact_request_received"}
        all_rows = await asyncio.to_thread(
            live.agent, key, "GET", f"/api/v1/agent/chats/{hub}/context"
        )
        assert not [m for m in all_rows.json()["data"] if m["message_type"] == "error"]
    finally:
        await agent.stop()

    # a restart finds the same hub room instead of creating another one
    adapter2 = HubKeeper()
    again = fast_agent(live, adapter2, aid, key, {"contact_config": config})
    try:
        await again.start()
        assert again.runtime.hub_room_id == hub
        assert [r["id"] for r in await agent_rooms(live, key)] == [hub]
        r = await human.http.post(f"{H}/remove", json={"handle": "@" + handle.lstrip("@")})
        assert r.status_code == 200, r.text
        await wait_for(lambda: asyncio.sleep(0, bool(adapter2.hub_turns)))
        assert adapter2.hub_turns[0]["room_id"] == hub
        assert adapter2.hub_turns[0]["msg"].content.startswith("[Contact Removed]")
    finally:
        await again.stop()
        await human.aclose()


async def human_events(live: Live, key: str, room_id: str) -> list[dict[str, Any]]:
    """The task events the agent posted in ``room_id``."""
    r = await asyncio.to_thread(live.agent, key, "GET", f"/api/v1/agent/chats/{room_id}/context")
    assert r.status_code == 200, r.text
    return [m for m in r.json()["data"] if m["message_type"] == "task"]


class Recorder(Echo):
    """Echo that records the ``contacts_msg`` of each turn."""

    def __init__(self) -> None:
        super().__init__()
        self.contacts: list[str | None] = []

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.contacts.append(contacts_msg)
        await super().on_message(
            msg, tools, history, participants_msg, contacts_msg,
            is_session_bootstrap=is_session_bootstrap, room_id=room_id,
        )  # fmt: skip


def test_broadcast_changes_reach_the_next_turn_once(live: Live) -> None:
    asyncio.run(_broadcast_changes_reach_the_next_turn_once(live))


async def _broadcast_changes_reach_the_next_turn_once(live: Live) -> None:
    aid, handle, key = live.register("Town Crier")
    human = Human(live)
    adapter = Recorder()
    config = ContactEventConfig(broadcast_changes=True)  # DISABLED strategy, awareness only
    agent = fast_agent(live, adapter, aid, key, {"contact_config": config})
    room = room_with(live, aid)
    try:
        await agent.start()
        await human.send(room, aid, "first")
        await wait_for(lambda: human.replies(room, aid))
        rid = await request_contact(human, handle)
        r = await asyncio.to_thread(
            live.agent, key, "POST", "/api/v1/agent/contacts/requests/respond",
            json={"action": "approve", "request_id": rid},
        )  # fmt: skip
        assert r.status_code == 200, r.text
        handled = agent.runtime.contacts
        assert handled is not None
        await wait_for(lambda: asyncio.sleep(0, handled.handled >= 3))
        await human.send(room, aid, "second")
        await wait_for(lambda: asyncio.sleep(0, len(adapter.contacts) == 2))
        await human.send(room, aid, "third")
        await wait_for(lambda: asyncio.sleep(0, len(adapter.contacts) == 3))
        first, second, third = adapter.contacts
        assert first is None and third is None
        assert second is not None and second.startswith("[Contacts]: @")
        assert "was added to your contacts" in second
        assert await sent_status(human, rid) == "approved"  # done by hand, not by the runtime
    finally:
        await agent.stop()
        await human.aclose()


def test_handler_skips_repeats_once_handled_and_retries_failures(live: Live) -> None:
    """A contact event delivered again is skipped once handled; a failed one runs again."""
    _, handle, key = live.register("Dedupe")
    calls: list[str] = []
    fail = [True]

    async def flaky(event: Any, tools: ContactTools) -> None:
        calls.append(event.type)
        if fail[0]:
            fail[0] = False
            raise RuntimeError("first time fails")
        # the tools it gets reach the platform as this agent
        listing = await tools.list_contact_requests(sent_status="all")
        assert [r["id"] for r in listing["data"]["received"]] == [rid]

    async def scenario() -> None:
        nonlocal rid
        human = Human(live)
        rest = RestClient(key, live.rest)
        try:
            rid = await request_contact(human, handle)
            config = ContactEventConfig(strategy=ContactEventStrategy.CALLBACK, on_event=flaky)
            handler = ContactEventHandler(config, rest)
            push = {"id": rid, "status": "pending", "inserted_at": "2026-01-01T00:00:00Z"}
            event = contact_event("contact_request_received", push)
            assert event is not None
            await handler.handle(event)  # fails: not remembered as handled
            await handler.handle(event)  # runs again and succeeds
            await handler.handle(event)  # a repeat: skipped
            assert calls == ["contact_request_received"] * 2
        finally:
            await rest.aclose()
            await human.aclose()

    rid = ""
    asyncio.run(scenario())


def test_existing_hub_room_is_joined_without_auto_subscribe(live: Live) -> None:
    """With auto_subscribe_existing_rooms off, the hub room is still found and joined."""
    aid, _, key = live.register("Selective")
    config = ContactEventConfig(strategy=ContactEventStrategy.HUB_ROOM)

    def make() -> Agent:
        return Agent.create(
            HubKeeper(), aid, key, rest_url=live.rest, ws_url=live.ws,
            config=AgentConfig(
                auto_subscribe_existing_rooms=False, session_policy=SessionPolicy(FAST_POLICY)
            ),
            contact_config=config,
        )  # fmt: skip

    async def scenario() -> None:
        async with make() as first:
            hub = first.runtime.hub_room_id
            assert hub is not None and list(first.runtime.rooms) == [hub]
        other = await asyncio.to_thread(room_with, live, aid)
        async with make() as second:
            assert second.runtime.hub_room_id == hub
            assert list(second.runtime.rooms) == [hub]  # not the other room: auto-subscribe is off
        assert {r["id"] for r in await agent_rooms(live, key)} == {hub, other}

    asyncio.run(scenario())
