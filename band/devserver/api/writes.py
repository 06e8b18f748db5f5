"""Operations shared by the agent and human APIs: write to the store, then push (spec 4.5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from starlette.responses import Response

from band.core.wire import (
    JsonObject,
    MessageRow,
    MessageSentResponse,
    MessageSentResponseRecipientsItem,
    Participant,
    Task,
)

from ..contract import shapes
from ..contract.bodies import ChatBody, MessageBody, ParticipantBody
from ..contract.inputs import QueryModel
from ..store import delegation as store_delegation
from ..store import files as sf
from ..store.db import Store, StoreError
from ..store.rows import MessageRecord, RoomRow
from .http import Ctx, Handler, data
from .operations import Operation


async def push(
    ctx: Ctx, topic: str, event: str, payload: JsonObject | msgspec.Struct, **kw: Any
) -> None:
    """Log and push a server event."""
    await ctx.fanout.push(topic, event, await ctx.db.run(logged, topic, event, payload), **kw)


def logged(
    store: Store, topic: str, event: str, payload: JsonObject | msgspec.Struct
) -> msgspec.Raw:
    """Record a server event about to be pushed; return its JSON (encoded once, for the log
    and every socket)."""
    body = msgspec.Raw(msgspec.json.encode(payload))
    store.log_event(topic, event, body)
    return body


def log_message(store: Store, event: str, msg: MessageRecord) -> msgspec.Raw:
    """Record the ``event`` push of ``msg`` on its room's topic; return the push's JSON."""
    return logged(store, f"chat_room:{msg.room_id}", event, shapes.message(msg))


def message_logged(
    store: Store, event: str, write: Callable[[Store], MessageRecord]
) -> tuple[MessageRecord, msgspec.Raw]:
    """``write`` (it stores a message) and the ``event`` push recording the message as
    written, committed together (one commit, and never one without the other)."""
    with store.transaction():
        msg = write(store)
        return msg, log_message(store, event, msg)


async def create_room(ctx: Ctx) -> RoomRow:
    """Create a room owned by the caller; push room_added to the creator's rooms topic."""
    chat = ctx.body(ChatBody).chat
    room = await ctx.db.run(Store.create_room, ctx.principal, chat.title, chat.task_id)
    topic = _rooms_topic("Agent" if ctx.principal.kind == "agent" else "User", ctx.principal.id)
    await push(ctx, topic, "room_added", shapes.chat_room(room))
    return room


def _rooms_topic(kind: str, pid: str) -> str:
    """The topic announcing a participant's room membership (agent_rooms or user_rooms)."""
    return f"agent_rooms:{pid}" if kind == "Agent" else f"user_rooms:{pid}"


async def add_participant(ctx: Ctx) -> Response:
    """POST .../chats/{chat_id}/participants: add one, push participant_added / room_added."""
    rid = ctx.params["chat_id"]
    wanted = ctx.body(ParticipantBody).participant
    pid, role = wanted.participant_id, wanted.role
    room = await ctx.member_room(rid)
    part, added = await ctx.db.run(Store.add_participant, rid, ctx.principal.id, pid, role)
    payload = shapes.participant(part, ctx.fanout.online(pid))
    if added:
        await push(ctx, f"room_participants:{rid}", "participant_added", payload)
        await push(ctx, _rooms_topic(part.type, pid), "room_added", shapes.chat_room(room))
    return data(payload, 201)


async def remove_participant(ctx: Ctx) -> Response:
    """DELETE .../chats/{chat_id}/participants/{id}: remove one, push the removals.

    Who may is ``authz``'s "remove" rule. The removed participant's sockets leave the room's
    topics at once, server side; its last frame of the room is its own ``participant_removed``,
    then ``room_removed`` on its own rooms topic.
    """
    rid, pid = ctx.params["chat_id"], ctx.params["pid"]
    room = await ctx.member_room(rid)
    part = await ctx.db.run(Store.remove_participant, rid, pid)
    left = ctx.fanout.leave_room(rid, pid)  # before any await that could let a push through
    payload = shapes.participant(part)
    await push(ctx, f"room_participants:{rid}", "participant_removed", payload)
    await ctx.fanout.send_to(left, f"room_participants:{rid}", "participant_removed", payload)
    await push(ctx, _rooms_topic(part.type, pid), "room_removed", shapes.chat_room(room))
    return data(payload)


