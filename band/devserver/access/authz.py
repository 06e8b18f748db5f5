"""The authorization model of the local platform, enforced in one place.

Every REST operation names its rule in its one declaration (``api.operations``), which enters
it in ``POLICY`` ("METHOD /path" -> rule name); ``authorize`` applies the rule before any
handler runs (``http.endpoint`` calls it);
``topic_refusal`` is the same model for WebSocket joins. The model, written out as a table, is
``AUTHORIZATION.md`` beside this module: read it before changing a rule here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec
from starlette.requests import Request

from ..store.aio import AsyncStore
from ..store.db import Store, StoreError
from ..store.principal import Principal

#: Room roles from least to most privileged.
RANK = {"member": 1, "admin": 2, "owner": 3}
AGENT_TOPICS = ("agent_control", "agent_rooms", "agent_contacts")
ROOM_TOPICS = ("chat_room", "room_participants")

#: Rule of every REST operation ("METHOD /path" -> rule name), entered by each route's one
#: declaration (``api.operations.declare``). A route missing here is refused (and the app refuses
#: to start).
POLICY: dict[str, str] = {}


@dataclass(frozen=True)
class Call:
    """One authenticated REST call being authorized."""

    request: Request
    principal: Principal
    db: AsyncStore
    #: the path parameters (read only)
    params: dict[str, Any]


# -- store queries (run through AsyncStore, like store.files) -----------------


def room_creator(store: Store, rid: str) -> str | None:
    """The participant who created room ``rid`` (recorded by ``Store.create_room``)."""
    row = store.db.execute("SELECT creator_id FROM room_creators WHERE room_id=?", (rid,))
    found = row.fetchone()
    return found[0] if found else None


def addressed(store: Store, rid: str, mid: str, pid: str) -> bool:
    """Whether message ``mid`` of room ``rid`` mentions ``pid`` and was not sent by it."""
    found = store.addressees(mid)
    return (
        found is not None
        and found.room_id == rid
        and found.sender_id != pid
        and (pid in found.mentioned)
    )


# -- rules ---------------------------------------------------------------------


def _forbidden(message: str) -> StoreError:
    return StoreError(403, "forbidden", message)


async def _role(call: Call, rid: str) -> str:
    """The caller's role in ``rid``; 404 when it is not a member (a room it cannot see)."""
    role: str | None = await call.db.run(Store.role, rid, call.principal.id)
    room = await call.db.run(Store.room, rid) if role else None
    if role is None or room is None:
        raise StoreError(404, "not_found", "chat room not found")
    return role


async def _self(call: Call) -> None:
    """Acts only on the caller's own things: nothing to check beyond the key."""


async def _member(call: Call) -> None:
    await _role(call, call.params["chat_id"])


async def _rename(call: Call) -> None:
    if await _role(call, call.params["chat_id"]) != "owner":
        raise _forbidden("only the room's owner can rename it")


async def _control(call: Call) -> None:
    if await _role(call, call.params["chat_id"]) not in ("owner", "admin"):
        raise _forbidden("only an owner or admin can control agents in this room")


async def _body_role(request: Request) -> str | None:
    """The role an add-participant body asks for (None when absent or malformed: the handler
    answers those with 4xx); the default is member."""
    try:
        body = msgspec.json.decode(await request.body() or b"{}")
    except (msgspec.DecodeError, RecursionError):  # too deep: the handler answers 422
        return None
    part = body.get("participant") if isinstance(body, dict) else None
    role = part.get("role", "member") if isinstance(part, dict) else None
    return role if isinstance(role, str) and role in RANK else None


async def _add(call: Call) -> None:
    mine = await _role(call, call.params["chat_id"])
    wanted = await _body_role(call.request)
    if wanted is not None and RANK[wanted] > RANK[mine]:
        raise _forbidden(f"a room {mine} cannot add a participant as {wanted}")


