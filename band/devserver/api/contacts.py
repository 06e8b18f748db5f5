"""Contact routes: agent ``/agent/contacts...`` and human ``/me/contacts...``.

Every change that concerns an agent is pushed on its ``agent_contacts:{agent_id}`` topic
(``contact_request_received``, ``contact_request_updated``, ``contact_added``,
``contact_removed``) after the write.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

import msgspec
from starlette.responses import Response

from band.core import wire
from band.core.wire import (
    AgentContact,
    JsonObject,
    ListAgentContactRequestsResponseData,
    ListAgentContactRequestsResponseMetadata,
    ListAgentContactRequestsResponseMetadataReceived,
    ListAgentContactRequestsResponseMetadataSent,
    ReceivedContactRequest,
    RemoveAgentContactResponseData,
    RespondToAgentContactRequestResponseData,
    SentContactRequest,
    WireModel,
)

from ..contract.bodies import (
    AddContactBody,
    ContactRequestBody,
    RemoveContactBody,
    ResolveBody,
    RespondBody,
)
from ..contract.queries import AgentRequestsQuery, PageQuery, SentRequestsQuery
from ..contract.views import Contact, ContactParty, ContactRequest, ContactUser, ResolvedHandle
from ..store import contacts as sc
from ..store.db import Store
from ..store.rows import ContactRecord, ContactRequestRecord, Entity
from . import writes
from .http import Ctx, Handler, data, named, offset_meta
from .operations import NO_BODY, Operation, declare

# -- shapes (spec 2.5) ---------------------------------------------------------


class _ReceivedRequest(ReceivedContactRequest, omit_defaults=True):
    """ReceivedContactRequest with its unknown (null) fields left out, as band dev sends it."""


class _SentRequest(SentContactRequest, omit_defaults=True):
    """SentContactRequest with its unknown (null) fields left out."""


class ContactAdded(WireModel):
    """The contact_added payload: the new contact (``description`` left out when null)."""

    id: str
    type: str
    inserted_at: datetime | None
    handle: str
    name: str
    is_external: bool = False
    is_remote: bool = False
    description: str | msgspec.UnsetType = msgspec.UNSET


S = TypeVar("S", bound=WireModel)

#: Builds a contact item from a contact row and whether the contact is online.
Shape = Callable[[ContactRecord, bool], WireModel]


def agent_contact(row: ContactRecord, online: bool) -> AgentContact:
    """AgentContact."""
    ent = row.entity
    return AgentContact(
        id=row.contact_id,
        handle=ent.handle if ent else None,
        type=row.contact_type if ent is None else ent.type,
        online=online,
        inserted_at=row.inserted_at,
        name=ent.name if ent else None,
        description=ent.description if ent else None,
        avatar_url=None,
        is_external=False,
        listed_in_directory=False,
        tags=[],
    )


def human_contact(row: ContactRecord, online: bool) -> Contact:
    """Contact (human view)."""
    ent = row.entity
    user = ContactUser(
        id=row.contact_id,
        name=ent.name if ent else None,
        handle=ent.handle if ent else None,
        email=ent.email if ent else None,
    )
    return Contact(
        id=row.id,
        contact_id=row.contact_id,
        contact_type=row.contact_type if ent is None else ent.type,
        online=online,
        inserted_at=row.inserted_at,
        user=user,
    )


def _party(pid: str, ent: Entity | None) -> ContactParty:
    return ContactParty(id=pid, name=ent.name if ent else None, handle=ent.handle if ent else None)


def contact_request(req: ContactRequestRecord) -> ContactRequest:
    """ContactRequest (human view)."""
    return req.as_wire(
        ContactRequest,
        requester=_party(req.requester_id, req.requester),
        recipient=_party(req.recipient_id, req.recipient),
    )


def _request_summary(req: ContactRequestRecord, party: Entity | None, kind: type[S]) -> S:
    """A request as one side lists it: the other ``party`` under ``kind``'s from_/to_ prefix."""
    prefix = "from" if issubclass(kind, ReceivedContactRequest) else "to"
    fields = {
        "id": req.id,
        "status": req.status,
        "inserted_at": req.inserted_at,
        "message": req.message,
        f"{prefix}_handle": party.handle if party else None,
        f"{prefix}_name": party.name if party else None,
    }
    return msgspec.convert(fields, kind)


def received_request(req: ContactRequestRecord) -> ReceivedContactRequest:
    """ReceivedContactRequest (also the contact_request_received payload, nulls left out)."""
    return _request_summary(req, req.requester, _ReceivedRequest)


def sent_request(req: ContactRequestRecord) -> SentContactRequest:
    """SentContactRequest (nulls left out)."""
    return _request_summary(req, req.recipient, _SentRequest)


def contact_added_payload(other: Entity, inserted_at: datetime) -> ContactAdded:
    """contact_added payload describing ``other``."""
    return ContactAdded(
        id=other.id,
        type=other.type,
        inserted_at=inserted_at,
        handle=other.handle,
        name=other.name,
        description=msgspec.UNSET if other.description is None else other.description,
    )


# -- pushes ---------------------------------------------------------------------


