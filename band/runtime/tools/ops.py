"""One coroutine per platform tool: ``await op(ctx, args)`` with a validated input model.

``ToolContext`` binds the calls to an agent's REST client and, for room tools, a room. Every
function here raises on failure (typed REST errors, ``ValueError`` with the seed's messages,
``BandToolError`` subclasses) and never records turn effects: callers decide what a success
means for their turn. ``AgentTools`` and band-mcp both call these.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from band.client.errors import ForbiddenError, UnprocessableEntityError
from band.client.http11 import QueryParams
from band.client.rest import RestClient, RestResponse, path
from band.core.exceptions import (
    BandToolError,
    MessagePostError,
    MessagePostKind,
    RoomExecutionStoppedError,
)
from band.core.wire import JsonObject, JsonValue, Participant, Peer, decode_rows

from . import inputs as i
from . import landing
from .results import ParticipantAddStatus

log = logging.getLogger("band.tools")

#: Events above this many characters are refused by the platform: keep head and tail.
MAX_EVENT_CHARS = 16384
TRUNCATION_MARK = "\n... [truncated] ...\n"
#: Peer pages read while resolving ``band_add_participant`` (the runtime's room-listing cap).
MAX_PEER_PAGES = 50
#: Someone a tool can name: a room participant or a peer.
Who = TypeVar("Who", Participant, Peer)
ORG_SCOPE_ERROR = (
    'scope="organization" was rejected: the agent\'s owner does not belong to an organization. '
    'Retry with scope="agent" instead.'
)


@dataclass
class ToolContext:
    """What a tool call is bound to: the agent's REST client, its room, its participants.

    ``participants`` caches the room's participants for mention resolution; ``None`` means
    "not loaded yet" and the next call that needs them fetches them.
    """

    rest: RestClient
    room_id: str | None = None
    agent_id: str | None = None
    participants: list[JsonObject] | None = field(default=None)
    #: texts of the messages posted through this binding, answered or not (a lost answer
    #: may hide a written message: a replay looks for them before running the turn again)
    posted: list[str] = field(default_factory=list)
    #: the message the turn answers: a post whose answer was lost is looked for after it
    trigger_id: str | None = None
    #: when that message was written (its ``inserted_at``): where in the room to look from
    trigger_at: str | None = None
    #: (message_type, content) -> rows written through this binding, answers confirmed
    written: dict[tuple[str, str], int] = field(default_factory=dict)

    def room(self) -> str:
        """The bound room; tools that act on a room need one."""
        if not self.room_id:
            raise ValueError("this tool needs a room: no room_id is bound")
        return self.room_id

    def chat_path(self, suffix: str = "", *ids: str) -> str:
        """``/agent/chats/{room}`` plus ``suffix`` with its ``{}`` slots filled by ``ids``."""
        return path("/agent/chats/{}" + suffix, self.room(), *ids)


def require_data(resp: RestResponse, what: str) -> JsonValue:
    """The response's ``data``; an empty one raises ``Failed to <what> - no response data``."""
    data = resp.data
    if data is None or data == {} or data == []:
        raise RuntimeError(f"Failed to {what} - no response data")
    return data


def body_of(resp: RestResponse) -> JsonObject:
    """A list response as the tools return it: ``data`` and its pagination ``metadata``."""
    return {"data": resp.data if resp.data is not None else [], "metadata": resp.metadata}


def _stopped(exc: ForbiddenError) -> bool:
    return "execution is stopped" in exc.message.lower()


# --- participants and mentions ----------------------------------------------------------------


def bare(handle: str | None) -> str:
    """A handle without its leading ``@`` (empty for a missing handle)."""
    return handle[1:] if handle and handle.startswith("@") else (handle or "")


def find(people: Sequence[Who], identifier: str) -> Who | None:
    """The first of ``people`` ``identifier`` names (handle matches beat name, name beats ID)."""
    wanted = bare(identifier.strip()).lower()
    for key in ("handle", "name", "id"):
        for p in people:
            value = getattr(p, key)
            if value and bare(value).lower() == wanted:
                return p
    return None


def people(ctx: ToolContext) -> list[Participant]:
    """The cached participants, typed (the cache holds the dicts adapters see)."""
    return decode_rows(Participant, [p for p in ctx.participants or [] if isinstance(p, dict)])