async def _remove(call: Call) -> None:
    rid, target = call.params["chat_id"], call.params["pid"]
    mine = await _role(call, rid)
    if target == await call.db.run(room_creator, rid):
        raise _forbidden("the room's creator cannot be removed")
    if mine == "member":
        raise _forbidden("only an owner or admin can remove participants")
    theirs = await call.db.run(Store.role, rid, target)
    if mine == "admin" and theirs in ("owner", "admin") and target != call.principal.id:
        raise _forbidden("an admin can remove only members (or leave)")


async def _mark(call: Call) -> None:
    rid, mid = call.params["chat_id"], call.params["message_id"]
    await _role(call, rid)
    if not await call.db.run(addressed, rid, mid, call.principal.id):
        raise StoreError(404, "not_found", "message not found")


async def _peers(call: Call) -> None:
    rid = call.request.query_params.get("not_in_chat")
    if rid:
        await _role(call, rid)


async def _own_agent(call: Call) -> None:
    agent = await call.db.run(Store.agent, call.params["agent_id"])
    if agent is None or agent.owner_id != call.principal.id:
        raise StoreError(404, "not_found", "agent not found")


RULES: dict[str, Callable[[Call], Awaitable[None]]] = {
    "self": _self,
    "read": _member,
    "post": _member,
    "rename": _rename,
    "add": _add,
    "remove": _remove,
    "control": _control,
    "mark": _mark,
    "peers": _peers,
    "own_agent": _own_agent,
}


def operation(request: Request) -> str:
    """The ``POLICY`` key of a request: its method and its route's path template."""
    route = request.scope.get("route")
    method = "GET" if request.method == "HEAD" else request.method
    # not getattr's default: building ``request.url`` costs more than the rest of the check
    path = route.path if route is not None and hasattr(route, "path") else request.url.path
    return f"{method} {path}"


async def authorize(request: Request, kind: str, rule: str | None = None) -> Principal:
    """Authenticate the X-API-Key and apply the operation's rule; raise ``StoreError`` if refused.

    ``rule`` is the one its declaration entered in ``POLICY`` (looked up there when not given).
    401 for a missing or unknown key, 403 for the other kind of key or a refused act, 404 for a
    room (or agent, or message) the caller cannot see, so strangers learn nothing of its existence.
    """
    key = request.headers.get("x-api-key")
    db: AsyncStore = request.app.state.directory
    principal = await db.authenticate(key) if key else None
    if principal is None:
        raise StoreError(401, "unauthorized", "invalid or missing API key")
    if principal.kind != kind:
        raise _forbidden(f"this endpoint needs {'an agent' if kind == 'agent' else 'a user'} key")
    if rule is None:
        rule = POLICY.get(operation(request))
    if rule is None:  # fail closed: an operation nobody declared is nobody's
        raise _forbidden("operation not covered by the authorization model")
    await RULES[rule](Call(request, principal, db, request.path_params))
    return principal


def undeclared(operations: Iterable[str]) -> list[str]:
    """The API operations among ``operations`` that ``POLICY`` does not declare."""
    out = []
    for op in operations:
        method, path = op.split(" ", 1)
        declared = f"{'GET' if method == 'HEAD' else method} {path}" in POLICY
        if path.startswith("/api/v1/") and not declared:
            out.append(op)
    return out


async def topic_refusal(principal: Principal, topic: str, db: AsyncStore) -> str | None:
    """Return None when ``principal`` may join ``topic``, else the rejection reason."""
    kind, _, ident = topic.partition(":")
    if not ident:
        return "invalid topic"
    if kind in AGENT_TOPICS:
        return None if principal.kind == "agent" and ident == principal.id else "unauthorized"
    if kind == "tasks":  # task_created / task_updated of the principal's rooms
        return None if ident == principal.id else "unauthorized"
    if kind == "user_rooms":
        return None if principal.kind == "user" and ident == principal.id else "unauthorized"
    if kind in ROOM_TOPICS:
        role = await db.run(Store.role, ident, principal.id)
        return None if role is not None else "unauthorized"
    return "invalid topic"
