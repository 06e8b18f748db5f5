"""``band rooms``, ``band room create``, ``band send`` and ``band tail``: rooms from a terminal.

They act as the local person through the human API (any Band platform that serves it; ``band
dev`` by default) and print a room the way ``band demo`` does.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec

from band.core.wire import Envelope, MessageRow
from band.demo.watch import Clock, render

from .common import CommandError, add_platform_options, call, fail, human_client

__all__ = ["add_rooms"]

#: How often a waiting ``send`` or ``tail`` reads the room again.
POLL_S = 0.2
DEFAULT_WAIT = 60.0
_PAGE = msgspec.json.Decoder(Envelope[list[MessageRow]])


def _pages(http: httpx.Client, path: str) -> Iterator[dict[str, Any]]:
    """Every item of an offset-paged listing."""
    page = 1
    while True:
        body = call(http, "GET", path, params={"page": page, "page_size": 100}).json()
        yield from body["data"]
        meta = body.get("metadata") or {}
        if page * 100 >= int(meta.get("total_count") or meta.get("total") or 0):
            return
        page += 1


def _room(http: httpx.Client, wanted: str) -> dict[str, Any]:
    """The person's room whose id or title is ``wanted``."""
    rooms = list(_pages(http, "/me/chats"))
    found = [r for r in rooms if wanted in (r["id"], r.get("title"))]
    if len(found) == 1:
        return found[0]
    if found:
        ids = ", ".join(r["id"] for r in found)
        raise CommandError(f'{len(found)} rooms are titled "{wanted}" ({ids}): give the id')
    titles = ", ".join(f'"{r.get("title")}"' for r in rooms[:20]) or "none"
    raise CommandError(f'no room "{wanted}" (yours: {titles}); `band room create TITLE` makes one')


def _agent(http: httpx.Client, wanted: str) -> dict[str, Any]:
    """The person's agent whose id, name or handle is ``wanted`` (a leading @ ignored)."""
    name = wanted.removeprefix("@")
    agents = list(_pages(http, "/me/agents"))
    for agent in agents:
        handle = str(agent.get("handle") or "")
        if name in (agent["id"], agent.get("name"), handle, handle.rpartition("/")[2]):
            return agent
    names = ", ".join(f'"{a.get("name")}"' for a in agents) or "none"
    raise CommandError(
        f'no agent "{wanted}" among yours ({names}); `band dev agent create NAME` registers one'
    )


def _participants(http: httpx.Client, room_id: str) -> dict[str, str]:
    """Participant id -> display name."""
    return {
        p["id"]: str(p.get("name") or p.get("handle") or p["id"])
        for p in _pages(http, f"/me/chats/{room_id}/participants")
    }


def _add(http: httpx.Client, room_id: str, agent_id: str) -> None:
    body = {"participant": {"participant_id": agent_id}}
    call(http, "POST", f"/me/chats/{room_id}/participants", json=body)


def _messages(http: httpx.Client, room_id: str) -> list[MessageRow]:
    """Every message of the room, oldest first."""
    rows: list[MessageRow] = []
    cursor: str | None = None
    while True:
        params: dict[str, str | int] = {"limit": 100}
        if cursor:
            params["cursor"] = cursor
        page = _PAGE.decode(
            call(http, "GET", f"/me/chats/{room_id}/messages", params=params).content
        )
        rows.extend(page.data)
        paging = page.paging
        cursor = paging.next_cursor if paging is not None and paging.has_more else None
        if not cursor:
            rows.reverse()  # the platform pages newest first
            return rows


def _rooms_cmd(args: argparse.Namespace) -> int:
    """List the person's rooms: id, title and agents."""
    try:
        with human_client(args) as http:
            for room in _pages(http, "/me/chats"):
                agents = ", ".join(str(a.get("name")) for a in room.get("agents") or [])
                print(f"{room['id']}  {room.get('title') or '(untitled)'}  [{agents}]")
    except CommandError as exc:
        return fail(exc)
    return 0


def _room_create(args: argparse.Namespace) -> int:
    """Create a room, add the agents named, print its id and web view."""
    try:
        with human_client(args) as http:
            agents = [_agent(http, name) for name in args.agent]
            body = {"chat": {"title": args.title}}
            room = call(http, "POST", "/me/chats", json=body).json()["data"]
            for agent in agents:
                _add(http, room["id"], agent["id"])
    except CommandError as exc:
        return fail(exc)
    added = f" with {', '.join(str(a.get('name')) for a in agents)}" if agents else ""
    print(f'created room "{args.title}" ({room["id"]}){added}')
    print(f"web room view: {args.url.rstrip('/')}/#/rooms/{room['id']}")
    return 0