def mention_handles(ctx: ToolContext) -> list[str]:
    """Handles the model may mention: everyone in the room but this agent."""
    return ["@" + bare(p.handle) for p in people(ctx) if p.handle and p.id != ctx.agent_id]


def resolve_mention(ctx: ToolContext, identifier: str | Mapping[str, str]) -> dict[str, str]:
    """Map one mention (exact ID, handle or name) to the ``{"id", "handle"}`` the platform takes.

    A legacy mention dict with an ``id`` is taken as it is; one without names its handle.
    """
    if type(identifier) is str and identifier:
        # an exact ID (what an adapter answering its sender passes, every message): its row
        # as cached, not every row decoded first
        for row in ctx.participants or ():
            if type(row) is dict and row.get("id") == identifier:
                handle = row.get("handle")
                if handle is None or type(handle) is str:
                    return {"id": identifier, "handle": handle or ""}
                break  # not a handle: decoded below, which says what is wrong with it
    present = people(ctx)
    if isinstance(identifier, Mapping):
        if identifier.get("id"):
            known = next((p for p in present if p.id == identifier["id"]), None)
            handle = identifier.get("handle") or (known.handle if known else None) or ""
            return {"id": str(identifier["id"]), "handle": str(handle)}
        identifier = str(identifier.get("handle") or identifier.get("name") or "")
    wanted = bare(identifier.strip())
    folded = wanted.lower()
    hit = (
        next((p for p in present if p.id == identifier), None)
        or next((p for p in present if p.handle and bare(p.handle).lower() == folded), None)
        or next((p for p in present if p.name == wanted), None)
        or next((p for p in present if p.name is not None and p.name.lower() == folded), None)
    )
    if hit is None or not hit.id:
        raise ValueError(
            f"Unknown participant '{wanted}'. Available handles: {mention_handles(ctx)!r}"
        )
    return {"id": hit.id, "handle": hit.handle or ""}


def _resolve_all(
    ctx: ToolContext, mentions: Sequence[str | Mapping[str, str]]
) -> list[dict[str, str]]:
    resolved: list[dict[str, str]] = []
    for m in mentions:
        r = resolve_mention(ctx, m)
        if r not in resolved:
            resolved.append(r)
    return resolved


async def load_participants(ctx: ToolContext) -> list[JsonObject]:
    """Fetch the room's participants and refresh the cache (the rows as the platform sent them)."""
    resp = await ctx.rest.request("GET", ctx.chat_path("/participants"))
    rows = resp.data if isinstance(resp.data, list) else []
    ctx.participants = [dict(p) for p in rows if isinstance(p, dict)]
    return ctx.participants


async def resolved_mentions(
    ctx: ToolContext, mentions: Sequence[str | Mapping[str, str]]
) -> list[dict[str, str]]:
    """The platform's ``{"id", "handle"}`` for each mention; none at all is refused."""
    fresh = ctx.participants is None
    if fresh:
        await load_participants(ctx)
    if not mentions:
        handles = mention_handles(ctx)
        hint = (
            f". Available handles: {handles!r}. Use participant handles from the list."
            if handles
            else ""
        )
        raise BandToolError(f"At least one mention is required{hint}")
    try:
        return _resolve_all(ctx, mentions)
    except ValueError:
        if fresh:
            raise
        # the cached participants may predate someone's arrival: look once more
        await load_participants(ctx)
        return _resolve_all(ctx, mentions)


