"""OneShotInvoker (issue 55): forwarded events run the agent's turns without a socket."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from bandtest.agents import Human, plain
from bandtest.platform import Live, room_with

from band import BandLink
from band.core import FrameworkAdapter, SimpleAdapter
from band.runtime import OneShotEnvelopeError, OneShotInvoker, OneShotStatus


class Answers(SimpleAdapter[Any]):
    """Echoes each message; fails the turn on ``boom``; remembers cleanups."""

    def __init__(self) -> None:
        super().__init__()
        self.cleaned: list[str] = []

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        if msg.content.endswith("boom"):
            raise RuntimeError("boom")
        await tools.send_message(f"echo: {plain(msg.content)}", mentions=[msg.sender_id])

    async def on_cleanup(self, room_id: str) -> None:
        self.cleaned.append(room_id)


def envelope(event_type: str, room_id: str | None, payload: dict[str, Any]) -> dict[str, Any]:
    return {"event_type": event_type, "agent_id": "-", "room_id": room_id, "payload": payload}


async def message(human: Human, rid: str, mid: str) -> dict[str, Any]:
    rows = [m for m in await human.messages(rid) if m["id"] == mid]
    return rows[0]


def test_forwarded_messages_run_the_owed_turns(live: Live) -> None:
    aid, _, key = live.register("OneShot")
    rid = room_with(live, aid)

    async def scenario() -> None:
        human = Human(live)
        link = BandLink(aid, key, rest_url=live.rest)
        adapter = Answers()
        assert isinstance(adapter, FrameworkAdapter)
        invoker = OneShotInvoker(link=link, adapter=adapter, agent_id=aid, drain_cap=5)
        try:
            with pytest.raises(RuntimeError, match="startup"):
                await invoker.handle_event(envelope("participant_added", rid, {}))
            await invoker.startup()
            assert invoker.agent_name == "OneShot" and invoker.agent_description
            first = await human.send(rid, aid, "one")
            second = await human.send(rid, aid, "two")
            payload = await message(human, rid, first)

            # the forwarded message and the one after it run, oldest first, in one call
            result = await invoker.handle_event(envelope("message_created", rid, payload))
            assert result == {
                "status": OneShotStatus.DONE,
                "message_id": first,
                "drained": [second],
            }
            replies = [plain(r["content"]) for r in await human.replies(rid, aid)]
            assert replies == ["echo: one", "echo: two"]
            assert await human.status(rid, first, aid) == "processed"
            assert await human.status(rid, second, aid) == "processed"
            # forwarded again (a bridge's retry): nothing is owed, nothing runs twice
            again = await invoker.handle_event(envelope("message_created", rid, payload))
            assert again == {"status": OneShotStatus.NO_PENDING, "message_id": first}

            # a failing turn is settled failed and reported
            boom = await human.send(rid, aid, "boom")
            failed = await invoker.handle_event(
                envelope("message_created", rid, await message(human, rid, boom))
            )
            assert failed["status"] == OneShotStatus.DONE and failed["message_id"] == boom
            assert failed["error"]

            # the agent's own message, other events, leaving a room
            own = (await human.replies(rid, aid))[0]
            assert (await invoker.handle_event(envelope("message_created", rid, own)))[
                "status"
            ] == OneShotStatus.SKIPPED_SELF
            ignored = await invoker.handle_event(envelope("participant_added", rid, {}))
            assert ignored == {"status": "ignored", "event_type": "participant_added"}
            gone = await invoker.handle_event(envelope("room_removed", rid, {"chat_room_id": rid}))
            assert gone == {"status": OneShotStatus.CLEANED_UP, "room_id": rid}
            assert adapter.cleaned == [rid]
            with pytest.raises(OneShotEnvelopeError):
                await invoker.handle_event(envelope("message_created", rid, {"content": "x"}))
        finally:
            await invoker.shutdown()
            await link.disconnect()
            await human.aclose()

    asyncio.run(scenario())


def test_a_failed_turn_does_not_hold_up_the_room(live: Live) -> None:
    """A failed message stays actionable (``/next`` serves it again): the messages after it
    still run, in the same invoker and in a new one (a new container, with no memory of the
    failure), and the failure is reported once; ``drain_cap`` bounds the walk past it."""
    aid, _, key = live.register("Serverless")
    rid = room_with(live, aid)

    async def scenario() -> None:
        human = Human(live)
        link = BandLink(aid, key, rest_url=live.rest)
        invokers: list[OneShotInvoker] = []

        async def forward(mid: str, drain_cap: int = 5) -> dict[str, Any]:
            invoker = OneShotInvoker(
                link=link, adapter=Answers(), agent_id=aid, drain_cap=drain_cap
            )
            invokers.append(invoker)
            await invoker.startup()
            payload = await message(human, rid, mid)
            return await invoker.handle_event(envelope("message_created", rid, payload))

        try:
            boom = await human.send(rid, aid, "boom")
            assert (await forward(boom))["error"]
            hello = await human.send(rid, aid, "hello")
            same = invokers[0]  # the invoker that saw the failure
            payload = await message(human, rid, hello)
            result = await same.handle_event(envelope("message_created", rid, payload))
            assert result == {"status": OneShotStatus.DONE, "message_id": hello}
            again = await human.send(rid, aid, "again")
            # a new invoker settles the failed head again (not run: its card is in the room)
            assert await forward(again) == {
                "status": OneShotStatus.DONE,
                "message_id": again,
                "drained": [boom],
            }
            # a cap of 2 (the failed head and one more): the next is left for the next call
            owed = [await human.send(rid, aid, f"later {n}") for n in range(2)]
            capped = await forward(owed[0], drain_cap=2)
            assert capped == {
                "status": OneShotStatus.DONE,
                "message_id": owed[0],
                "drained": [boom],
                "drain_truncated": True,
            }
            assert await human.status(rid, owed[1], aid) != "processed"
            assert (await forward(owed[1]))["status"] == OneShotStatus.DONE
            replies = [plain(r["content"]) for r in await human.replies(rid, aid)]
            assert replies == ["echo: hello", "echo: again", "echo: later 0", "echo: later 1"]
            assert len(await human.replies(rid, aid, "error")) == 1
            assert await human.status(rid, boom, aid) == "failed"
        finally:
            for invoker in invokers:
                await invoker.shutdown()
            await link.disconnect()
            await human.aclose()

    asyncio.run(scenario())


def test_oneshot_takes_a_simple_adapter_and_a_positive_drain_cap(live: Live) -> None:
    link = BandLink("a", "k", rest_url=live.rest)
    with pytest.raises(TypeError, match="SimpleAdapter"):
        OneShotInvoker(link=link, adapter=object(), agent_id="a")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="drain_cap"):
        OneShotInvoker(link=link, adapter=Answers(), agent_id="a", drain_cap=0)