def _send(args: argparse.Namespace) -> int:
    """Post a message (mentioning agents), then print the room until they answered."""
    clock = Clock()
    try:
        with human_client(args) as http:
            room = _room(http, args.room)
            names = _participants(http, room["id"])
            mentioned = []
            for wanted in args.mention:
                agent = _agent(http, wanted)
                if agent["id"] not in names:
                    _add(http, room["id"], agent["id"])
                    names[agent["id"]] = str(agent.get("name"))
                    print(f"{clock.stamp()} added {agent.get('name')} to the room")
                mentioned.append(agent)
            seen = {row.id for row in _messages(http, room["id"])}
            body = {
                "message": {"content": args.text, "mentions": [{"id": a["id"]} for a in mentioned]}
            }
            call(http, "POST", f"/me/chats/{room['id']}/messages", json=body)
            if not mentioned or args.wait == 0:
                for row in _messages(http, room["id"]):
                    if row.id not in seen:
                        print(f"{clock.stamp()} {render(row, names)}")
                return 0
            return _until_answered(http, room["id"], mentioned, names, seen, args.wait, clock)
    except CommandError as exc:
        return fail(exc)


def _until_answered(
    http: httpx.Client,
    room_id: str,
    mentioned: list[dict[str, Any]],
    names: dict[str, str],
    seen: set[str | None],
    wait: float,
    clock: Clock,
) -> int:
    """Print new rows until each mentioned agent replied (0) or reported an error (1)."""
    waiting = {a["id"] for a in mentioned}
    deadline = time.monotonic() + wait
    failed = False
    while waiting:
        for row in _messages(http, room_id):
            if row.id in seen:
                continue
            seen.add(row.id)
            print(f"{clock.stamp()} {render(row, names)}", flush=True)
            if row.sender_id in waiting and row.message_type in ("text", "error"):
                waiting.discard(row.sender_id)
                failed = failed or row.message_type == "error"
        if waiting and time.monotonic() > deadline:
            who = ", ".join(names.get(i, i) for i in sorted(waiting))
            raise CommandError(
                f"no answer from {who} within {wait:g} s (--wait); is the agent running? "
                f"`band tail {room_id}` keeps watching"
            )
        if waiting:
            time.sleep(POLL_S)
    return 1 if failed else 0


def _tail(args: argparse.Namespace) -> int:
    """Print the room's last messages, then each new one until Ctrl-C."""
    clock = Clock()
    try:
        with human_client(args) as http:
            room = _room(http, args.room)
            names = _participants(http, room["id"])
            rows = _messages(http, room["id"])
            seen = {row.id for row in rows}
            print(f'room "{room.get("title")}" ({room["id"]}); Ctrl-C stops', flush=True)
            for row in rows[-args.last :] if args.last else []:
                print(f"{clock.stamp()} {render(row, names)}", flush=True)
            while True:
                time.sleep(POLL_S)
                for row in _messages(http, room["id"]):
                    if row.id not in seen:
                        seen.add(row.id)
                        if row.sender_id and row.sender_id not in names:
                            names.update(_participants(http, room["id"]))
                        print(f"{clock.stamp()} {render(row, names)}", flush=True)
    except CommandError as exc:
        return fail(exc)
    except KeyboardInterrupt:
        return 0


def _wait(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text}")
    return value


def add_rooms(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``band rooms``, ``band room create``, ``band send`` and ``band tail``."""
    rooms = sub.add_parser(
        "rooms",
        help="list your rooms",
        description="List the local person's rooms: id, title and the agents in each.",
    )
    add_platform_options(rooms)
    rooms.set_defaults(func=_rooms_cmd)

    room = sub.add_parser("room", help="create rooms", description="Manage rooms.")
    room_sub = room.add_subparsers(dest="room_command", required=True, metavar="COMMAND")
    create = room_sub.add_parser(
        "create",
        help="create a room (optionally with agents in it)",
        description="Create a room as the local person; prints its id and web room view.",
    )
    create.add_argument("title", metavar="TITLE", help="the room's title")
    create.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME",
        help="add one of your agents (name, handle or id; repeatable; default: none)",
    )
    add_platform_options(create)
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
    send.add_argument("room", metavar="ROOM", help="the room's id or title")
    send.add_argument("text", metavar="TEXT", help="the message")
    send.add_argument(
        "--mention",
        "-m",
        action="append",
        default=[],
        metavar="AGENT",
        help="an agent to mention (name, handle or id; repeatable; default: none)",
    )
    send.add_argument(
        "--wait",
        type=_wait,
        default=DEFAULT_WAIT,
        help="seconds to wait for the answers; 0 does not wait (default: %(default)g)",
    )
    add_platform_options(send)
    send.set_defaults(func=_send)

    tail = sub.add_parser(
        "tail",
        help="print a room's messages as they arrive",
        description="Print ROOM's last messages and events, then each new one until Ctrl-C.",
    )
    tail.add_argument("room", metavar="ROOM", help="the room's id or title")
    tail.add_argument(
        "--last", type=int, default=20, help="how many earlier messages to show (default: 20)"
    )
    add_platform_options(tail)
    tail.set_defaults(func=_tail)
