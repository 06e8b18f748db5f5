"""Band's own generated REST client (band-client-rest 0.0.51) is the oracle for band dev.

Every operation of ``band_rest.RestClient`` and ``band_rest.AsyncRestClient`` is called
against a real ``band dev`` on 127.0.0.1: its typed result must parse (the client raises
``ParsingError`` or returns an unexpected type otherwise), and the documented error case of
each operation must raise the client's typed error. The operations are enumerated from the
clients themselves, so an operation added to the client without a case here fails
``test_every_operation_has_a_case``.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import typing
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import band_rest
import httpx
import pytest
from band_rest import (
    AsyncRestClient,
    ForbiddenError,
    NotFoundError,
    RangeNotSatisfiableError,
    RestClient,
    UnauthorizedError,
    UnprocessableEntityError,
)
from band_rest.core.api_error import ApiError
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from band.testing import AgentHandle, LocalBand, Person

MISSING = "00000000-0000-4000-8000-000000000000"
AUDIENCE = "6f1c1f64-9a54-4bd1-8c8e-2f0b1b7c0d11"
Client = RestClient | AsyncRestClient


def operations(cls: type[Any]) -> set[str]:
    """Every ``group.method`` operation of a band_rest client class."""
    client = cls(api_key="band_u_x", base_url="http://127.0.0.1:9")
    found = set()
    for group in dir(client):
        if group.startswith("_") or group == "with_raw_response":
            continue
        sub = getattr(client, group)
        for name in dir(sub):
            if name.startswith("_") or name == "with_raw_response":
                continue
            if callable(getattr(sub, name)):
                found.add(f"{group}.{name}")
    return found


STATUS: dict[type[ApiError], int] = {
    UnauthorizedError: 401,
    ForbiddenError: 403,
    NotFoundError: 404,
    RangeNotSatisfiableError: 416,
    UnprocessableEntityError: 422,
}


def documented(fn: Callable[..., Any]) -> dict[int, str]:
    """The error statuses an operation documents, and the error class each raises (read from
    the generated raw client, which maps each documented status to its class)."""
    group = fn.__self__  # type: ignore[attr-defined]
    raw = getattr(group._raw_client, fn.__name__)
    found = re.findall(r"status_code == (\d+):\s+raise (\w+)", inspect.getsource(raw))
    return {int(code): name for code, name in found}


class Spec:
    """band dev's ``/openapi.json``: checks a live answer against its operation's schema."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.registry: Registry[Any] = Registry().with_resource(
            "urn:band-dev", Resource.from_contents(doc, default_specification=DRAFT202012)
        )
        self.routes = [
            (re.compile("^" + re.sub(r"{\w+}", "[^/]+", path) + "$"), path) for path in doc["paths"]
        ]
        self.checked = 0

    def check(self, response: httpx.Response) -> None:
        """Validate ``response`` against the schema its operation declares for its status."""
        if response.status_code == 204:
            return  # no content (nothing pending)
        if not response.headers.get("content-type", "").startswith("application/json"):
            assert response.request.url.path.split("/")[-2] == "files", response.request.url
            return  # a file's bytes, in the file's own content type
        response.read()
        method, path = response.request.method.lower(), response.request.url.path
        # the most literal template that matches (``messages/next`` before ``messages/{id}``)
        found = sorted((t.count("{"), t) for rx, t in self.routes if rx.match(path))
        assert found, f"{method} {path} is not in /openapi.json"
        template = found[0][1]
        answers = self.doc["paths"][template][method]["responses"]
        status = str(response.status_code)
        declared = answers.get(status)
        assert declared is not None, (method, template, status, list(answers))
        if status == "204":
            return
        if "$ref" in declared:  # the error envelope
            pointer = "/components/responses/Error/content/application~1json/schema"
        else:
            escaped = template.replace("~", "~0").replace("/", "~1")
            pointer = (
                f"/paths/{escaped}/{method}/responses/{status}/content/application~1json/schema"
            )
        validator = Draft202012Validator(
            {"$ref": f"urn:band-dev#{pointer}"}, registry=self.registry
        )
        body = response.json()
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.path))
        assert not errors, (method, template, response.status_code, errors[0].message)
        self.checked += 1