async def post_message(
    ctx: ToolContext,
    content: str,
    mentions: Sequence[str | Mapping[str, str]],
    attachment_ids: list[str] | None = None,
) -> JsonObject:
    """POST a text message mentioning ``mentions``; classify the platform's refusals."""
    resolved = await resolved_mentions(ctx, mentions)
    message: JsonObject = {"content": content, "mentions": resolved}
    if attachment_ids:  # never send null: the platform rejects it
        message["attachment_ids"] = list(attachment_ids)
    ctx.posted.append(content)
    try:
        answer = await _write(ctx, "/messages", {"message": message}, content, "text")
    except UnprocessableEntityError as exc:
        if exc.message == MessagePostKind.MENTION_NOT_IN_ROOM.value:
            raise MessagePostError.classified(
                MessagePostKind.MENTION_NOT_IN_ROOM, "mentioned participant is not in the room"
            ) from exc
        raise
    except ForbiddenError as exc:
        if _stopped(exc):
            raise RoomExecutionStoppedError(ctx.room()) from exc
        raise
    if isinstance(answer, landing.Landed):  # written; its receipt was lost on the way
        return {"id": answer.id, "success": True, "recipients": resolved}
    data = answer
    recipients = data.get("recipients")
    if not data.get("id") or not isinstance(recipients, list):
        raise MessagePostError.classified(
            MessagePostKind.UNCONFIRMED_RECIPIENT,
            "the platform accepted the message but its receipt is unreadable; do not resend",
        )
    for r in recipients:  # a loop, not ``any`` over a generator: this runs every reply
        if not isinstance(r, dict) or "handle" not in r:
            raise MessagePostError.classified(
                MessagePostKind.UNCONFIRMED_RECIPIENT,
                f"message {data['id']} was delivered; do not resend; "
                "the receipt does not confirm its recipients",
            )
    return dict(data)


def truncate_event(content: str, limit: int = MAX_EVENT_CHARS) -> str:
    """Keep an event within the platform's limit: its head and tail around a marker."""
    if len(content) <= limit:
        return content
    keep = limit - len(TRUNCATION_MARK)
    head = keep // 2
    return content[:head] + TRUNCATION_MARK + content[len(content) - (keep - head) :]


async def post_event(
    ctx: ToolContext, content: str, message_type: str, metadata: JsonObject | None = None
) -> JsonObject:
    """POST an event of any type (no mentions); long content is truncated, not refused."""
    event: JsonObject = {"content": truncate_event(content), "message_type": message_type}
    if metadata is not None:
        event["metadata"] = metadata
    try:
        answer = await _write(ctx, "/events", {"event": event}, str(event["content"]), message_type)
    except ForbiddenError as exc:
        if _stopped(exc):
            raise RoomExecutionStoppedError(ctx.room()) from exc
        raise
    if isinstance(answer, landing.Landed):
        return {"id": answer.id, "success": True, "message_type": message_type}
    return answer


def _write(
    ctx: ToolContext, suffix: str, body: JsonObject, content: str, message_type: str
) -> Coroutine[Any, Any, JsonObject | landing.Landed]:
    """POST a message or event of the bound room, retried safely: ``landing.post_write``'s
    coroutine itself (no coroutine of ours around it, resumed with it)."""
    room = ctx.room_id or ctx.room()  # (``room()`` raises for an unbound context)
    return landing.post_write(
        ctx.rest,
        path("/agent/chats/{}" + suffix, room),
        body,
        room_id=room,
        agent_id=ctx.agent_id,
        trigger_id=ctx.trigger_id,
        trigger_at=ctx.trigger_at,
        content=content,
        message_type=message_type,
        written=ctx.written,
    )


# --- chat tools -------------------------------------------------------------------------------


# the two posting tools return their post's coroutine: no coroutine of their own around it


def send_message(ctx: ToolContext, args: i.SendMessageInput) -> Coroutine[Any, Any, JsonObject]:
    """band_send_message."""
    return post_message(ctx, args.content, args.mentions, args.attachment_ids)


def send_event(ctx: ToolContext, args: i.SendEventInput) -> Coroutine[Any, Any, JsonObject]:
    """band_send_event."""
    return post_event(ctx, args.content, args.message_type, args.metadata)


async def no_reply(ctx: ToolContext, args: i.NoReplyInput) -> JsonObject:
    """band_no_reply: nothing reaches the platform; the reason goes to the logs."""
    log.info("no reply in room %s: %s", ctx.room_id, args.reason or "(no reason given)")
    return {"status": "no_reply"}