def participant_routes(room: str) -> tuple[Operation, Operation]:
    """Adding and removing participants of the room at path ``room``: the agent and the human
    API serve them alike, with the handlers above."""
    return (
        Operation(
            "POST",
            room + "/participants",
            add_participant,
            rule="add",
            answer=(201, Participant),
            body=ParticipantBody,
        ),
        Operation(
            "DELETE",
            room + "/participants/{pid}",
            remove_participant,
            rule="remove",
            answer=(200, Participant),
        ),
    )


def message_routes(
    room: str, read: Handler, query: type[QueryModel], post: Handler
) -> tuple[Operation, Operation]:
    """Reading (``read``, with the API's own ``query``) and posting (``post``) the messages of
    the room at path ``room``: the agent and the human API answer them with the same models."""
    return (
        Operation(
            "GET",
            room + "/messages",
            read,
            rule="read",
            answer=(200, list[MessageRow]),
            query=query,
        ),
        Operation(
            "POST",
            room + "/messages",
            post,
            rule="post",
            answer=(201, MessageSentResponse),
            body=MessageBody,
        ),
    )


async def post_message(ctx: Ctx, rid: str, *, require_mention: bool) -> MessageSentResponse:
    """Store a text message, then push message_created to mentioned agents and the sender."""
    message = ctx.body(MessageBody).message
    content = message.content
    mentions = [m.model_dump(exclude_none=True) for m in message.mentions]
    if require_mention and not mentions:
        raise StoreError(
            422, "validation_error", "at least one mention is required", {"mentions": ["empty"]}
        )
    attachment_ids = list(dict.fromkeys(message.attachment_ids))
    await ctx.member_room(rid)
    resolved = await ctx.db.run(Store.resolve_mentions, rid, mentions)
    known = await ctx.db.run(sf.room_file_ids, rid, attachment_ids)
    missing = [i for i in attachment_ids if i not in known]
    if missing:
        raise StoreError(
            422,
            "unknown_attachment",
            "attachment_ids names a file that is not in this chat room",
            {"attachment_ids": [f"unknown file {i}" for i in missing]},
        )
    addressed = [m for m in resolved if m["kind"] == "mention"]
    delegation = await ctx.db.run(
        store_delegation.envelope_for, ctx.principal, rid, [m["id"] for m in addressed]
    )
    msg, payload = await ctx.db.run(
        message_logged, "message_created", lambda store: store.create_message(
            rid, ctx.principal, content, "text", resolved, None, attachment_ids, delegation
        ),
    )  # fmt: skip
    # a reference (kind "reference") is shown on the message but is neither pushed to nor
    # counted as a recipient
    targets = frozenset({ctx.principal.id, *(m["id"] for m in addressed)})
    await ctx.fanout.push(f"chat_room:{rid}", "message_created", payload, agent_ids=targets)
    recipients = [
        MessageSentResponseRecipientsItem(id=m["id"], handle=m["handle"], name=m["name"])
        for m in addressed
        if m["id"] != ctx.principal.id
    ]
    return MessageSentResponse(id=msg.id, success=True, recipients=recipients)


async def push_task(ctx: Ctx, rid: str, event: str, task: Task) -> None:
    """Push ``task_created`` / ``task_updated`` on ``tasks:{id}`` of every room participant."""
    for part in await ctx.db.run(Store.participants, rid):
        await push(ctx, f"tasks:{part.id}", event, task)


async def push_update(ctx: Ctx, msg: MessageRecord, payload: msgspec.Raw) -> None:
    """Push message_updated (delivery status change, ``payload`` logged with it by
    ``message_logged``) to the agent concerned."""
    topic, targets = f"chat_room:{msg.room_id}", frozenset({ctx.principal.id})
    await ctx.fanout.push(topic, "message_updated", payload, agent_ids=targets)