@dataclass
class World:
    """One case's view of the platform, with clients of the chosen kind (sync or async)."""

    band: LocalBand
    kind: str
    spec: Spec
    clients: list[Client] = field(default_factory=list)
    typed: int = 0  # error answers that raised an operation's documented, typed error

    def client(self, key: str) -> Client:
        """A band_rest client of this world's kind for ``key``; every answer it gets is also
        checked against the response schemas of band dev's ``/openapi.json``."""
        made: Client
        if self.kind == "sync":
            sync = httpx.Client(timeout=30, event_hooks={"response": [self.spec.check]})
            made = RestClient(api_key=key, base_url=self.band.rest_url, httpx_client=sync)
        else:

            async def check(response: httpx.Response) -> None:
                await response.aread()
                self.spec.check(response)

            hooks = {"response": [check]}
            loose = httpx.AsyncClient(timeout=30, event_hooks=hooks)
            made = AsyncRestClient(api_key=key, base_url=self.band.rest_url, httpx_client=loose)
        self.clients.append(made)
        return made

    @property
    def me(self) -> Client:
        """The local person."""
        return self.client(self.band.me.api_key)

    def agent(self, name: str, owner: Person | None = None) -> tuple[AgentHandle, Client]:
        """A new agent (owned by the local person unless ``owner``) and its client."""
        handle = self.band.register_agent(name, owner=owner)
        return handle, self.client(handle.api_key)

    def person(self, name: str) -> tuple[Person, Client]:
        """A new person and their client."""
        p = self.band.person(name)
        return p, self.client(p.api_key)

    async def run(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        """Call an operation, awaiting it for the async client; check its declared type."""
        out = fn(*args, **kw)
        if inspect.isawaitable(out):
            out = await out
        hints = typing.get_type_hints(fn)
        expected = hints.get("return")
        if isinstance(expected, type) and issubclass(expected, band_rest.core.UniversalBaseModel):
            assert isinstance(out, expected), (fn.__qualname__, type(out))
        return out

    async def fails(
        self, error: type[ApiError], fn: Callable[..., Any], /, *a: Any, **kw: Any
    ) -> Any:
        """Assert the operation answers ``error``'s status in Band's error envelope: as the
        typed ``error`` where the operation documents that status, else as the client's
        generic ``ApiError`` (it has no class for an undocumented status)."""
        status = STATUS[error]
        typed = documented(fn).get(status) == error.__name__
        with pytest.raises(ApiError) as info:
            await self.run(fn, *a, **kw)
        got = info.value
        assert got.status_code == status, (fn.__qualname__, got.status_code, got.body)
        assert type(got) is (error if typed else ApiError), (fn.__qualname__, type(got))
        body = got.body.model_dump() if hasattr(got.body, "model_dump") else got.body
        if status == 416:  # the contract's 416 body is a JSON string, not the envelope
            assert isinstance(body, str) and body, got.body
        else:
            assert body["error"]["code"] and body["error"]["message"], got.body
        self.typed += typed
        return got

    async def room(self, *members: str, owner: Client | None = None) -> str:
        """A room created by ``owner`` (the local person) with ``members`` added."""
        who = owner or self.me
        if isinstance(who, AsyncRestClient):
            made = await who.human_api_chats.create_my_chat_room(chat={"title": "oracle"})
        else:
            made = who.human_api_chats.create_my_chat_room(chat={"title": "oracle"})
        rid = made.data.id
        for pid in members:
            await self.run(
                who.human_api_participants.add_my_chat_participant,
                rid,
                participant={"participant_id": pid},
            )
        return rid

    async def say(self, rid: str, text: str, *mention: str, who: Client | None = None) -> str:
        """Post ``text`` as a person mentioning ``mention``; return the message id."""
        sent = await self.run(
            (who or self.me).human_api_messages.send_my_chat_message,
            rid,
            message={"content": text, "mentions": [{"id": m} for m in mention]},
        )
        return str(sent.data.id)

    async def close(self) -> None:
        """Close every client made."""
        for c in self.clients:
            if isinstance(c, AsyncRestClient):
                await c._client_wrapper.httpx_client.httpx_client.aclose()
            else:
                c._client_wrapper.httpx_client.httpx_client.close()


Case = Callable[[World], Awaitable[None]]
CASES: dict[str, Case] = {}


def case(op: str) -> Callable[[Case], Case]:
    """Register the case of operation ``op``."""

    def mark(fn: Case) -> Case:
        assert op not in CASES, op
        CASES[op] = fn
        return fn

    return mark


# -- agent API: identity, rooms, messages --------------------------------------------


@case("agent_api_identity.get_agent_me")
async def _agent_me(w: World) -> None:
    a, ac = w.agent("Me")
    got = await w.run(ac.agent_api_identity.get_agent_me)
    assert got.data.id == a.id
    await w.fails(UnauthorizedError, w.client("band_a_nope").agent_api_identity.get_agent_me)


@case("agent_api_chats.create_agent_chat")
async def _create_agent_chat(w: World) -> None:
    _, ac = w.agent("Maker")
    got = await w.run(ac.agent_api_chats.create_agent_chat, chat={"title": "made"})
    assert got.data.title == "made"
    await w.fails(
        UnprocessableEntityError, ac.agent_api_chats.create_agent_chat, chat={"title": "x" * 121}
    )


@case("agent_api_chats.get_agent_chat")
async def _get_agent_chat(w: World) -> None:
    a, ac = w.agent("Getter")
    rid = await w.room(a.id)
    assert (await w.run(ac.agent_api_chats.get_agent_chat, rid)).data.id == rid
    await w.fails(NotFoundError, ac.agent_api_chats.get_agent_chat, MISSING)


@case("agent_api_chats.list_agent_chats")
async def _list_agent_chats(w: World) -> None:
    a, ac = w.agent("Lister")
    rid = await w.room(a.id)
    got = await w.run(ac.agent_api_chats.list_agent_chats, page=1, page_size=5)
    assert [r.id for r in got.data] == [rid]
    wide = await w.run(ac.agent_api_chats.list_agent_chats, include="participants")
    row = wide.data[0].model_dump()
    assert row["participant_count"] == 2 and len(row["participants"]) == 2
    assert row["participants_truncated"] is False
    await w.fails(UnprocessableEntityError, ac.agent_api_chats.list_agent_chats, page_size=1000)
    await w.fails(ForbiddenError, w.me.agent_api_chats.list_agent_chats)  # a user key


@case("agent_api_chats.rename_agent_chat")
async def _rename_agent_chat(w: World) -> None:
    _, ac = w.agent("Renamer")
    rid = (await w.run(ac.agent_api_chats.create_agent_chat, chat={"title": "a"})).data.id
    got = await w.run(ac.agent_api_chats.rename_agent_chat, rid, chat={"title": "b"})
    assert got.data.title == "b"
    await w.fails(
        UnprocessableEntityError,
        ac.agent_api_chats.rename_agent_chat,
        rid,
        chat={"title": "bad\x07title"},
    )
    await w.fails(NotFoundError, ac.agent_api_chats.rename_agent_chat, MISSING, chat={"title": "b"})


@case("agent_api_messages.create_agent_chat_message")
async def _create_agent_message(w: World) -> None:
    a, ac = w.agent("Poster")
    b, _ = w.agent("Heard")
    rid = await w.room(a.id, b.id)
    got = await w.run(
        ac.agent_api_messages.create_agent_chat_message,
        rid,
        message={"content": "hi", "mentions": [{"id": b.id}]},
    )
    assert [r.id for r in got.data.recipients] == [b.id]
    # a reference is kept on the message but is no recipient
    ref = await w.run(
        ac.agent_api_messages.create_agent_chat_message,
        rid,
        message={
            "content": "about",
            "mentions": [{"id": b.id, "kind": "reference"}, {"id": w.band.me.id}],
        },
    )
    assert [r.id for r in ref.data.recipients] == [w.band.me.id]
    for kind in ("bogus", None):
        await w.fails(
            UnprocessableEntityError,
            ac.agent_api_messages.create_agent_chat_message,
            rid,
            message={"content": "x", "mentions": [{"id": b.id, "kind": kind}]},
        )
    await w.fails(
        NotFoundError,
        ac.agent_api_messages.create_agent_chat_message,
        MISSING,
        message={"content": "x", "mentions": [{"id": b.id}]},
    )


@case("agent_api_messages.list_agent_messages")
async def _list_agent_messages(w: World) -> None:
    a, ac = w.agent("Reader")
    rid = await w.room(a.id)
    mid = await w.say(rid, "one", a.id)
    got = await w.run(
        ac.agent_api_messages.list_agent_messages, rid, status="pending", sort_order="desc", limit=5
    )
    assert [m.id for m in got.data] == [mid]
    await w.fails(NotFoundError, ac.agent_api_messages.list_agent_messages, MISSING)
    await w.fails(
        UnprocessableEntityError, ac.agent_api_messages.list_agent_messages, rid, status="bogus"
    )


@case("agent_api_messages.get_agent_next_message")
async def _next_message(w: World) -> None:
    a, ac = w.agent("Nexter")
    rid = await w.room(a.id)
    assert await w.run(ac.agent_api_messages.get_agent_next_message, rid) is None
    # a reference is not delivered: it never shows in /next
    await w.run(
        w.me.human_api_messages.send_my_chat_message,
        rid,
        message={"content": "about", "mentions": [{"id": a.id, "kind": "reference"}]},
    )
    assert await w.run(ac.agent_api_messages.get_agent_next_message, rid) is None
    mid = await w.say(rid, "do", a.id)
    got = await w.run(ac.agent_api_messages.get_agent_next_message, rid)
    assert got is not None and got.data.id == mid
    await w.fails(NotFoundError, ac.agent_api_messages.get_agent_next_message, MISSING)


async def _delivered(w: World, name: str) -> tuple[Client, str, str]:
    a, ac = w.agent(name)
    rid = await w.room(a.id)
    return ac, rid, await w.say(rid, "work", a.id)


def _marks_delivery(op: str, status: str, name: str, **kw: str) -> None:
    """Register the case of ``op``, which moves a delivered message to ``status`` (a processed or
    failed mark after the processing one)."""

    @case(f"agent_api_messages.{op}")
    async def _mark(w: World) -> None:
        ac, rid, mid = await _delivered(w, name)
        if status != "processing":
            await w.run(ac.agent_api_messages.mark_agent_message_processing, rid, mid)
        mark = getattr(ac.agent_api_messages, op)
        got = await w.run(mark, rid, mid, **kw)
        assert got is not None and got.data.status == status
        await w.fails(NotFoundError, mark, rid, MISSING, **kw)


_marks_delivery("mark_agent_message_processing", "processing", "Worker")
_marks_delivery("mark_agent_message_processed", "processed", "Finisher")
_marks_delivery("mark_agent_message_failed", "failed", "Failer", error="boom")


@case("agent_api_events.create_agent_chat_event")
async def _event(w: World) -> None:
    a, ac = w.agent("Eventer")
    rid = await w.room(a.id)
    got = await w.run(
        ac.agent_api_events.create_agent_chat_event,
        rid,
        event={"content": "thinking", "message_type": "thought"},
    )
    assert got.data.message_type == "thought"
    await w.fails(
        UnprocessableEntityError,
        ac.agent_api_events.create_agent_chat_event,
        rid,
        event={"content": "x", "message_type": "bogus"},
    )


@case("agent_api_context.get_agent_chat_context")
async def _context(w: World) -> None:
    a, ac = w.agent("Contexter")
    rid = await w.room(a.id)
    mid = await w.say(rid, "ctx", a.id)
    got = await w.run(ac.agent_api_context.get_agent_chat_context, rid, limit=10)
    assert [m.id for m in got.data] == [mid]
    await w.fails(NotFoundError, ac.agent_api_context.get_agent_chat_context, MISSING)


@case("agent_api_activity.report_agent_chat_activity")
async def _activity(w: World) -> None:
    a, ac = w.agent("Busy")
    rid = await w.room(a.id)
    got = await w.run(
        ac.agent_api_activity.report_agent_chat_activity,
        rid,
        working=True,
        activity={"kind": "reasoning"},
    )
    assert got.data is not None
    await w.fails(
        NotFoundError, ac.agent_api_activity.report_agent_chat_activity, MISSING, working=False
    )


# -- agent API: participants, peers, contacts ---------------------------------------------


@case("agent_api_participants.list_agent_chat_participants")
async def _agent_participants(w: World) -> None:
    a, ac = w.agent("Roster")
    rid = await w.room(a.id)
    got = await w.run(ac.agent_api_participants.list_agent_chat_participants, rid)
    assert {p.id for p in got.data} == {a.id, w.band.me.id}
    await w.fails(NotFoundError, ac.agent_api_participants.list_agent_chat_participants, MISSING)


@case("agent_api_participants.add_agent_chat_participant")
async def _agent_add(w: World) -> None:
    a, ac = w.agent("Adder")
    b, _ = w.agent("Added")
    rid = await w.room(a.id)
    got = await w.run(
        ac.agent_api_participants.add_agent_chat_participant,
        rid,
        participant={"participant_id": b.id},
    )
    assert got.data.id == b.id
    stranger, _ = w.person("Stranger")
    await w.fails(
        ForbiddenError,
        ac.agent_api_participants.add_agent_chat_participant,
        rid,
        participant={"participant_id": stranger.id},
    )


@case("agent_api_participants.remove_agent_chat_participant")
async def _agent_remove(w: World) -> None:
    _a, ac = w.agent("Remover")
    b, _ = w.agent("Removed")
    rid = (await w.run(ac.agent_api_chats.create_agent_chat, chat={"title": "r"})).data.id
    await w.run(
        ac.agent_api_participants.add_agent_chat_participant,
        rid,
        participant={"participant_id": b.id},
    )
    got = await w.run(ac.agent_api_participants.remove_agent_chat_participant, rid, b.id)
    assert got.data.id == b.id
    await w.fails(
        NotFoundError, ac.agent_api_participants.remove_agent_chat_participant, rid, MISSING
    )


@case("agent_api_peers.list_agent_peers")
async def _agent_peers(w: World) -> None:
    _a, ac = w.agent("Peerer")
    got = await w.run(ac.agent_api_peers.list_agent_peers, page=1, page_size=100)
    ids = {p.id: p for p in got.data}
    assert w.band.me.id in ids
    await w.fails(NotFoundError, ac.agent_api_peers.list_agent_peers, not_in_chat=MISSING)
    await w.fails(ForbiddenError, w.me.agent_api_peers.list_agent_peers)  # a user key


async def _agents_in_contact(w: World) -> tuple[AgentHandle, Client, AgentHandle, Client]:
    p, _ = w.person("Other Owner")
    a, ac = w.agent("Asker")
    b, bc = w.agent("Answerer", owner=p)
    await w.run(ac.agent_api_contacts.add_agent_contact, handle="@" + b.handle, message="hi")
    return a, ac, b, bc


@case("agent_api_contacts.add_agent_contact")
async def _agent_add_contact(w: World) -> None:
    p, _ = w.person("Far")
    _, ac = w.agent("Friendly")
    b, _ = w.agent("Far Agent", owner=p)
    got = await w.run(ac.agent_api_contacts.add_agent_contact, handle="@" + b.handle)
    assert got.data.status == "pending"
    await w.fails(NotFoundError, ac.agent_api_contacts.add_agent_contact, handle="@nobody-here")


@case("agent_api_contacts.list_agent_contact_requests")
async def _agent_requests(w: World) -> None:
    a, _ac, _b, bc = await _agents_in_contact(w)
    got = await w.run(bc.agent_api_contacts.list_agent_contact_requests, page=1, page_size=10)
    assert [r.from_handle for r in got.data.received] == [a.handle]
    await w.fails(
        UnprocessableEntityError,
        bc.agent_api_contacts.list_agent_contact_requests,
        sent_status="bogus",
    )
    await w.fails(
        UnauthorizedError, w.client("band_a_nope").agent_api_contacts.list_agent_contact_requests
    )


@case("agent_api_contacts.respond_to_agent_contact_request")
async def _agent_respond(w: World) -> None:
    a, _ac, _b, bc = await _agents_in_contact(w)
    got = await w.run(
        bc.agent_api_contacts.respond_to_agent_contact_request, action="approve", handle=a.handle
    )
    assert got.data.status == "approved"
    await w.fails(
        NotFoundError,
        bc.agent_api_contacts.respond_to_agent_contact_request,
        action="approve",
        request_id=MISSING,
    )


@case("agent_api_contacts.list_agent_contacts")
async def _agent_contacts(w: World) -> None:
    a, ac, b, bc = await _agents_in_contact(w)
    await w.run(
        bc.agent_api_contacts.respond_to_agent_contact_request, action="approve", handle=a.handle
    )
    got = await w.run(ac.agent_api_contacts.list_agent_contacts, page=1, page_size=10)
    assert [c.id for c in got.data] == [b.id]
    await w.fails(UnprocessableEntityError, ac.agent_api_contacts.list_agent_contacts, page=0)
    await w.fails(UnauthorizedError, w.client("band_a_nope").agent_api_contacts.list_agent_contacts)


@case("agent_api_contacts.remove_agent_contact")
async def _agent_remove_contact(w: World) -> None:
    a, ac, b, bc = await _agents_in_contact(w)
    await w.run(
        bc.agent_api_contacts.respond_to_agent_contact_request, action="approve", handle=a.handle
    )
    got = await w.run(ac.agent_api_contacts.remove_agent_contact, handle=b.handle)
    assert got.data is not None
    await w.fails(NotFoundError, ac.agent_api_contacts.remove_agent_contact, contact_id=MISSING)


# -- agent API: tasks and board ------------------------------------------------------------


async def _task(w: World, name: str) -> tuple[Client, str, str]:
    a, ac = w.agent(name)
    rid = await w.room(a.id)
    made = await w.run(ac.agent_api_chat_tasks.create_chat_task, rid, subject="do it")
    return ac, rid, made.data.id


@case("agent_api_chat_tasks.create_chat_task")
async def _create_task(w: World) -> None:
    ac, rid, _tid = await _task(w, "Tasker")
    await w.fails(
        UnprocessableEntityError, ac.agent_api_chat_tasks.create_chat_task, rid, subject=""
    )
    await w.fails(NotFoundError, ac.agent_api_chat_tasks.create_chat_task, MISSING, subject="x")


@case("agent_api_chat_tasks.update_chat_task")
async def _update_task(w: World) -> None:
    ac, rid, tid = await _task(w, "Updater")
    started = await w.run(ac.agent_api_chat_tasks.update_chat_task, rid, tid, status="in_progress")
    assert started.data.started_at is not None and started.data.completed_at is None
    done = await w.run(ac.agent_api_chat_tasks.update_chat_task, rid, tid, status="completed")
    assert done.data.completed_at is not None and done.data.started_at == started.data.started_at
    await w.fails(UnprocessableEntityError, ac.agent_api_chat_tasks.update_chat_task, rid, tid)
    await w.fails(
        NotFoundError, ac.agent_api_chat_tasks.update_chat_task, rid, MISSING, status="completed"
    )


@case("agent_api_chat_tasks.get_chat_task")
async def _get_task(w: World) -> None:
    ac, rid, tid = await _task(w, "Peeker")
    got = await w.run(ac.agent_api_chat_tasks.get_chat_task, rid, tid, include="history")
    assert got.data.id == tid
    await w.fails(NotFoundError, ac.agent_api_chat_tasks.get_chat_task, rid, MISSING)


@case("agent_api_chat_tasks.list_chat_tasks")
async def _list_tasks(w: World) -> None:
    ac, rid, tid = await _task(w, "Listing")
    got = await w.run(ac.agent_api_chat_tasks.list_chat_tasks, rid, state="all", limit=5)
    assert [t.id for t in got.data] == [tid]
    await w.fails(
        UnprocessableEntityError, ac.agent_api_chat_tasks.list_chat_tasks, rid, state="bogus"
    )


@case("agent_api_chat_tasks.get_chat_task_history")
async def _task_history(w: World) -> None:
    ac, rid, tid = await _task(w, "Historian")
    got = await w.run(ac.agent_api_chat_tasks.get_chat_task_history, rid, tid, limit=5)
    assert got.data
    await w.fails(NotFoundError, ac.agent_api_chat_tasks.get_chat_task_history, rid, MISSING)


@case("agent_api_chat_tasks.get_chat_board")
async def _get_board(w: World) -> None:
    ac, rid, _ = await _task(w, "Boarder")
    got = await w.run(ac.agent_api_chat_tasks.get_chat_board, rid, include="history")
    assert got.data is not None
    await w.fails(NotFoundError, ac.agent_api_chat_tasks.get_chat_board, MISSING)


@case("agent_api_chat_tasks.put_chat_board")
async def _put_board(w: World) -> None:
    ac, rid, _ = await _task(w, "Goaler")
    got = await w.run(
        ac.agent_api_chat_tasks.put_chat_board, rid, goal_title="Ship", goal_summary="it"
    )
    assert got.data.goal_title == "Ship"
    await w.fails(NotFoundError, ac.agent_api_chat_tasks.put_chat_board, MISSING, goal_title="x")


# -- agent API: files, memories, delegation --------------------------------------------------


async def _upload_text(w: World, ac: Client, rid: str, data: bytes) -> Any:
    """Upload ``data`` as the text file a.txt into room ``rid``."""
    return await w.run(
        ac.agent_api_files.upload_agent_chat_file,
        rid,
        request=data,
        request_options={
            "additional_headers": {"x-file-name": "a.txt", "content-type": "text/plain"}
        },
    )


@case("agent_api_files.upload_agent_chat_file")
async def _upload(w: World) -> None:
    a, ac = w.agent("Uploader")
    rid = await w.room(a.id)
    got = await _upload_text(w, ac, rid, b"abc")
    assert got.data.id
    await w.fails(
        NotFoundError,
        ac.agent_api_files.upload_agent_chat_file,
        MISSING,
        request=b"abc",
        request_options={"additional_headers": {"x-file-name": "a.txt"}},
    )


@case("agent_api_files.download_agent_chat_file")
async def _download(w: World) -> None:
    a, ac = w.agent("Downloader")
    rid = await w.room(a.id)
    fid = (await _upload_text(w, ac, rid, b"abcdef")).data.id

    async def read(**kw: Any) -> bytes:
        out = ac.agent_api_files.download_agent_chat_file(rid, fid, **kw)
        if isinstance(ac, AsyncRestClient):
            return b"".join([chunk async for chunk in out])  # type: ignore[union-attr]
        return b"".join(out)  # type: ignore[arg-type]

    assert await read() == b"abcdef"
    assert await read(range="bytes=1-2") == b"bc"
    with pytest.raises(RangeNotSatisfiableError) as refused:
        await read(range="bytes=100-200")
    assert refused.value.headers["content-range"] == "bytes */6" and refused.value.body
    with pytest.raises(NotFoundError):
        out = ac.agent_api_files.download_agent_chat_file(rid, MISSING)
        if isinstance(ac, AsyncRestClient):
            [c async for c in out]  # type: ignore[union-attr]
        else:
            list(out)  # type: ignore[arg-type]
    w.typed += 1


MEMORY = {
    "content": "likes tea",
    "thought": "noted",
    "system": "long_term",
    "type": "semantic",
    "segment": "user",
}


async def _memory(w: World, name: str, **extra: Any) -> tuple[AgentHandle, Client, str]:
    a, ac = w.agent(name)
    made = await w.run(ac.agent_api_memories.create_agent_memory, memory={**MEMORY, **extra})
    return a, ac, made.data.id


@case("agent_api_memories.create_agent_memory")
async def _create_memory(w: World) -> None:
    _a, ac, _mid = await _memory(w, "Rememberer")
    await w.fails(
        UnprocessableEntityError,
        ac.agent_api_memories.create_agent_memory,
        memory={**MEMORY, "system": "bogus"},
    )
    # a subject memory about a person the agent shares nothing with is refused
    stranger, _ = w.person("Unknown Person")
    await w.fails(
        ForbiddenError,
        ac.agent_api_memories.create_agent_memory,
        memory={**MEMORY, "scope": "subject", "subject_id": stranger.id},
    )


@case("agent_api_memories.get_agent_memory")
async def _get_memory(w: World) -> None:
    _, ac, mid = await _memory(w, "Recaller")
    assert (await w.run(ac.agent_api_memories.get_agent_memory, mid)).data.id == mid
    await w.fails(NotFoundError, ac.agent_api_memories.get_agent_memory, MISSING)


@case("agent_api_memories.list_agent_memories")
async def _list_memories(w: World) -> None:
    _, ac, mid = await _memory(w, "Archivist")
    got = await w.run(ac.agent_api_memories.list_agent_memories, system="long_term", limit=5)
    assert [m.id for m in got.data] == [mid]
    await w.fails(
        UnprocessableEntityError, ac.agent_api_memories.list_agent_memories, system="bogus"
    )


def _marks_memory(api: str, op: str, status: str, name: str) -> None:
    """Register the case of ``api.op``, which marks a memory ``status`` (an agent's own memory
    for the agent API, one kept about ``name`` for the human API)."""

    @case(f"{api}.{op}")
    async def _mark(w: World) -> None:
        if api == "agent_api_memories":
            _, client, mid = await _memory(w, name)
        else:
            client, mid = await _user_memory(w, name)
        mark = getattr(getattr(client, api), op)
        assert (await w.run(mark, mid)).data.status == status
        await w.fails(NotFoundError, mark, MISSING)


_marks_memory("agent_api_memories", "supersede_agent_memory", "superseded", "Superseder")
_marks_memory("agent_api_memories", "archive_agent_memory", "archived", "Archiver")


@case("agent_api_delegation.exchange_delegated_token")
async def _delegation(w: World) -> None:
    asker, askc = w.person("Asker Person")
    w.band.connect(w.band.me, asker)  # a contact, so the local person can add them
    a, ac = w.agent("Delegate")
    rid = await w.room(a.id, asker.id)
    # the asker does not own the agent: the message carries a delegation envelope
    mid = await w.say(rid, "read my mail", a.id, who=askc)
    # no consent yet: refused
    refused = await w.fails(
        ForbiddenError,
        ac.agent_api_delegation.exchange_delegated_token,
        audience=AUDIENCE,
        message_id=mid,
    )
    assert refused.body.error.code == "consent_required"
    r = asker.request(
        "POST",
        "/me/delegation/consents",
        json={"consent": {"agent_id": a.id, "audiences": [AUDIENCE]}},
    )
    assert r.status_code == 201, r.text
    got = await w.run(
        ac.agent_api_delegation.exchange_delegated_token, audience=AUDIENCE, message_id=mid
    )
    assert got.obo.originator_uuid == asker.id and got.obo.agent_uuid == a.id
    assert got.obo.audience == AUDIENCE and got.token_type == "bearer"
    await w.fails(
        NotFoundError,
        ac.agent_api_delegation.exchange_delegated_token,
        audience=AUDIENCE,
        message_id=MISSING,
    )
    await w.fails(
        UnprocessableEntityError,
        ac.agent_api_delegation.exchange_delegated_token,
        audience="",
        message_id=mid,
    )
    # the owner's own message crosses no boundary: no delegation to redeem
    own = await w.say(rid, "mine", a.id)
    nod = await w.fails(
        ForbiddenError,
        ac.agent_api_delegation.exchange_delegated_token,
        audience=AUDIENCE,
        message_id=own,
    )
    assert nod.body.error.code == "no_delegation"


# -- human API: agents, bulk deletions -------------------------------------------------------


@case("human_api_agents.register_my_agent")
async def _register(w: World) -> None:
    got = await w.run(
        w.me.human_api_agents.register_my_agent, agent={"name": "Fresh", "description": "new"}
    )
    assert got.data.agent.name == "Fresh" and got.data.credentials.api_key
    await w.fails(
        UnprocessableEntityError,
        w.me.human_api_agents.register_my_agent,
        agent={"name": "", "description": "x"},
    )


@case("human_api_agents.list_my_agents")
async def _list_my_agents(w: World) -> None:
    p, pc = w.person("Agent Keeper")
    for name in ("Zeta", "alpha", "Beta"):
        w.agent(name, owner=p)
    got = await w.run(pc.human_api_agents.list_my_agents, sort="name", order="asc", limit=2)
    assert [a.name for a in got.data] == ["alpha", "Beta"]
    assert got.metadata.has_more and got.metadata.next_cursor
    rest = await w.run(
        pc.human_api_agents.list_my_agents,
        sort="name",
        order="asc",
        limit=2,
        cursor=got.metadata.next_cursor,
    )
    assert [a.name for a in rest.data] == ["Zeta"] and not rest.metadata.has_more
    named = await w.run(pc.human_api_agents.list_my_agents, name="ETA")
    assert sorted(a.name for a in named.data) == ["Beta", "Zeta"]
    assert (await w.run(pc.human_api_agents.list_my_agents, is_external=True)).data == []
    hidden = await w.run(pc.human_api_agents.list_my_agents, listed_in_directory=False)
    assert len(hidden.data) == 3
    await w.fails(UnprocessableEntityError, pc.human_api_agents.list_my_agents, sort="bogus")


@case("human_api_agents.delete_my_agent")
async def _delete_my_agent(w: World) -> None:
    a, _ = w.agent("Doomed")
    got = await w.run(w.me.human_api_agents.delete_my_agent, a.id)
    assert got.data.id == a.id
    # an agent with history (it answered a message) needs force
    b, bc = w.agent("Veteran")
    rid = await w.room(b.id)
    mid = await w.say(rid, "work", b.id)
    await w.run(bc.agent_api_messages.mark_agent_message_processing, rid, mid)
    await w.fails(UnprocessableEntityError, w.me.human_api_agents.delete_my_agent, b.id)
    forced = await w.run(w.me.human_api_agents.delete_my_agent, b.id, force=True)
    assert forced.data.executions_deleted == 1
    await w.fails(NotFoundError, w.me.human_api_agents.delete_my_agent, MISSING)


@case("human_api_bulk_deletions.bulk_delete_my_agents")
async def _bulk_agents(w: World) -> None:
    a, _ = w.agent("Bulk One")
    b, bc = w.agent("Bulk Two")
    rid = await w.room(b.id)
    mid = await w.say(rid, "work", b.id)
    await w.run(bc.agent_api_messages.mark_agent_message_processing, rid, mid)
    got = await w.run(
        w.me.human_api_bulk_deletions.bulk_delete_my_agents, ids=[a.id, b.id, MISSING]
    )
    job = got.data
    assert job.resource_type == "agent" and job.force is False
    assert (job.total, job.processed, job.succeeded, job.failed) == (3, 3, 1, 2)
    assert [(r.id, r.status) for r in job.results] == [
        (a.id, "succeeded"),
        (b.id, "failed"),
        (MISSING, "failed"),
    ]
    assert [r.error.code for r in job.results[1:]] == ["execution_history_exists", "not_found"]
    forced = await w.run(
        w.me.human_api_bulk_deletions.bulk_delete_my_agents, ids=[b.id], force=True
    )
    assert forced.data.force is True and forced.data.succeeded == 1
    await w.fails(
        UnprocessableEntityError, w.me.human_api_bulk_deletions.bulk_delete_my_agents, ids=[]
    )


@case("human_api_bulk_deletions.bulk_delete_my_chats")
async def _bulk_chats(w: World) -> None:
    rid = await w.room()
    got = await w.run(w.me.human_api_bulk_deletions.bulk_delete_my_chats, ids=[rid, MISSING])
    job = got.data
    assert job.resource_type == "chat" and job.status == "completed"
    assert [(r.status, r.error and r.error.code) for r in job.results] == [
        ("succeeded", None),
        ("failed", "not_found"),
    ]
    await w.fails(
        UnprocessableEntityError, w.me.human_api_bulk_deletions.bulk_delete_my_chats, ids=[]
    )


@case("human_api_bulk_deletions.show_my_bulk_deletion")
async def _show_bulk(w: World) -> None:
    rid = await w.room()
    made = await w.run(w.me.human_api_bulk_deletions.bulk_delete_my_chats, ids=[rid])
    got = await w.run(w.me.human_api_bulk_deletions.show_my_bulk_deletion, made.data.id)
    assert got.data == made.data
    await w.fails(NotFoundError, w.me.human_api_bulk_deletions.show_my_bulk_deletion, MISSING)


# -- human API: rooms, messages, participants, peers -----------------------------------------


@case("human_api_chats.create_my_chat_room")
async def _create_my_chat(w: World) -> None:
    got = await w.run(w.me.human_api_chats.create_my_chat_room, chat={"title": "Mine"})
    assert got.data.title == "Mine"
    await w.fails(
        UnprocessableEntityError,
        w.me.human_api_chats.create_my_chat_room,
        chat={"title": "tab\there"},
    )


@case("human_api_chats.get_my_chat_room")
async def _get_my_chat(w: World) -> None:
    a, ac = w.agent("Counted")
    rid = await w.room(a.id)
    await w.say(rid, "one", a.id)
    await w.run(
        ac.agent_api_events.create_agent_chat_event,
        rid,
        event={"content": "hm", "message_type": "thought"},
    )
    await w.run(ac.agent_api_chat_tasks.create_chat_task, rid, subject="t")
    got = await w.run(w.me.human_api_chats.get_my_chat_room, rid, include="message_counts")
    row = got.data.model_dump()
    assert row["message_counts"]["text"] == 1 and row["message_counts"]["thought"] == 1
    assert row["last_message_at"] is not None and row["task_counts"]["pending"] == 1
    plain = await w.run(w.me.human_api_chats.get_my_chat_room, rid)
    assert "message_counts" not in plain.data.model_dump(exclude_unset=True)
    await w.fails(NotFoundError, w.me.human_api_chats.get_my_chat_room, MISSING)


@case("human_api_chats.list_my_chats")
async def _list_my_chats(w: World) -> None:
    _p, pc = w.person("Room Keeper")
    made = [await w.room(owner=pc) for _ in range(25)]
    seen: list[str] = []
    cursor = None
    while True:
        page = await w.run(pc.human_api_chats.list_my_chats, limit=10, cursor=cursor, order="asc")
        seen += [r.id for r in page.data]
        if not page.metadata.has_more:
            break
        cursor = page.metadata.next_cursor
    assert seen == made
    first = await w.run(
        pc.human_api_chats.list_my_chats,
        limit=100,
        include=["membership", "total_count", "participants", "last_message"],
    )
    assert len(first.data) == 25 and first.metadata.model_dump()["total_count"] == 25
    row = first.data[0].model_dump()
    assert row["membership"] == "participant" and row["my_role"] == "owner"
    assert row["participant_count"] == 1 and row["last_message"] is None
    # rooms are direct unless made otherwise (band dev makes no group or task rooms)
    assert (await w.run(pc.human_api_chats.list_my_chats, type="group")).data == []
    direct = await w.run(pc.human_api_chats.list_my_chats, type="direct", limit=100)
    assert len(direct.data) == 25
    await w.fails(UnprocessableEntityError, pc.human_api_chats.list_my_chats, type="bogus")
    await w.fails(UnprocessableEntityError, pc.human_api_chats.list_my_chats, include="bogus")


@case("human_api_messages.send_my_chat_message")
async def _send(w: World) -> None:
    a, _ = w.agent("Recipient")
    rid = await w.room(a.id)
    got = await w.run(
        w.me.human_api_messages.send_my_chat_message,
        rid,
        message={"content": "hi", "mentions": [{"id": a.id}]},
    )
    assert [r.id for r in got.data.recipients] == [a.id]
    await w.fails(
        UnprocessableEntityError,
        w.me.human_api_messages.send_my_chat_message,
        rid,
        message={"content": "hi", "mentions": [{"id": MISSING}]},
    )


@case("human_api_messages.list_my_chat_messages")
async def _list_my_messages(w: World) -> None:
    a, _ = w.agent("Listener")
    rid = await w.room(a.id)
    ids = [await w.say(rid, f"m{i}", a.id) for i in range(5)]
    got = await w.run(w.me.human_api_messages.list_my_chat_messages, rid, limit=10)
    assert [m.id for m in got.data] == ids[::-1]  # newest first
    after = await w.run(w.me.human_api_messages.list_my_chat_messages, rid, after=ids[1], limit=2)
    assert [m.id for m in after.data] == ids[2:4] and after.metadata.has_more
    before = await w.run(w.me.human_api_messages.list_my_chat_messages, rid, before=ids[3])
    assert [m.id for m in before.data] == ids[2::-1] and not before.metadata.has_more
    around = await w.run(w.me.human_api_messages.list_my_chat_messages, rid, around=ids[2], limit=3)
    assert [m.id for m in around.data] == ids[3:0:-1]
    await w.fails(NotFoundError, w.me.human_api_messages.list_my_chat_messages, rid, after=MISSING)
    await w.fails(
        UnprocessableEntityError,
        w.me.human_api_messages.list_my_chat_messages,
        rid,
        after=ids[0],
        before=ids[1],
    )


@case("human_api_participants.list_my_chat_participants")
async def _my_participants(w: World) -> None:
    agents = [w.agent(f"Member {i}")[0] for i in range(3)]
    rid = await w.room(*(a.id for a in agents))
    got = await w.run(w.me.human_api_participants.list_my_chat_participants, rid, limit=2)
    more = await w.run(
        w.me.human_api_participants.list_my_chat_participants,
        rid,
        limit=2,
        cursor=got.metadata.next_cursor,
    )
    ids = [p.id for p in got.data] + [p.id for p in more.data]
    assert sorted(ids) == sorted([w.band.me.id, *(a.id for a in agents)])
    assert all(p.connection_status is None for p in got.data if p.type == "User")
    await w.fails(NotFoundError, w.me.human_api_participants.list_my_chat_participants, MISSING)


@case("human_api_participants.add_my_chat_participant")
async def _my_add(w: World) -> None:
    a, _ = w.agent("Joiner")
    rid = await w.room()
    got = await w.run(
        w.me.human_api_participants.add_my_chat_participant,
        rid,
        participant={"participant_id": a.id},
    )
    assert got.data.id == a.id
    stranger, _ = w.person("Not A Peer")
    await w.fails(
        ForbiddenError,
        w.me.human_api_participants.add_my_chat_participant,
        rid,
        participant={"participant_id": stranger.id},
    )


@case("human_api_participants.remove_my_chat_participant")
async def _my_remove(w: World) -> None:
    a, _ = w.agent("Leaver")
    rid = await w.room(a.id)
    got = await w.run(w.me.human_api_participants.remove_my_chat_participant, rid, a.id)
    assert got.data.id == a.id
    await w.fails(
        NotFoundError, w.me.human_api_participants.remove_my_chat_participant, rid, MISSING
    )


@case("human_api_peers.list_my_peers")
async def _my_peers(w: World) -> None:
    p, pc = w.person("Peer Keeper")  # a fresh person: their peers are only these
    a, _ = w.agent("Peer Agent", owner=p)
    got = await w.run(pc.human_api_peers.list_my_peers, type="Agent")
    assert [(r.id, r.source) for r in got.data] == [(a.id, "registry")]
    q, qc = w.person("Contact Peer")
    made = await w.run(
        pc.human_api_contacts.create_contact_request,
        contact_request={"recipient_handle": q.handle},
    )
    await w.run(qc.human_api_contacts.approve_contact_request, made.data.id)
    people = await w.run(pc.human_api_peers.list_my_peers, type="User")
    assert [(r.id, r.source) for r in people.data] == [(q.id, "contact")]
    await w.fails(UnprocessableEntityError, pc.human_api_peers.list_my_peers, type="bogus")
    await w.fails(ForbiddenError, w.agent("Nosy")[1].human_api_peers.list_my_peers)


# -- human API: profile, contacts, memories ---------------------------------------------------


@case("human_api_profile.get_my_profile")
async def _profile(w: World) -> None:
    got = await w.run(w.me.human_api_profile.get_my_profile)
    assert got.data.id == w.band.me.id
    await w.fails(UnauthorizedError, w.client("band_u_nope").human_api_profile.get_my_profile)


@case("human_api_profile.update_my_profile")
async def _update_profile(w: World) -> None:
    _, pc = w.person("Renamed")
    got = await w.run(pc.human_api_profile.update_my_profile, user={"first_name": "Ren"})
    assert got.data.first_name == "Ren"
    await w.fails(UnprocessableEntityError, pc.human_api_profile.update_my_profile, user={})


async def _request(w: World) -> tuple[Person, Client, Person, Client, str]:
    p, pc = w.person("Requester")
    q, qc = w.person("Requested")
    made = await w.run(
        pc.human_api_contacts.create_contact_request,
        contact_request={"recipient_handle": q.handle, "message": "hi"},
    )
    return p, pc, q, qc, made.data.id


@case("human_api_contacts.create_contact_request")
async def _create_request(w: World) -> None:
    _p, pc, _q, _qc, _ = await _request(w)
    await w.fails(
        NotFoundError,
        pc.human_api_contacts.create_contact_request,
        contact_request={"recipient_handle": "nobody-at-all"},
    )


@case("human_api_contacts.list_received_contact_requests")
async def _received(w: World) -> None:
    _p, _pc, _q, qc, rq = await _request(w)
    got = await w.run(qc.human_api_contacts.list_received_contact_requests, page=1, page_size=5)
    assert [r.id for r in got.data] == [rq]
    await w.fails(
        UnprocessableEntityError, qc.human_api_contacts.list_received_contact_requests, page_size=0
    )
    await w.fails(
        ForbiddenError, w.agent("Nosy")[1].human_api_contacts.list_received_contact_requests
    )


@case("human_api_contacts.list_sent_contact_requests")
async def _sent(w: World) -> None:
    _p, pc, _q, _qc, rq = await _request(w)
    got = await w.run(pc.human_api_contacts.list_sent_contact_requests, status="pending")
    assert [r.id for r in got.data] == [rq]
    await w.fails(
        UnprocessableEntityError, pc.human_api_contacts.list_sent_contact_requests, status="bogus"
    )
    await w.fails(ForbiddenError, w.agent("Nosy")[1].human_api_contacts.list_sent_contact_requests)


def _settles_request(op: str, by_recipient: bool, status: str) -> None:
    """Register the case of ``op``, which settles a pending contact request as ``status``."""

    @case(f"human_api_contacts.{op}")
    async def _settle(w: World) -> None:
        _p, pc, _q, qc, rq = await _request(w)
        settle = getattr((qc if by_recipient else pc).human_api_contacts, op)
        got = await w.run(settle, rq)
        assert got.data.status == status
        await w.fails(NotFoundError, settle, MISSING)


_settles_request("approve_contact_request", by_recipient=True, status="approved")
_settles_request("reject_contact_request", by_recipient=True, status="rejected")
_settles_request("cancel_contact_request", by_recipient=False, status="cancelled")


@case("human_api_contacts.list_my_contacts")
async def _my_contacts(w: World) -> None:
    _p, pc, q, qc, rq = await _request(w)
    await w.run(qc.human_api_contacts.approve_contact_request, rq)
    got = await w.run(pc.human_api_contacts.list_my_contacts, page=1, page_size=5)
    assert [c.contact_id for c in got.data] == [q.id]
    await w.fails(UnprocessableEntityError, pc.human_api_contacts.list_my_contacts, page=0)
    await w.fails(ForbiddenError, w.agent("Nosy")[1].human_api_contacts.list_my_contacts)


@case("human_api_contacts.remove_my_contact")
async def _remove_contact(w: World) -> None:
    _p, pc, q, qc, rq = await _request(w)
    await w.run(qc.human_api_contacts.approve_contact_request, rq)
    got = await w.run(pc.human_api_contacts.remove_my_contact, handle=q.handle)
    assert got.data is not None
    await w.fails(NotFoundError, pc.human_api_contacts.remove_my_contact, contact_id=MISSING)


@case("human_api_contacts.resolve_handle")
async def _resolve(w: World) -> None:
    q, _ = w.person("Findable")
    got = await w.run(w.me.human_api_contacts.resolve_handle, handle=q.handle)
    assert (got.data.handle, got.data.type) == (q.handle, "User")
    await w.fails(NotFoundError, w.me.human_api_contacts.resolve_handle, handle="no-such-one")


async def _user_memory(w: World, name: str) -> tuple[Client, str]:
    """A memory an agent keeps about a person who shares a room with it."""
    p, pc = w.person(name)
    a, ac = w.agent(f"{name}'s agent", owner=p)
    await w.room(a.id, owner=pc)
    made = await w.run(
        ac.agent_api_memories.create_agent_memory,
        memory={**MEMORY, "scope": "subject", "subject_id": p.id},
    )
    return pc, made.data.id


@case("human_api_memories.list_user_memories")
async def _user_memories(w: World) -> None:
    pc, mid = await _user_memory(w, "Remembered")
    got = await w.run(pc.human_api_memories.list_user_memories, scope="subject", limit=5)
    assert [m.id for m in got.data] == [mid]
    assert got.data[0].subject_type == "user"
    await w.fails(
        UnprocessableEntityError, pc.human_api_memories.list_user_memories, system="bogus"
    )


@case("human_api_memories.get_user_memory")
async def _get_user_memory(w: World) -> None:
    pc, mid = await _user_memory(w, "Looked Up")
    assert (await w.run(pc.human_api_memories.get_user_memory, mid)).data.id == mid
    await w.fails(NotFoundError, pc.human_api_memories.get_user_memory, MISSING)


_marks_memory("human_api_memories", "supersede_user_memory", "superseded", "Superseded")
_marks_memory("human_api_memories", "archive_user_memory", "archived", "Archived")


@case("human_api_memories.restore_user_memory")
async def _restore_user_memory(w: World) -> None:
    pc, mid = await _user_memory(w, "Restored")
    await w.run(pc.human_api_memories.archive_user_memory, mid)
    assert (await w.run(pc.human_api_memories.restore_user_memory, mid)).data.status == "active"
    await w.fails(NotFoundError, pc.human_api_memories.restore_user_memory, MISSING)


@case("human_api_memories.delete_user_memory")
async def _delete_user_memory(w: World) -> None:
    pc, mid = await _user_memory(w, "Forgotten")
    assert await w.run(pc.human_api_memories.delete_user_memory, mid) is None
    await w.fails(NotFoundError, pc.human_api_memories.get_user_memory, mid)
    await w.fails(NotFoundError, pc.human_api_memories.delete_user_memory, MISSING)


# -- the tests ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def band() -> Iterator[LocalBand]:
    with LocalBand() as running:
        yield running


@pytest.fixture(scope="module")
def spec(band: LocalBand) -> Spec:
    r = band.http.get("/openapi.json")
    assert r.status_code == 200
    return Spec(r.json())


@pytest.mark.parametrize("cls", [RestClient, AsyncRestClient], ids=["sync", "async"])
def test_every_operation_has_a_case(cls: type[Any]) -> None:
    ops = operations(cls)
    assert len(ops) >= 70
    assert sorted(ops - set(CASES)) == [], "operations without a case"
    assert sorted(set(CASES) - ops) == [], "cases of operations the client does not have"


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("op", sorted(CASES))
def test_operation(band: LocalBand, spec: Spec, op: str, kind: str) -> None:
    async def body() -> None:
        world, before = World(band, kind, spec), spec.checked
        try:
            await CASES[op](world)
        finally:
            await world.close()
        # each operation's documented error case was met with the client's typed error
        assert world.typed > 0, f"{op}: no documented error answer was exercised"
        assert spec.checked > before, "no answer was checked against /openapi.json"

    asyncio.run(body())