async def add_participant(ctx: ToolContext, args: i.AddParticipantInput) -> JsonObject:
    """band_add_participant: resolve among participants, then peers, then add."""
    await load_participants(ctx)
    present = find(people(ctx), args.identifier)
    if present is not None:
        return {
            "id": present.id,
            "name": present.name,
            "role": present.role,
            "status": ParticipantAddStatus.ALREADY_IN_ROOM.value,
        }
    peer = None
    page = 1
    while peer is None and page <= MAX_PEER_PAGES:
        resp = await ctx.rest.request(
            "GET",
            "/agent/peers",
            params={"not_in_chat": ctx.room(), "page": page, "page_size": 100},
        )
        rows = resp.rows_as(Peer)
        peer = find(rows, args.identifier)
        total_pages = resp.paging.total_pages or 0
        if not rows or page >= total_pages:
            break
        page += 1
    if peer is None:
        raise ValueError(
            f"Participant '{args.identifier}' not found. "
            "Use band_lookup_peers to find available peers."
        )
    if not peer.id:
        raise ValueError(f"Participant '{args.identifier}' has no ID.")
    body = {"participant": {"participant_id": peer.id, "role": args.role}}
    resp = await ctx.rest.request("POST", ctx.chat_path("/participants"), json=body)
    added = resp.data if isinstance(resp.data, dict) else {}
    if ctx.participants is not None:
        ctx.participants.append({**peer.model_dump(exclude_none=True), **added})
    return {
        "id": peer.id,
        "name": peer.name,
        "role": args.role,
        "status": ParticipantAddStatus.ADDED.value,
    }


async def remove_participant(ctx: ToolContext, args: i.RemoveParticipantInput) -> JsonObject:
    """band_remove_participant."""
    await load_participants(ctx)
    hit = find(people(ctx), args.identifier)
    if hit is None:
        raise ValueError(f"Participant '{args.identifier}' not found in this room.")
    if not hit.id:
        raise ValueError(f"Participant '{args.identifier}' has no ID.")
    await ctx.rest.request("DELETE", ctx.chat_path("/participants/{}", hit.id))
    if ctx.participants is not None:
        ctx.participants = [p for p in ctx.participants if p.get("id") != hit.id]
    return {"id": hit.id, "name": hit.name, "status": "removed"}


async def get_participants(ctx: ToolContext, args: i.GetParticipantsInput) -> list[JsonObject]:
    """band_get_participants (also refreshes the mention cache)."""
    return [dict(p) for p in await load_participants(ctx)]


async def lookup_peers(ctx: ToolContext, args: i.LookupPeersInput) -> JsonObject:
    """band_lookup_peers: peers not in this room, one page."""
    params: QueryParams = {
        "not_in_chat": ctx.room(),
        "page": args.page,
        "page_size": args.page_size,
    }
    return body_of(await ctx.rest.request("GET", "/agent/peers", params=params))


async def create_chatroom(ctx: ToolContext, args: i.CreateChatroomInput) -> str:
    """band_create_chatroom: the new room's ID."""
    chat = {"task_id": args.task_id} if args.task_id is not None else {}
    resp = await ctx.rest.request("POST", "/agent/chats", json={"chat": chat})
    return str(require_data(resp, "create chat room")["id"])


# --- contact tools (agent-scoped) -------------------------------------------------------------


async def list_contacts(ctx: ToolContext, args: i.ListContactsInput) -> JsonObject:
    """band_list_contacts."""
    params = {"page": args.page, "page_size": args.page_size}
    return body_of(await ctx.rest.request("GET", "/agent/contacts", params=params))


async def add_contact(ctx: ToolContext, args: i.AddContactInput) -> JsonObject:
    """band_add_contact."""
    body = {"handle": args.handle}
    if args.message is not None:
        body["message"] = args.message
    resp = await ctx.rest.request("POST", "/agent/contacts/add", json=body)
    return dict(require_data(resp, "add contact"))


async def remove_contact(ctx: ToolContext, args: i.RemoveContactInput) -> JsonObject:
    """band_remove_contact (only the given keys are sent)."""
    if not args.handle and not args.contact_id:
        raise ValueError("Either handle or contact_id must be provided")
    body = {k: v for k, v in (("handle", args.handle), ("contact_id", args.contact_id)) if v}
    resp = await ctx.rest.request("POST", "/agent/contacts/remove", json=body)
    return dict(require_data(resp, "remove contact"))


async def list_contact_requests(ctx: ToolContext, args: i.ListContactRequestsInput) -> JsonObject:
    """band_list_contact_requests."""
    params = {"page": args.page, "page_size": args.page_size, "sent_status": args.sent_status}
    return body_of(await ctx.rest.request("GET", "/agent/contacts/requests", params=params))


