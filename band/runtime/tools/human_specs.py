"""The human-scope tools as ``ToolSpec`` values: a handler over the ``/me`` API per input model.

``TOOLS`` lists them in the order clients see them; ``HumanSurface`` runs them over one REST
client (band-mcp's human backend; ``band.runtime.tools.HumanTools`` adds a method per tool).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Any, TypeVar

from pydantic import BaseModel

from band.client.http11 import Primitive, QueryParams
from band.client.rest import RestClient, path
from band.core.types import Capability
from band.core.wire import ChatParticipantDetails, JsonValue
from band.runtime.tools.inputs.human import (
    AddMyChatParticipant,
    ApproveContactRequest,
    ArchiveUserMemory,
    CancelContactRequest,
    CreateContactRequest,
    CreateMyChatRoom,
    DeleteUserMemory,
    GetMyChatRoom,
    GetMyProfile,
    GetUserMemory,
    ListMyAgents,
    ListMyChatMessages,
    ListMyChatParticipants,
    ListMyChats,
    ListMyContacts,
    ListMyPeers,
    ListReceivedContactRequests,
    ListSentContactRequests,
    ListUserMemories,
    RegisterMyAgent,
    RejectContactRequest,
    RemoveMyChatParticipant,
    RemoveMyContact,
    ResolveHandle,
    RestoreUserMemory,
    SendMyChatMessage,
    SupersedeUserMemory,
    UpdateMyProfile,
)
from band.runtime.tools.ops import ToolContext
from band.runtime.tools.spec import Surface, ToolSpec, raw

__all__ = ["TOOLS", "HumanSurface"]


def _paging(args: BaseModel) -> dict[str, Primitive]:
    return {"page": getattr(args, "page", None), "page_size": getattr(args, "page_size", None)}


async def _body(
    ctx: ToolContext,
    method: str,
    url: str,
    *,
    params: QueryParams | None = None,
    json: JsonValue = None,
) -> JsonValue:
    return (await ctx.rest.request(method, url, params=params, json=json)).body


async def list_my_agents(ctx: ToolContext, a: ListMyAgents) -> JsonValue:
    """GET /me/agents."""
    return await _body(ctx, "GET", "me/agents", params=_paging(a))


async def register_my_agent(ctx: ToolContext, a: RegisterMyAgent) -> JsonValue:
    """POST /me/agents/register."""
    body = {"agent": {"name": a.name, "description": a.description}}
    return await _body(ctx, "POST", "me/agents/register", json=body)


async def list_my_chats(ctx: ToolContext, a: ListMyChats) -> JsonValue:
    """GET /me/chats."""
    return await _body(ctx, "GET", "me/chats", params=_paging(a))


async def create_my_chat_room(ctx: ToolContext, a: CreateMyChatRoom) -> JsonValue:
    """POST /me/chats."""
    chat = {"task_id": a.task_id} if a.task_id else {}
    return await _body(ctx, "POST", "me/chats", json={"chat": chat})


async def get_my_chat_room(ctx: ToolContext, a: GetMyChatRoom) -> JsonValue:
    """GET /me/chats/{id}."""
    return await _body(ctx, "GET", path("me/chats/{}", a.chat_id))


async def list_my_chat_messages(ctx: ToolContext, a: ListMyChatMessages) -> JsonValue:
    """GET /me/chats/{id}/messages."""
    params = {
        **_paging(a),
        "message_type": a.message_type,
        "since": a.since.isoformat() if a.since else None,
    }
    return await _body(ctx, "GET", path("me/chats/{}/messages", a.chat_id), params=params)


async def _participants(ctx: ToolContext, chat_id: str) -> list[ChatParticipantDetails]:
    """Every participant of the room, all pages."""
    out: list[ChatParticipantDetails] = []
    page = 1
    while True:
        resp = await ctx.rest.request(
            "GET",
            path("me/chats/{}/participants", chat_id),
            params={"page": page, "page_size": 100},
        )
        rows = resp.rows_as(ChatParticipantDetails)
        out.extend(rows)
        pages = resp.paging.total_pages
        if not rows or pages is None or page >= pages:
            return out
        page += 1


async def send_my_chat_message(ctx: ToolContext, a: SendMyChatMessage) -> JsonValue:
    """Resolve ``recipients`` by name, then POST /me/chats/{id}/messages."""
    names = [n.strip() for n in a.recipients.split(",") if n.strip()]
    if not names:
        return "Error: recipients cannot be empty"
    people = await _participants(ctx, a.chat_id)
    mentions: list[dict[str, str]] = []
    missing: list[str] = []
    for name in names:
        hit = _match(name, people)
        if hit is None:
            if name.lower() not in missing:
                missing.append(name.lower())
        elif all(m["id"] != hit.id for m in mentions):
            mentions.append({"id": str(hit.id), "name": hit.name or ""})
    if missing:
        available = ", ".join((p.name or "").lower() for p in people)
        return f"Error: Not found: {', '.join(missing)}. Available: {available}"
    body = {"message": {"content": a.content, "mentions": mentions}}
    return await _body(ctx, "POST", path("me/chats/{}/messages", a.chat_id), json=body)


async def list_my_chat_participants(ctx: ToolContext, a: ListMyChatParticipants) -> JsonValue:
    """GET /me/chats/{id}/participants."""
    params = {"participant_type": a.participant_type}
    return await _body(ctx, "GET", path("me/chats/{}/participants", a.chat_id), params=params)


async def add_my_chat_participant(ctx: ToolContext, a: AddMyChatParticipant) -> JsonValue:
    """POST /me/chats/{id}/participants."""
    # band-sdk's input model leaves the role unset: the room's default role, member
    body = {"participant": {"participant_id": a.participant_id, "role": a.role or "member"}}
    await _body(ctx, "POST", path("me/chats/{}/participants", a.chat_id), json=body)
    return f"Added participant: {a.participant_id}"


async def remove_my_chat_participant(ctx: ToolContext, a: RemoveMyChatParticipant) -> JsonValue:
    """DELETE /me/chats/{id}/participants/{participant_id}."""
    url = path("me/chats/{}/participants/{}", a.chat_id, a.participant_id)
    await _body(ctx, "DELETE", url)
    return f"Removed participant: {a.participant_id}"


async def get_my_profile(ctx: ToolContext, a: GetMyProfile) -> JsonValue:
    """GET /me/profile."""
    return await _body(ctx, "GET", "me/profile")


async def update_my_profile(ctx: ToolContext, a: UpdateMyProfile) -> JsonValue:
    """PUT /me/profile with only the fields given."""
    user = {k: v for k, v in a.model_dump().items() if v is not None}
    if not user:
        return "Error: At least one field (first_name or last_name) must be provided"
    return await _body(ctx, "PUT", "me/profile", json={"user": user})


async def list_my_peers(ctx: ToolContext, a: ListMyPeers) -> JsonValue:
    """GET /me/peers."""
    params = {"not_in_chat": a.not_in_chat, "type": a.peer_type, **_paging(a)}
    return await _body(ctx, "GET", "me/peers", params=params)


async def list_my_contacts(ctx: ToolContext, a: ListMyContacts) -> JsonValue:
    """GET /me/contacts."""
    return await _body(ctx, "GET", "me/contacts", params=_paging(a))


async def create_contact_request(ctx: ToolContext, a: CreateContactRequest) -> JsonValue:
    """POST /me/contacts/requests."""
    req: dict[str, str] = {"recipient_handle": a.recipient_handle}
    if a.message is not None:
        req["message"] = a.message
    return await _body(ctx, "POST", "me/contacts/requests", json={"contact_request": req})


async def list_received_contact_requests(
    ctx: ToolContext, a: ListReceivedContactRequests
) -> JsonValue:
    """GET /me/contacts/requests."""
    return await _body(ctx, "GET", "me/contacts/requests", params=_paging(a))


async def list_sent_contact_requests(ctx: ToolContext, a: ListSentContactRequests) -> JsonValue:
    """GET /me/contacts/requests/sent."""
    params = {"status": a.status, **_paging(a)}
    return await _body(ctx, "GET", "me/contacts/requests/sent", params=params)


async def resolve_handle(ctx: ToolContext, a: ResolveHandle) -> JsonValue:
    """POST /me/contacts/resolve."""
    return await _body(ctx, "POST", "me/contacts/resolve", json={"handle": a.handle})


async def remove_my_contact(ctx: ToolContext, a: RemoveMyContact) -> JsonValue:
    """POST /me/contacts/remove with the contact ID, else the handle."""
    if a.contact_id:
        body = {"contact_id": a.contact_id}
    elif a.handle:
        body = {"handle": a.handle}
    else:
        return "Error: Either contact_id or handle must be provided"
    return await _body(ctx, "POST", "me/contacts/remove", json=body)


async def list_user_memories(ctx: ToolContext, a: ListUserMemories) -> JsonValue:
    """GET /me/memories with the filters given."""
    params = {
        "chat_room_id": a.chat_room_id,
        "scope": a.scope,
        "system": a.system,
        "type": a.memory_type,
        "segment": a.segment,
        "content_query": a.content_query,
        "page_size": a.page_size,
        "status": a.status,
    }
    return await _body(ctx, "GET", "me/memories", params=params)


def _on_id(method: str, template: str) -> Callable[[ToolContext, BaseModel], Awaitable[JsonValue]]:
    """The handler that sends ``method`` to ``template``, its slot filled with the input's
    one field (the request's or memory's ID)."""

    async def run(ctx: ToolContext, a: BaseModel) -> JsonValue:
        return await _body(ctx, method, path(template, *a.model_dump().values()))

    return run


async def delete_user_memory(ctx: ToolContext, a: DeleteUserMemory) -> JsonValue:
    """DELETE /me/memories/{id}."""
    body = await _body(ctx, "DELETE", path("me/memories/{}", a.memory_id))
    return body if body is not None else f"Deleted memory: {a.memory_id}"


def _match(name: str, people: list[ChatParticipantDetails]) -> ChatParticipantDetails | None:
    """The participant whose name, username or first name equals ``name`` (case-insensitive)."""
    want = name.lower()
    for person in people:
        for value in (person.name, person.username, person.first_name):
            if value is not None and value.lower() == want:
                return person
    return None


I = TypeVar("I", bound=BaseModel)  # noqa: E741 -- the input model


def _human(
    name: str,
    model: type[I],
    run: Callable[[ToolContext, I], Awaitable[JsonValue]],
    group: Capability | None = None,
) -> ToolSpec[I, JsonValue]:
    """A human tool; it acts on one room when its model takes a ``chat_id``."""
    room_bound = "chat_id" in model.model_fields
    return ToolSpec(name, model, run, raw, group, surface=Surface.HUMAN, room_bound=room_bound)


_C, _M = Capability.CONTACTS, Capability.MEMORY

#: The human surface in the order tools are listed: 13 base tools, then contacts and memory.
#: Any: each spec has its own input model (``ToolSpec`` is invariant in it)
TOOLS: dict[str, ToolSpec[Any, Any]] = {
    s.name: s
    for s in (
        _human("band_list_my_agents", ListMyAgents, list_my_agents),
        _human("band_register_my_agent", RegisterMyAgent, register_my_agent),
        _human("band_list_my_chats", ListMyChats, list_my_chats),
        _human("band_create_my_chat_room", CreateMyChatRoom, create_my_chat_room),
        _human("band_get_my_chat_room", GetMyChatRoom, get_my_chat_room),
        _human("band_list_my_chat_messages", ListMyChatMessages, list_my_chat_messages),
        _human("band_send_my_chat_message", SendMyChatMessage, send_my_chat_message),
        _human("band_list_my_chat_participants", ListMyChatParticipants, list_my_chat_participants),
        _human("band_add_my_chat_participant", AddMyChatParticipant, add_my_chat_participant),
        _human(
            "band_remove_my_chat_participant", RemoveMyChatParticipant, remove_my_chat_participant
        ),
        _human("band_get_my_profile", GetMyProfile, get_my_profile),
        _human("band_update_my_profile", UpdateMyProfile, update_my_profile),
        _human("band_list_my_peers", ListMyPeers, list_my_peers),
        _human("band_list_my_contacts", ListMyContacts, list_my_contacts, _C),
        _human("band_create_contact_request", CreateContactRequest, create_contact_request, _C),
        _human(
            "band_list_received_contact_requests",
            ListReceivedContactRequests,
            list_received_contact_requests,
            _C,
        ),
        _human(
            "band_list_sent_contact_requests",
            ListSentContactRequests,
            list_sent_contact_requests,
            _C,
        ),
        _human(
            "band_approve_contact_request",
            ApproveContactRequest,
            _on_id("POST", "me/contacts/requests/{}/approve"),
            _C,
        ),
        _human(
            "band_reject_contact_request",
            RejectContactRequest,
            _on_id("POST", "me/contacts/requests/{}/reject"),
            _C,
        ),
        _human(
            "band_cancel_contact_request",
            CancelContactRequest,
            _on_id("DELETE", "me/contacts/requests/{}"),
            _C,
        ),
        _human("band_resolve_handle", ResolveHandle, resolve_handle, _C),
        _human("band_remove_my_contact", RemoveMyContact, remove_my_contact, _C),
        _human("band_list_user_memories", ListUserMemories, list_user_memories, _M),
        _human("band_get_user_memory", GetUserMemory, _on_id("GET", "me/memories/{}"), _M),
        _human(
            "band_supersede_user_memory",
            SupersedeUserMemory,
            _on_id("POST", "me/memories/{}/supersede"),
            _M,
        ),
        _human(
            "band_archive_user_memory",
            ArchiveUserMemory,
            _on_id("POST", "me/memories/{}/archive"),
            _M,
        ),
        _human(
            "band_restore_user_memory",
            RestoreUserMemory,
            _on_id("POST", "me/memories/{}/restore"),
            _M,
        ),
        _human("band_delete_user_memory", DeleteUserMemory, delete_user_memory, _M),
    )
}


class HumanSurface:
    """The human surface over one REST client (the user key's): every call runs on it."""

    def __init__(self, rest: RestClient) -> None:
        self.rest = rest
        self._ctx = ToolContext(rest)

    async def probe(self) -> object:
        """health_check: list my agents once (raises when the key does not work)."""
        return await _body(self._ctx, "GET", "me/agents", params={"page_size": 1})

    def specs(self, groups: Collection[Capability]) -> list[ToolSpec[Any, Any]]:
        """The 13 base tools plus those of the enabled groups."""
        return [s for s in TOOLS.values() if s.group is None or s.group in groups]

    async def run(
        self, spec: ToolSpec[Any, Any], args: BaseModel, room: str | None = None
    ) -> JsonValue:
        """Run one human tool (its room, if any, is its own ``chat_id`` argument)."""
        return await spec.run(self._ctx, args)
