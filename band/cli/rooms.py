"""``band rooms``, ``band room create``, ``band send`` and ``band tail``: rooms from a terminal.

They act as the local person through the human API (any Band platform that serves it; ``band
dev`` by default) with band.client's REST client and socket, and print a room the way ``band
demo`` does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys

from band.client import path
from band.core.wire import JsonObject, JsonValue
from band.demo.watch import Clock, render

from .human import Human, RoomFeed, names_of
from .options import CommandError, add_platform, seconds

__all__ = ["add"]

DEFAULT_WAIT = 60.0


async def _rooms(args: argparse.Namespace) -> int:
    """List the person's rooms: id, title and agents."""
    async with Human(args) as human:
        for room in await human.rows("/me/chats", page=1, page_size=100):
            agents = room.get("agents")
            listed = agents if isinstance(agents, list) else []
            names = ", ".join(str(a.get("name")) for a in listed if isinstance(a, dict))
            print(f"{room['id']}  {room.get('title') or '(untitled)'}  [{names}]")
    return 0


async def _room_create(args: argparse.Namespace) -> int:
    """Create a room, add the agents named, print its id and web view."""
    async with Human(args) as human:
        agents = [await human.agent(name) for name in args.agent]
        room = await human.call("POST", "/me/chats", {"chat": {"title": args.title}})
        assert isinstance(room, dict)
        for agent in agents:
            await human.add(str(room["id"]), str(agent["id"]))
    added = f" with {', '.join(str(a.get('name')) for a in agents)}" if agents else ""
    print(f'created room "{args.title}" ({room["id"]}){added}')
    print(f"web room view: {human.url}/#/rooms/{room['id']}")
    return 0


async def _send(args: argparse.Namespace) -> int:
    """Post a message (mentioning agents), then print the room until they answered."""
    if not args.text.strip():  # the platform refuses it (422) once the room was looked up
        raise CommandError("TEXT is empty: give the message to send", code=2)
    clock = Clock()
    async with Human(args) as human:
        room = await human.room(args.room)
        rid = str(room["id"])
        members = await human.participants(rid)
        names = names_of(members)
        mentioned: list[JsonObject] = []
        for wanted in args.mention:
            agent = await human.agent(wanted)
            if agent["id"] not in names:
                await human.add(rid, str(agent["id"]))
                names[str(agent["id"])] = str(agent.get("name"))
                print(f"{clock.stamp()} added {agent.get('name')} to the room")
            mentioned.append(agent)
        if mentioned:
            members = await human.participants(rid)  # who is connected, the added ones too
        me = await human.call("GET", "/me/profile")
        for line in _warnings(args.text, members, mentioned, me):
            print(f"warning: {line}", file=sys.stderr, flush=True)
        body = {"message": {"content": args.text, "mentions": [{"id": a["id"]} for a in mentioned]}}
        url = path("/me/chats/{}/messages", rid)
        if not mentioned or args.wait == 0:
            posted = await human.call("POST", url, body)
            sent = posted.get("id") if isinstance(posted, dict) else None
            for row in await human.last_messages(rid, 20):  # the answer is no message row
                if row.id == sent:
                    print(f"{clock.stamp()} {render(row, names)}")
            return 0
        # the socket is joined before the post: every row from here on reaches the feed
        async with human.feed(rid, names) as feed:
            await human.call("POST", url, body)
            return await _until_answered(feed, mentioned, names, args.wait, clock)


def _warnings(
    text: str, members: list[JsonObject], mentioned: list[JsonObject], me: JsonValue
) -> list[str]:
    """What the person should know before the message goes out: an ``@Name`` of a member
    that is not a mention (nobody is asked), a mentioned agent that is not connected."""
    out: list[str] = []
    asked = {str(a["id"]) for a in mentioned}
    own = me.get("id") if isinstance(me, dict) else None
    for member in members:
        pid = str(member["id"])
        if pid in asked or pid == own:
            continue
        for name in {str(member.get(k) or "") for k in ("name", "handle")} - {""}:
            typed = re.search(rf"(?<!\w)@{re.escape(name)}(?!\w)", text, re.IGNORECASE)
            if typed:
                out.append(
                    f'"{typed.group(0)}" in the text is not a mention, so '
                    f"{names_of([member])[pid]} is not asked to answer; pass --mention "
                    f"{json.dumps(name)} to ask"
                )
                break
    for member in members:
        if str(member["id"]) in asked and member.get("online") is False:
            out.append(
                f"{names_of([member])[str(member['id'])]} is offline (not connected to the "
                "platform): the message waits until the agent runs; start it (python agent.py)"
            )
    return out


