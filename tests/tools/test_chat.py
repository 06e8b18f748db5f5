"""The chat tools and AgentTools' own members against the real local platform."""

from __future__ import annotations

import ast

import pytest
from bandtest.platform import Live

from band.client.errors import NotFoundError, UnprocessableEntityError
from band.core.protocols import AgentToolsProtocol
from band.core.turn import MISSING_REPLY, AgentFailure, TurnVerdict
from band.runtime.tools import (
    AgentTools,
    BandToolError,
    InvalidToolArgumentsError,
    MessagePostError,
    MessagePostKind,
    ParticipantAddResult,
    ParticipantAddStatus,
    ParticipantRemoveResult,
    RoomExecutionStoppedError,
)

from .conftest import assert_tool_errors, bound, human_messages, new_bot, new_room, person, run


def _text(plat: Live, room: str) -> list[dict]:
    return [m for m in human_messages(plat, room) if m["message_type"] == "text"]


def test_agent_tools_implements_the_protocol(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            assert isinstance(tools, AgentToolsProtocol)
            assert tools.agent_id == bot.id
            assert tools.is_hub_room is False
            assert tools.turn.verdict() == TurnVerdict.MissingReply

    run(go())


def test_send_message_resolves_id_handle_and_name(plat: Live) -> None:
    bot, other = new_bot(plat), new_bot(plat, "Helper")
    me = person(plat)
    room = new_room(plat, bot, other)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            by_handle = await tools.send_message("hello", ["@" + me.handle.lstrip("@")])
            assert by_handle["id"] and by_handle["success"] is True
            assert {r["id"] for r in by_handle["recipients"]} == {me.id}
            assert tools.turn.replied and tools.turn.complete
            by_id = await tools.send_message("by id", [other.id])
            assert [r["id"] for r in by_id["recipients"]] == [other.id]
            by_name = await tools.send_message("by name", [other.name])
            assert [r["id"] for r in by_name["recipients"]] == [other.id]
            # agent handles are @owner/agent; a legacy dict mention is used by its id
            both = await tools.send_message("both", [other.handle, {"id": me.id}])
            assert {r["id"] for r in both["recipients"]} == {me.id, other.id}

    run(go())
    posted = _text(plat, room)
    assert [m["content"].split()[-1] for m in posted][-4:] == ["hello", "id", "name", "both"]


def test_send_message_errors(plat: Live) -> None:
    bot, other = new_bot(plat), new_bot(plat, "Helper")
    me = person(plat)
    room = new_room(plat, bot, other)
    handles = sorted(["@" + me.handle.lstrip("@"), "@" + other.handle.lstrip("@")])

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            with pytest.raises(ValueError) as unknown:
                await tools.send_message("hi", ["@nobody"])
            listed = str(unknown.value).split("Available handles: ")[1]
            assert str(unknown.value).startswith(
                "Unknown participant 'nobody'. Available handles: ["
            )
            assert sorted(ast.literal_eval(listed)) == handles  # the agent itself is not offered
            with pytest.raises(BandToolError) as empty:
                await tools.send_message("hi", [])
            assert str(empty.value).startswith("At least one mention is required. Available ")
            assert str(empty.value).endswith("]. Use participant handles from the list.")
            with pytest.raises(InvalidToolArgumentsError) as blank:
                await tools.send_message("   ", [me.id])
            assert str(blank.value) == (
                "Invalid arguments for band_send_message: content: Value error, can't be blank"
            )
            assert not tools.turn.replied

            out = await tools.execute_tool_call_structured("band_send_message", {"content": "x"})
            assert not out.ok
            assert out.error_message == (
                "Invalid arguments for band_send_message: mentions: Field required"
            )
            out = await tools.execute_tool_call_structured(
                "band_send_message", {"content": "hi", "mentions": ["@nobody"]}
            )
            assert not out.ok and out.value == out.error_message
            assert out.error_message.startswith(
                "Error executing band_send_message: Unknown participant 'nobody'. "
                "Available handles: ["
            )
            with pytest.raises(BandToolError):  # typed tool failures reach the adapter
                await tools.execute_tool_call("band_send_message", {"content": "a", "mentions": []})
            assert tools.turn.verdict() == TurnVerdict.MissingReply
        assert _text(plat, room) == []

    run(go())


def test_empty_mentions_without_known_handles(plat: Live) -> None:
    bot = new_bot(plat)
    me = person(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room, participants=[]) as tools:
            with pytest.raises(BandToolError) as empty:
                await tools.send_message("hi", [])
            assert str(empty.value) == "At least one mention is required"
            # a legacy mention dict with an id is used as given, even when not cached
            sent = await tools.send_message("hi", [{"id": me.id}])
            assert [r["id"] for r in sent["recipients"]] == [me.id]

    run(go())


def test_mention_of_someone_who_left_is_classified(plat: Live) -> None:
    bot, other = new_bot(plat), new_bot(plat, "Gone")
    room = new_room(plat, bot, other)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            await tools.get_participants()  # cache still lists `other` after removal
            plat.human("DELETE", f"/api/v1/me/chats/{room}/participants/{other.id}")
            with pytest.raises(MessagePostError) as err:
                await tools.send_message("hi", [other.id])
            assert err.value.kind is MessagePostKind.MENTION_NOT_IN_ROOM
            assert str(err.value) == (
                "mentioned_participant_not_in_room: mentioned participant is not in the room"
            )
            assert not tools.turn.replied

    run(go())


def test_send_message_passes_attachment_ids(plat: Live) -> None:
    bot = new_bot(plat)
    me = person(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            # the platform checks the IDs it is given: an unknown one refuses the whole post
            with pytest.raises(UnprocessableEntityError) as bad:
                await tools.send_message("bad", [me.id], attachment_ids=["nope"])
            assert bad.value.code == "unknown_attachment"
            assert not tools.turn.replied
            # none given: no attachment_ids key at all (the platform rejects a null)
            await tools.send_message("plain", [me.id], attachment_ids=None)
            await tools.send_message("plain too", [me.id], attachment_ids=[])

    run(go())
    assert [m["content"].split()[-1] for m in _text(plat, room)] == ["plain", "too"]


def test_send_event_any_type_and_tool_limits(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            res = await tools.send_event("calling x", "tool_call", {"name": "x", "args": {}})
            assert res["message_type"] == "tool_call"
            await tools.send_event("y" * 20000, "tool_result")
            out = await tools.execute_tool_call_structured(
                "band_send_event", {"content": "plan", "message_type": "thought"}
            )
            assert out.ok and out.value["message_type"] == "thought"
            bad = await tools.execute_tool_call_structured(
                "band_send_event", {"content": "c", "message_type": "tool_call"}
            )
            assert not bad.ok
            assert bad.error_message == (
                "Invalid arguments for band_send_event: message_type: "
                "Input should be 'thought', 'error' or 'task'"
            )
            # events only observe: the turn still owes a reply
            assert tools.turn.verdict() == TurnVerdict.MissingReply

    run(go())
    events = [m for m in human_messages(plat, room) if m["message_type"] != "text"]
    assert [e["message_type"] for e in events] == ["tool_call", "tool_result", "thought"]
    assert events[0]["metadata"]["name"] == "x"
    long = events[1]["content"]
    assert len(long) == 16384 and "... [truncated] ..." in long
    assert long.startswith("yyy") and long.endswith("yyy")


def test_no_reply_declines_without_posting(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            assert await tools.no_reply("fyi only") == {"status": "no_reply"}
            assert tools.turn.replied and tools.turn.complete
        async with bound(plat, bot, room) as tools:
            out = await tools.execute_tool_call_structured("band_no_reply", {})
            assert out.ok and out.value == {"status": "no_reply"}
            assert tools.turn.replied

    run(go())
    assert human_messages(plat, room) == []


def test_send_notice_records_nothing(plat: Live) -> None:
    bot = new_bot(plat)
    me = person(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            await tools.send_notice("approve?", [me.id])
            assert not tools.turn.replied and not tools.turn.complete

    run(go())
    assert [m["content"].split()[-1] for m in _text(plat, room)] == ["approve?"]


def test_send_failure_posts_an_error_event_and_never_raises(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)
    failure = AgentFailure("openai", "model overloaded", "rate_limited", {"retry": 2})

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            posted = await tools.send_failure(failure)
            assert posted is not None and posted["message_type"] == "error"
            assert tools.turn.complete and not tools.turn.replied
        # a room the agent cannot post to: no exception, and the turn still owes its report
        async with bound(plat, bot, "no-such-room") as tools:
            result = await tools.send_failure(failure)
            assert result["ok"] is False and "status_code: 404" in result["error"]
            assert not tools.turn.complete

    run(go())
    [event] = human_messages(plat, room)
    assert event["message_type"] == "error" and event["content"] == "model overloaded"
    # band-sdk 6.0.1's shape: the failure nested under ``failure``, with its message
    assert event["metadata"]["failure"] == {
        "provider": "openai",
        "code": "rate_limited",
        "message": "model overloaded",
        "detail": {"retry": 2},
    }
    assert "provider" not in event["metadata"]  # not the old flat shape
    assert MISSING_REPLY not in event["content"]


def test_stopped_room_raises_room_execution_stopped(plat: Live) -> None:
    bot = new_bot(plat)
    me = person(plat)
    room = new_room(plat, bot)
    r = plat.human(
        "POST", f"/api/v1/me/chats/{room}/control", json={"mode": "stop", "agent_id": bot.id}
    )
    assert r.status_code == 200, r.text

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            with pytest.raises(RoomExecutionStoppedError) as err:
                await tools.send_message("hi", [me.id])
            assert str(err.value) == f"Room {room}: platform execution was stopped"
            with pytest.raises(RoomExecutionStoppedError):
                await tools.execute_tool_call(
                    "band_send_event", {"content": "c", "message_type": "thought"}
                )
            assert tools.turn.verdict() == TurnVerdict.MissingReply

    run(go())


def test_participants_snapshot_and_refresh(plat: Live) -> None:
    bot, other = new_bot(plat), new_bot(plat, "Peer")
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room, participants=[{"id": "x", "handle": "@x"}]) as tools:
            snap = tools.participants
            snap.append({"id": "mutated"})
            assert tools.participants == [{"id": "x", "handle": "@x"}]
            tools.set_participants([{"id": "y", "handle": "@y"}])
            assert tools.participants == [{"id": "y", "handle": "@y"}]
            listed = await tools.get_participants()
            assert {p["id"] for p in listed} == {bot.id, person(plat).id}
            assert {p["id"] for p in tools.participants} == {bot.id, person(plat).id}
            added = await tools.add_participant(other.id)
            assert added == {
                "id": other.id,
                "name": other.name,
                "role": "member",
                "status": "added",
            }
            assert other.id in {p["id"] for p in tools.participants}
            assert tools.turn.complete and not tools.turn.replied

    run(go())


def test_add_and_remove_participant(plat: Live) -> None:
    bot, by_handle, by_name = new_bot(plat), new_bot(plat, "Hx"), new_bot(plat, "Nx")
    room = new_room(plat, admin=bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            h = await tools.add_participant(by_handle.handle.upper(), role="admin")
            assert h["id"] == by_handle.id and h["status"] == "added" and h["role"] == "admin"
            assert set(h) == ParticipantAddResult.__required_keys__
            assert ParticipantAddStatus(h["status"]) is ParticipantAddStatus.ADDED
            again = await tools.add_participant(by_handle.id)
            assert again == {
                "id": by_handle.id,
                "name": by_handle.name,
                "role": "admin",
                "status": "already_in_room",
            }
            assert ParticipantAddStatus(again["status"]) is ParticipantAddStatus.ALREADY_IN_ROOM
            out = await tools.execute_tool_call_structured(
                "band_add_participant", {"identifier": by_name.name.lower()}
            )
            assert out.ok and out.value["id"] == by_name.id
            await assert_tool_errors(
                tools,
                (
                    "band_add_participant",
                    {"identifier": "x", "role": "king"},
                    "Invalid arguments for band_add_participant: role: "
                    "Input should be 'owner', 'admin' or 'member'",
                ),
                (
                    "band_add_participant",
                    {"identifier": "@ghost"},
                    "Error executing band_add_participant: Participant '@ghost' not found. "
                    "Use band_lookup_peers to find available peers.",
                ),
            )
            removed = await tools.remove_participant(by_name.handle)
            assert removed == {"id": by_name.id, "name": by_name.name, "status": "removed"}
            assert set(removed) == ParticipantRemoveResult.__required_keys__
            await assert_tool_errors(
                tools,
                (
                    "band_remove_participant",
                    {"identifier": by_name.handle},
                    f"Error executing band_remove_participant: Participant '{by_name.handle}' "
                    "not found in this room.",
                ),
            )

    run(go())
    r = plat.human("GET", f"/api/v1/me/chats/{room}/participants")
    ids = {p["id"] for p in r.json()["data"]}
    assert by_handle.id in ids and by_name.id not in ids


def test_lookup_peers_pages_and_limits(plat: Live) -> None:
    bot = new_bot(plat)
    peers = [new_bot(plat, "Pp") for _ in range(3)]
    room = new_room(plat, bot, peers[0])

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            page = await tools.lookup_peers(page=1, page_size=100)
            ids = {p["id"] for p in page["data"]}
            assert {peers[1].id, peers[2].id} <= ids
            assert peers[0].id not in ids and bot.id not in ids  # in the room / itself
            assert page["metadata"]["page_size"] == 100
            one = await tools.lookup_peers(page=2, page_size=1)
            assert len(one["data"]) == 1 and one["metadata"]["page"] == 2
            for args, msg in (
                ({"page_size": 101}, "page_size: Input should be less than or equal to 100"),
                ({"page_size": 0}, "page_size: Input should be greater than or equal to 1"),
                ({"page": 0}, "page: Input should be greater than or equal to 1"),
            ):
                out = await tools.execute_tool_call_structured("band_lookup_peers", args)
                assert out.error_message == f"Invalid arguments for band_lookup_peers: {msg}"
            assert tools.turn.verdict() == TurnVerdict.MissingReply

    run(go())


def test_create_chatroom(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            new_id = await tools.create_chatroom()
            assert isinstance(new_id, str) and new_id != room
            out = await tools.execute_tool_call_structured(
                "band_create_chatroom", {"task_id": "task-7"}
            )
            assert out.ok and isinstance(out.value, str)
            chat = await tools.rest.request("GET", f"/agent/chats/{out.value}")
            assert chat.data["task_id"] == "task-7"
            assert tools.turn.complete

    run(go())


def test_fetch_room_context(plat: Live) -> None:
    bot = new_bot(plat)
    me = person(plat)
    room, other_room = new_room(plat, bot), new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, other_room and bot, other_room) as elsewhere:
            await elsewhere.send_message("from the other room", [me.id])
        async with bound(plat, bot, room) as tools:
            ctx = await tools.fetch_room_context(room_id=other_room)
            assert set(ctx) == {"data", "meta"}  # band-sdk 6.0.1's keys
            assert [m["content"].split()[-1] for m in ctx["data"]] == ["room"]
            meta = ctx["meta"]
            assert (meta["page"], meta["page_size"], meta["total_count"]) == (1, 50, 1)
            assert (meta["total_pages"], meta["has_more"]) == (1, False)
        async with bound(plat, bot, other_room) as elsewhere:
            for n in range(4):
                await elsewhere.send_message(f"more {n}", [me.id])
        async with bound(plat, bot, room) as tools:
            pages = [
                await tools.fetch_room_context(room_id=other_room, page=p, page_size=2)
                for p in (1, 2, 3, 4)
            ]
            texts = [[m["content"].split()[-1] for m in pg["data"]] for pg in pages]
            assert texts == [["room", "0"], ["1", "2"], ["3"], []]
            assert [pg["meta"]["total_pages"] for pg in pages] == [3, 3, 3, 3]
            assert [pg["meta"]["has_more"] for pg in pages] == [True, True, False, False]
            with pytest.raises(ValueError, match="page_size must be between 1 and 100"):
                await tools.fetch_room_context(room_id=other_room, page_size=101)
            with pytest.raises(NotFoundError):
                await tools.fetch_room_context(room_id="not-a-room")
            assert tools.turn.verdict() == TurnVerdict.MissingReply

    run(go())


def test_unknown_tool_and_failed_calls_record_nothing(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            out = await tools.execute_tool_call_structured("band_nope", {})
            assert (out.ok, out.value, out.error_message) == (
                False,
                "Unknown tool: band_nope",
                "Unknown tool: band_nope",
            )
            assert await tools.execute_tool_call("band_nope", {}) == "Unknown tool: band_nope"
            # an act tool that fails leaves the turn owing a reply
            failed = await tools.execute_tool_call_structured(
                "band_remove_participant", {"identifier": "nobody"}
            )
            assert not failed.ok
            assert tools.turn.verdict() == TurnVerdict.MissingReply

    run(go())


def test_hub_room_flag(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room, hub_room_id=room) as tools:
            assert tools.is_hub_room
        async with bound(plat, bot, room, hub_room_id="elsewhere") as tools:
            assert not tools.is_hub_room

    run(go())


def test_tools_without_agent_id(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as base:
            tools = AgentTools(room, base.rest)
            assert tools.agent_id is None and tools.participants == []

    run(go())


def test_stale_participants_are_refreshed_for_mentions(plat: Live) -> None:
    bot, late = new_bot(plat), new_bot(plat, "Late")
    room = new_room(plat, bot, late)
    cached = [{"id": bot.id, "handle": bot.handle, "name": bot.name}]

    async def go() -> None:
        async with bound(plat, bot, room, participants=cached) as tools:
            sent = await tools.send_message("welcome", ["@" + late.handle])
            assert [r["id"] for r in sent["recipients"]] == [late.id]
            assert late.id in {p["id"] for p in tools.participants}

    run(go())