async def _to_agent(
    ctx: Ctx, pid: str, kind: str, event: str, payload: JsonObject | msgspec.Struct
) -> None:
    if kind == "Agent":
        await writes.push(ctx, f"agent_contacts:{pid}", event, payload)


async def push_request(ctx: Ctx, req: ContactRequestRecord, *, created: bool) -> None:
    """Push the events following a request write (created, approved, rejected, cancelled)."""
    requester, recipient = req.requester, req.recipient
    sides = [e for e in (requester, recipient) if e is not None]  # an identity gone hears nothing
    if created and req.status == "pending":
        if recipient is not None:
            received = received_request(req)
            await _to_agent(ctx, recipient.id, recipient.type, "contact_request_received", received)
        return
    update = RespondToAgentContactRequestResponseData(id=req.id, status=req.status)
    for ent in sides:
        await _to_agent(ctx, ent.id, ent.type, "contact_request_updated", update)
    if req.status == "approved" and requester is not None and recipient is not None:
        ts = req.responded_at or req.inserted_at
        added = contact_added_payload(recipient, ts)
        await _to_agent(ctx, requester.id, requester.type, "contact_added", added)
        added = contact_added_payload(requester, ts)
        await _to_agent(ctx, recipient.id, recipient.type, "contact_added", added)


async def push_removed(ctx: Ctx, me: Entity, other: tuple[str, str]) -> None:
    """Push contact_removed to each agent side (payload id = the other side's id)."""
    other_id, other_type = other
    await _to_agent(ctx, me.id, me.type, "contact_removed", {"id": other_id})
    await _to_agent(ctx, other_id, other_type, "contact_removed", {"id": me.id})


# -- shared operations -----------------------------------------------------------


async def _add(ctx: Ctx, handle: str, message: str | None) -> ContactRequestRecord:
    req = await ctx.db.run(sc.create_request, ctx.principal.id, handle, message)
    await push_request(ctx, req, created=True)
    return req


async def _remove(ctx: Ctx) -> Response:
    body = ctx.body(RemoveContactBody)
    other = await ctx.db.run(sc.remove_contact, ctx.principal.id, body.handle, body.contact_id)
    me = await ctx.db.run(Store.entity, ctx.principal.id)
    assert me is not None  # the principal was authenticated from its own row
    await push_removed(ctx, me, other)
    return data(RemoveAgentContactResponseData(status="removed"))


async def _respond(ctx: Ctx, action: str, handle: str | None, request_id: str | None) -> Response:
    req = await ctx.db.run(sc.respond, ctx.principal.id, action, handle, request_id)
    await push_request(ctx, req, created=False)
    return _id_status(req)


def _id_status(req: ContactRequestRecord) -> Response:
    return data(RespondToAgentContactRequestResponseData(id=req.id, status=req.status))


def _list_contacts(name: str, doc: str, shape: Shape) -> Handler:
    """A handler listing the principal's contacts (offset pages), each in ``shape``."""

    async def handler(ctx: Ctx) -> Response:
        page, size = ctx.query(PageQuery).window()
        rows, total = await ctx.db.run(sc.list_contacts, ctx.principal.id, page, size)
        items = [shape(r, ctx.fanout.online(r.contact_id)) for r in rows]
        return data(items, metadata=offset_meta(page, size, total))

    return named(handler, name, doc)


def _me_respond(name: str, doc: str, action: str) -> Handler:
    """A handler applying ``action`` to the request named in the path."""

    async def handler(ctx: Ctx) -> Response:
        return await _respond(ctx, action, None, ctx.params["request_id"])

    return named(handler, name, doc)


# -- agent API --------------------------------------------------------------------


agent_list_contacts = _list_contacts("agent_list_contacts", "GET /agent/contacts.", agent_contact)


async def agent_add_contact(ctx: Ctx) -> Response:
    """POST /agent/contacts/add (flat body ``{handle, message?}``)."""
    body = ctx.body(AddContactBody)
    return _id_status(await _add(ctx, body.handle, body.message))


async def agent_remove_contact(ctx: Ctx) -> Response:
    """POST /agent/contacts/remove (flat body ``{handle?, contact_id?}``)."""
    return await _remove(ctx)


async def agent_list_requests(ctx: Ctx) -> Response:
    """GET /agent/contacts/requests (received pending + sent filtered by ``sent_status``)."""
    q = ctx.query(AgentRequestsQuery)
    page, size, sent_status = q.page, q.page_size, q.sent_status
    pid = ctx.principal.id
    received, r_total = await ctx.db.run(sc.list_requests, pid, "received", "pending", page, size)
    sent, s_total = await ctx.db.run(sc.list_requests, pid, "sent", sent_status, page, size)
    meta = ListAgentContactRequestsResponseMetadata(
        page=page,
        page_size=size,
        received=ListAgentContactRequestsResponseMetadataReceived(
            total=r_total, total_pages=math.ceil(r_total / size)
        ),
        sent=ListAgentContactRequestsResponseMetadataSent(
            total=s_total, total_pages=math.ceil(s_total / size)
        ),
    )
    payload = ListAgentContactRequestsResponseData(
        received=[received_request(r) for r in received],
        sent=[sent_request(r) for r in sent],
    )
    return data(payload, metadata=meta)