async def _until_answered(
    feed: RoomFeed, mentioned: list[JsonObject], names: dict[str, str], wait: float, clock: Clock
) -> int:
    """Print new rows until each mentioned agent replied (0) or reported an error (1)."""
    waiting = {str(a["id"]) for a in mentioned}
    failed = False
    try:
        async with asyncio.timeout(wait):
            async for row in feed.rows():
                print(f"{clock.stamp()} {render(row, names)}", flush=True)
                if row.sender_id in waiting and row.message_type in ("text", "error"):
                    waiting.discard(row.sender_id)
                    failed = failed or row.message_type == "error"
                    if not waiting:
                        break
    except TimeoutError:
        who = ", ".join(names.get(i, i) for i in sorted(waiting))
        raise CommandError(
            f"no answer from {who} within {wait:g} s (--wait); is the agent running? "
            f"`band tail {feed.room_id}` keeps watching"
        ) from None
    return 1 if failed else 0


async def _tail(args: argparse.Namespace) -> int:
    """Print the room's last messages, then each new one as the socket pushes it."""
    clock = Clock()
    async with Human(args) as human:
        room = await human.room(args.room)
        rid = str(room["id"])
        names = names_of(await human.participants(rid))
        async with human.feed(rid, names) as feed:
            last = await human.last_messages(rid, args.last)
            feed.seen.update(row.id for row in last)
            print(f'room "{room.get("title")}" ({rid}); Ctrl-C stops', flush=True)
            for row in last:
                print(f"{clock.stamp()} {render(row, names)}", flush=True)
            async for row in feed.rows():
                print(f"{clock.stamp()} {render(row, names)}", flush=True)
    return 0


def _add_room(parser: argparse.ArgumentParser) -> None:
    """The ROOM positional of ``band send`` and ``band tail``: a room's id or title."""
    parser.add_argument("room", metavar="ROOM", help="the room's id or title")


def _add_agents(parser: argparse.ArgumentParser, *flags: str, metavar: str, role: str) -> None:
    """A repeatable option naming one agent each time (by name, handle or id)."""
    parser.add_argument(
        *flags,
        action="append",
        default=[],
        metavar=metavar,
        help=f"{role} (name, handle or id; repeatable; default: none)",
    )


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``band rooms``, ``band room create``, ``band send`` and ``band tail``."""
    rooms = sub.add_parser(
        "rooms",
        help="list your rooms",
        description="List the local person's rooms: id, title and the agents in each.",
    )
    add_platform(rooms)
    rooms.set_defaults(func=_rooms)

    room = sub.add_parser("room", help="create rooms", description="Manage rooms.")
    room_sub = room.add_subparsers(dest="room_command", required=True, metavar="COMMAND")
    create = room_sub.add_parser(
        "create",
        help="create a room (optionally with agents in it)",
        description="Create a room as the local person; prints its id and web room view.",
    )
    create.add_argument("title", metavar="TITLE", help="the room's title")
    _add_agents(create, "--agent", metavar="NAME", role="add one of your agents")
    add_platform(create)
    create.set_defaults(func=_room_create)

    send = sub.add_parser(
        "send",
        help="send a message to a room and print the answers",
        description=(
            "Post TEXT in ROOM as the local person, mentioning the agents given with --mention "
            "(added to the room if needed), then print the room as `band demo` does until each "
            "answered. Exits 0 once they answered, 1 on an error event or after --wait seconds."
        ),
    )
    _add_room(send)
    send.add_argument("text", metavar="TEXT", help="the message")
    _add_agents(send, "--mention", "-m", metavar="AGENT", role="an agent to mention")
    send.add_argument(
        "--wait",
        type=seconds(zero=True),
        default=DEFAULT_WAIT,
        help="seconds to wait for the answers; 0 does not wait (default: %(default)g)",
    )
    add_platform(send)
    send.set_defaults(func=_send)

    tail = sub.add_parser(
        "tail",
        help="print a room's messages as they arrive",
        description="Print ROOM's last messages and events, then each new one until Ctrl-C.",
    )
    _add_room(tail)
    tail.add_argument(
        "--last", type=int, default=20, help="how many earlier messages to show (default: 20)"
    )
    add_platform(tail)
    tail.set_defaults(func=_tail)