async def respond_contact_request(
    ctx: ToolContext, args: i.RespondContactRequestInput
) -> JsonObject:
    """band_respond_contact_request."""
    if not args.handle and not args.request_id:
        raise ValueError("Either handle or request_id must be provided")
    body: dict[str, str] = {"action": args.action}
    if args.handle:
        body["handle"] = args.handle
    if args.request_id:
        body["request_id"] = args.request_id
    resp = await ctx.rest.request("POST", "/agent/contacts/requests/respond", json=body)
    return dict(require_data(resp, "respond to contact request"))


# --- memory tools (agent-scoped) --------------------------------------------------------------


async def list_memories(ctx: ToolContext, args: i.ListMemoriesInput) -> JsonObject:
    """band_list_memories: ``page_size`` plus the filters that are set."""
    params = args.model_dump(exclude_none=True)
    return body_of(await ctx.rest.request("GET", "/agent/memories", params=params))


async def store_memory(ctx: ToolContext, args: i.StoreMemoryInput) -> JsonObject:
    """band_store_memory."""
    memory = args.model_dump(exclude_none=True)
    try:
        resp = await ctx.rest.request("POST", "/agent/memories", json={"memory": memory})
    except UnprocessableEntityError as exc:
        if exc.code == "org_scope_requires_organization":
            raise ValueError(ORG_SCOPE_ERROR) from exc
        raise
    return dict(require_data(resp, "store memory"))


async def get_memory(ctx: ToolContext, args: i.GetMemoryInput) -> JsonObject:
    """band_get_memory."""
    resp = await ctx.rest.request("GET", path("/agent/memories/{}", args.memory_id))
    return dict(require_data(resp, "get memory"))


async def supersede_memory(ctx: ToolContext, args: i.SupersedeMemoryInput) -> JsonObject:
    """band_supersede_memory."""
    url = path("/agent/memories/{}/supersede", args.memory_id)
    return dict(require_data(await ctx.rest.request("POST", url), "supersede memory"))


async def archive_memory(ctx: ToolContext, args: i.ArchiveMemoryInput) -> JsonObject:
    """band_archive_memory."""
    url = path("/agent/memories/{}/archive", args.memory_id)
    return dict(require_data(await ctx.rest.request("POST", url), "archive memory"))


# --- task tools (room board) ------------------------------------------------------------------


async def list_tasks(ctx: ToolContext, args: i.ListTasksInput) -> JsonObject:
    """band_list_tasks."""
    params = args.model_dump(exclude_none=True)
    return body_of(await ctx.rest.request("GET", ctx.chat_path("/tasks"), params=params))


async def create_task(ctx: ToolContext, args: i.CreateTaskInput) -> JsonObject:
    """band_create_task."""
    body = args.model_dump(exclude_none=True)
    resp = await ctx.rest.request("POST", ctx.chat_path("/tasks"), json=body)
    return dict(require_data(resp, "create task"))


async def get_task(ctx: ToolContext, args: i.GetTaskInput) -> JsonObject:
    """band_get_task."""
    params = {"include": args.include}
    resp = await ctx.rest.request("GET", ctx.chat_path("/tasks/{}", args.id), params=params)
    return dict(require_data(resp, "get task"))


async def update_task(ctx: ToolContext, args: i.UpdateTaskInput) -> JsonObject:
    """band_update_task (POST with the fields that are set)."""
    body = args.model_dump(exclude_none=True, exclude={"id"})
    resp = await ctx.rest.request("POST", ctx.chat_path("/tasks/{}", args.id), json=body)
    return dict(require_data(resp, "update task"))


async def get_task_history(ctx: ToolContext, args: i.GetTaskHistoryInput) -> JsonObject:
    """band_get_task_history."""
    params = {"cursor": args.cursor, "limit": args.limit}
    url = ctx.chat_path("/tasks/{}/history", args.id)
    return body_of(await ctx.rest.request("GET", url, params=params))


async def get_board(ctx: ToolContext, args: i.GetBoardInput) -> JsonObject:
    """band_get_board."""
    resp = await ctx.rest.request("GET", ctx.chat_path("/board"), params={"include": args.include})
    return dict(require_data(resp, "get board"))


async def set_board(ctx: ToolContext, args: i.SetBoardInput) -> JsonObject:
    """band_set_board (PUT with the fields that are set)."""
    body = args.model_dump(exclude_none=True)
    resp = await ctx.rest.request("PUT", ctx.chat_path("/board"), json=body)
    return dict(require_data(resp, "set board"))