async def agent_respond(ctx: Ctx) -> Response:
    """POST /agent/contacts/requests/respond (flat body ``{action, handle?, request_id?}``)."""
    body = ctx.body(RespondBody)
    return await _respond(ctx, body.action, body.handle, body.request_id)


# -- human API --------------------------------------------------------------------


me_list_contacts = _list_contacts("me_list_contacts", "GET /me/contacts.", human_contact)


async def me_create_request(ctx: Ctx) -> Response:
    """POST /me/contacts/requests (``{"contact_request": {recipient_handle, message?}}``)."""
    new = ctx.body(ContactRequestBody).contact_request
    req = await _add(ctx, new.recipient_handle, new.message)
    return data(contact_request(req), 201)


async def _me_requests(ctx: Ctx, box: str) -> Response:
    page, size = ctx.query(PageQuery).window()
    status = ctx.query(SentRequestsQuery).status if box == "sent" else "pending"
    rows, total = await ctx.db.run(sc.list_requests, ctx.principal.id, box, status, page, size)
    return data([contact_request(r) for r in rows], metadata=offset_meta(page, size, total))


async def me_list_received(ctx: Ctx) -> Response:
    """GET /me/contacts/requests (received, pending)."""
    return await _me_requests(ctx, "received")


async def me_list_sent(ctx: Ctx) -> Response:
    """GET /me/contacts/requests/sent (``status`` filter; all when omitted)."""
    return await _me_requests(ctx, "sent")


me_approve = _me_respond("me_approve", "POST /me/contacts/requests/{id}/approve.", "approve")
me_reject = _me_respond("me_reject", "POST /me/contacts/requests/{id}/reject.", "reject")
me_cancel = _me_respond("me_cancel", "DELETE /me/contacts/requests/{id}.", "cancel")


async def me_resolve(ctx: Ctx) -> Response:
    """POST /me/contacts/resolve (``{handle}``) -> ``{handle, name, type}``."""
    ent = await ctx.db.run(sc.resolve_handle, ctx.body(ResolveBody).handle)
    return data(ResolvedHandle(handle=ent.handle, name=ent.name, type=ent.type))


async def me_remove_contact(ctx: Ctx) -> Response:
    """POST /me/contacts/remove (``{contact_id?, handle?}``)."""
    return await _remove(ctx)


A = "/api/v1/agent/contacts"
H = "/api/v1/me/contacts"
routes = declare(
    Operation(
        "GET",
        A,
        agent_list_contacts,
        rule="self",
        answer=(200, list[wire.AgentContact]),
        query=PageQuery,
    ),
    Operation(
        "POST",
        A + "/add",
        agent_add_contact,
        rule="self",
        answer=(200, wire.AddAgentContactResponseData),
        body=AddContactBody,
    ),
    Operation(
        "POST",
        A + "/remove",
        agent_remove_contact,
        rule="self",
        answer=(200, wire.RemoveAgentContactResponseData),
        body=RemoveContactBody,
    ),
    Operation(
        "GET",
        A + "/requests",
        agent_list_requests,
        rule="self",
        answer=(200, wire.ListAgentContactRequestsResponseData),
        query=AgentRequestsQuery,
    ),
    Operation(
        "POST",
        A + "/requests/respond",
        agent_respond,
        rule="self",
        answer=(200, wire.RespondToAgentContactRequestResponseData),
        body=RespondBody,
    ),
    Operation(
        "GET", H, me_list_contacts, rule="self", answer=(200, list[Contact]), query=PageQuery
    ),
    Operation(
        "POST",
        H + "/requests",
        me_create_request,
        rule="self",
        answer=(201, ContactRequest),
        body=ContactRequestBody,
    ),
    Operation(
        "GET",
        H + "/requests",
        me_list_received,
        rule="self",
        answer=(200, list[ContactRequest]),
        query=PageQuery,
    ),
    Operation(
        "GET",
        H + "/requests/sent",
        me_list_sent,
        rule="self",
        answer=(200, list[ContactRequest]),
        query=SentRequestsQuery,
    ),
    Operation(
        "POST",
        H + "/requests/{request_id}/approve",
        me_approve,
        rule="self",
        answer=(200, wire.RespondToAgentContactRequestResponseData),
        body=NO_BODY,
    ),
    Operation(
        "POST",
        H + "/requests/{request_id}/reject",
        me_reject,
        rule="self",
        answer=(200, wire.RespondToAgentContactRequestResponseData),
        body=NO_BODY,
    ),
    Operation(
        "DELETE",
        H + "/requests/{request_id}",
        me_cancel,
        rule="self",
        answer=(200, wire.RespondToAgentContactRequestResponseData),
    ),
    Operation(
        "POST",
        H + "/resolve",
        me_resolve,
        rule="self",
        answer=(200, ResolvedHandle),
        body=ResolveBody,
    ),
    Operation(
        "POST",
        H + "/remove",
        me_remove_contact,
        rule="self",
        answer=(200, wire.RemoveAgentContactResponseData),
        body=RemoveContactBody,
    ),
)
