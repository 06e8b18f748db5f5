"""A real local Band platform for tests: ``band dev`` in-process, people, agents and rooms.

``LocalBand`` serves the dev platform (REST and the Phoenix socket) on a free 127.0.0.1 port
in a background thread; agents run unchanged against it, each on its own event loop in its
own thread, so a plain synchronous test drives a whole conversation::

    with LocalBand() as band:
        bot = band.run_agent(MyAdapter(), name="Echo")
        room = band.room(bot)
        room.say("hello", mention=bot)
        assert "hello" in room.wait_for_reply(bot).text

In an async test an agent may also run on the test's own loop (``band.agent(adapter)`` gives
it unstarted); the rooms' ``*_async`` methods then wait without blocking that loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
import secrets
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar

import httpx

from band._signature import parameters_of
from band.core.wire import JsonObject, JsonValue

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from band.agent import Agent
    from band.core.simple_adapter import SimpleAdapter
    from band.devserver.thread import ServerThread

__all__ = [
    "AgentHandle",
    "LocalBand",
    "Message",
    "Person",
    "Room",
    "RunningAgent",
]

_MENTION_TOKEN = re.compile(r"@\[\[[^\]]+\]\]\s*")
#: How long start-up, agent starts and HTTP calls may take before a test fails.
DEFAULT_TIMEOUT = 10.0

P = ParamSpec("P")
R = TypeVar("R")


class _Identified(Protocol):
    """Anything with a participant ID: ``AgentHandle``, ``RunningAgent``, ``Person``."""

    @property
    def id(self) -> str: ...


#: A room member as the helpers take it: an agent, a person, or a participant ID.
Member = _Identified | str


@dataclass(frozen=True)
class Message:
    """One room message as the person's API lists it."""

    id: str
    content: str
    sender_id: str
    sender_name: str | None
    sender_type: str
    message_type: str
    metadata: JsonObject
    raw: JsonObject = field(repr=False)

    @property
    def text(self) -> str:
        """The content without the ``@[[id]]`` tokens the platform writes for mentions."""
        return _MENTION_TOKEN.sub("", self.content).strip()

    @classmethod
    def from_row(cls, row: JsonObject) -> Message:
        """A ``Message`` from a ``ChatMessage`` row."""
        return cls(
            id=str(row["id"]),
            content=str(row.get("content") or ""),
            sender_id=str(row.get("sender_id") or ""),
            sender_name=row.get("sender_name"),
            sender_type=str(row.get("sender_type") or ""),
            message_type=str(row.get("message_type") or "text"),
            metadata=dict(row.get("metadata") or {}),
            raw=row,
        )


@dataclass(frozen=True)
class AgentHandle:
    """A registered agent: its identity and credentials (the key is never in the repr)."""

    id: str
    name: str
    handle: str
    api_key: str = field(repr=False)


class Person:
    """A person on the platform, acting through the human API with their own key."""

    def __init__(self, band: LocalBand, info: JsonObject, api_key: str) -> None:
        self.band = band
        self.id = str(info["id"])
        full = " ".join(str(info.get(k) or "") for k in ("first_name", "last_name")).strip()
        self.name = str(info.get("name") or full)  # a profile has first and last names
        self.handle = str(info.get("handle") or "")
        self._key = api_key

    def __repr__(self) -> str:
        return f"Person(id={self.id!r}, name={self.name!r}, handle={self.handle!r})"

    @property
    def api_key(self) -> str:
        """This person's API key (for the human API)."""
        return self._key

    # Any: the keywords go to httpx as they are
    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        """Call the human API as this person (``path`` below ``/api/v1``)."""
        return self.band.http.request(
            method, "/api/v1" + path, headers={"X-API-Key": self._key}, **kw
        )

    def _ok(self, r: httpx.Response, *statuses: int) -> JsonValue:
        if r.status_code not in (statuses or (200, 201)):
            raise AssertionError(
                f"{r.request.method} {r.request.url.path} -> {r.status_code}: {r.text}"
            )
        return r.json()["data"]

    def register_agent(self, name: str, description: str | None = None) -> AgentHandle:
        """Register an agent owned by this person; return its identity and key."""
        body = {"agent": {"name": name, "description": description or f"{name} (test agent)"}}
        d = self._ok(self.request("POST", "/me/agents/register", json=body), 201)
        agent = d["agent"]
        return AgentHandle(
            str(agent["id"]), str(agent["name"]), str(agent["handle"]), d["credentials"]["api_key"]
        )

    def create_room(self, *members: Member, title: str | None = None) -> Room:
        """Create a room owned by this person with ``members`` (agents or people) in it."""
        body = {"chat": {"title": title or f"test room {secrets.token_hex(3)}"}}
        d = self._ok(self.request("POST", "/me/chats", json=body), 201)
        room = Room(self.band, str(d["id"]), self)
        for member in members:
            room.add(member)
        return room


def _member_id(member: object) -> str:
    """The participant ID of a member: an ``AgentHandle``, ``RunningAgent``, ``Person`` or ID."""
    if isinstance(member, str):
        return member
    ident = getattr(member, "id", None)
    if not isinstance(ident, str):
        raise TypeError(f"not a room member: {member!r}")
    return ident


def _in_thread(method: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """``method`` as a coroutine that runs it in a worker thread (the event loop goes on)."""

    async def in_thread(*args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(method, *args, **kwargs)

    in_thread.__name__ = f"{method.__name__}_async"
    in_thread.__qualname__ = f"{method.__qualname__}_async"
    in_thread.__doc__ = f":meth:`{method.__name__}` without blocking the event loop."
    in_thread.__signature__ = inspect.signature(method)  # type: ignore[attr-defined]
    return in_thread


class Room:
    """A room, seen and driven by one person (its owner by default)."""

    def __init__(self, band: LocalBand, room_id: str, person: Person) -> None:
        self.band = band
        self.id = room_id
        self.person = person

    def __repr__(self) -> str:
        return f"Room(id={self.id!r})"

    def as_person(self, person: Person) -> Room:
        """The same room, driven by ``person`` (who must be in it)."""
        return Room(self.band, self.id, person)

    def add(self, member: Member, role: str = "member") -> None:
        """Add an agent or a person to the room."""
        body = {"participant": {"participant_id": _member_id(member), "role": role}}
        r = self.person.request("POST", f"/me/chats/{self.id}/participants", json=body)
        self.person._ok(r, 201)

    def participants(self) -> list[JsonObject]:
        """The room's participants."""
        r = self.person.request(
            "GET", f"/me/chats/{self.id}/participants", params={"page_size": 100}
        )
        return list(self.person._ok(r, 200))

    def say(
        self, text: str, *, mention: Member | list[Member] | tuple[Member, ...] | None = None
    ) -> str:
        """Post ``text`` as the person, mentioning ``mention`` (one member or a list); its id."""
        targets = mention if isinstance(mention, list | tuple) else [mention] if mention else []
        body = {"message": {"content": text, "mentions": [{"id": _member_id(m)} for m in targets]}}
        r = self.person.request("POST", f"/me/chats/{self.id}/messages", json=body)
        return str(self.person._ok(r, 201)["id"])

    def messages(self) -> list[Message]:
        """Every message of the room (events included), oldest first."""
        rows: list[JsonObject] = []
        cursor: JsonValue = None
        while True:
            params: JsonObject = {"limit": 100}
            if cursor is not None:
                params["cursor"] = cursor
            r = self.person.request("GET", f"/me/chats/{self.id}/messages", params=params)
            if r.status_code != 200:
                raise AssertionError(f"listing room {self.id} -> {r.status_code}: {r.text}")
            body = r.json()
            rows.extend(body["data"])
            meta = body.get("metadata") or {}
            cursor = meta.get("next_cursor")
            if not meta.get("has_more") or cursor is None:
                # the platform pages newest first
                return [Message.from_row(row) for row in reversed(rows)]

    def messages_from(self, member: Member, message_type: str | None = "text") -> list[Message]:
        """What ``member`` posted, of ``message_type`` (None: any type), oldest first."""
        sid = _member_id(member)
        return [
            m
            for m in self.messages()
            if m.sender_id == sid and (message_type is None or m.message_type == message_type)
        ]

    def wait_for(self, check: Callable[[list[Message]], R], *, timeout: float | None = None) -> R:
        """Poll the room until ``check(messages)`` is truthy; return that value.

        Raises ``AssertionError`` (with the room's messages) after ``timeout`` seconds
        (default: the platform's ``timeout``).
        """
        timeout = self.band.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            msgs = self.messages()
            result = check(msgs)
            if result:
                return result
            if time.monotonic() > deadline:
                seen = [(m.sender_name, m.message_type, m.text) for m in msgs]
                raise AssertionError(f"room {self.id}: condition not met in {timeout}s; {seen}")
            time.sleep(0.05)

    def wait_for_reply(
        self,
        member: Member,
        *,
        after: str | None = None,
        message_type: str = "text",
        timeout: float | None = None,
    ) -> Message:
        """The first ``message_type`` message ``member`` posts after message ``after``.

        ``after`` defaults to the room's latest message when the call starts, so a reply
        that already arrived before the call is not found: pass the id :meth:`say` returned.
        """
        sid = _member_id(member)
        if after is None:
            existing = self.messages()
            after = existing[-1].id if existing else None

        def reply(msgs: list[Message]) -> Message | None:
            start = next((i + 1 for i, m in enumerate(msgs) if m.id == after), 0)
            return next(
                (m for m in msgs[start:] if m.sender_id == sid and m.message_type == message_type),
                None,
            )

        found = self.wait_for(reply, timeout=timeout)
        assert found is not None  # wait_for returns a truthy result only
        return found

    def ask(self, member: Member, text: str, *, timeout: float | None = None) -> Message:
        """Mention ``member`` with ``text`` and return its reply.

        Raises ``AssertionError`` with the room's events as soon as the agent's turn has settled
        without a reply (marked processed, or failed after it told the room why), not only
        after ``timeout``.
        """
        mid = self.say(text, mention=member)
        sid = _member_id(member)

        def reply(msgs: list[Message]) -> Message | None:
            start = next((i + 1 for i, m in enumerate(msgs) if m.id == mid), 0)
            later = [m for m in msgs[start:] if m.sender_id == sid]
            found = next((m for m in later if m.message_type == "text"), None)
            if found is not None:
                return found
            asked = msgs[start - 1] if start else None
            status = (
                ((asked.metadata.get("delivery_status") or {}).get(sid) or {}).get("status")
                if asked is not None
                else None
            )
            # a failed turn that will run again says nothing in the room: keep waiting for it
            told = any(m.message_type == "error" for m in later)
            if status == "processed" or (status == "failed" and told):
                events = [(m.sender_name, m.message_type, m.text) for m in msgs[start - 1 :]]
                raise AssertionError(
                    f"room {self.id}: the turn on {mid} settled ({status}) without a text "
                    f"reply from {sid}; the room since the question: {events}"
                )
            return None

        found = self.wait_for(reply, timeout=timeout)
        assert found is not None  # wait_for returns a truthy result only
        return found

    # --- for async tests: the same calls in a worker thread, so the test's loop (and an
    # agent running on it) keeps going while they wait

    say_async = _in_thread(say)
    messages_async = _in_thread(messages)
    wait_for_async = _in_thread(wait_for)
    wait_for_reply_async = _in_thread(wait_for_reply)
    ask_async = _in_thread(ask)

    def delivery_status(self, message_id: str, member: Member) -> str | None:
        """``member``'s delivery status of ``message_id`` (processing, processed, failed...)."""
        aid = _member_id(member)
        for m in self.messages():
            if m.id == message_id:
                status = (m.metadata.get("delivery_status") or {}).get(aid) or {}
                return status.get("status")
        return None


class RunningAgent:
    """A ``band.Agent`` serving on its own event loop in a background thread."""

    def __init__(self, agent: Agent, handle: AgentHandle, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.agent = agent
        self.handle = handle
        self._timeout = timeout
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name=f"band-agent-{handle.name}", daemon=True
        )
        self._thread.start()
        try:
            self.call(agent.start())
        except BaseException:
            self._close_loop()
            raise

    def __repr__(self) -> str:
        return f"RunningAgent(name={self.name!r}, id={self.id!r})"

    @property
    def id(self) -> str:
        """The agent's ID."""
        return self.handle.id

    @property
    def name(self) -> str:
        """The agent's name."""
        return self.handle.name

    @property
    def adapter(self) -> SimpleAdapter[Any]:
        """The adapter the agent runs."""
        return self.agent.runtime.adapter

    def call(self, coro: Coroutine[Any, Any, R]) -> R:
        """Run ``coro`` on the agent's loop and wait (bounded) for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(self._timeout)

    def stop(self) -> None:
        """Stop the agent and its loop (idempotent)."""
        if self._loop.is_closed():
            return
        try:
            self.call(self.agent.stop())
        finally:
            self._close_loop()

    def _close_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(self._timeout)
        if not self._thread.is_alive():
            self._loop.close()


class LocalBand:
    """``band dev`` on a free 127.0.0.1 port in a background thread, with test helpers."""

    def __init__(self, db: str = ":memory:", *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.db = db
        self.timeout = timeout
        self.port = 0
        self.app: Starlette | None = None
        self.http = httpx.Client(timeout=timeout)
        self._server: ServerThread | None = None
        self._agents: list[RunningAgent] = []
        self._me: Person | None = None

    def __enter__(self) -> LocalBand:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- the server ---------------------------------------------------------------------------

    @property
    def rest_url(self) -> str:
        """``BAND_REST_URL`` of this platform (once started)."""
        return self._serving().rest_url

    @property
    def ws_url(self) -> str:
        """``BAND_WS_URL`` of this platform (once started)."""
        return self._serving().ws_url

    def _serving(self) -> ServerThread:
        if self._server is None:
            raise RuntimeError("LocalBand is not started: use start() or `with LocalBand():`")
        return self._server

    def start(self) -> LocalBand:
        """Serve, and return once the platform accepts connections."""
        # here, so importing band.testing stays cheap (no uvicorn, no dev server)
        from band.devserver.app import create_app
        from band.devserver.thread import ServerThread

        self.app = create_app(self.db)
        self._server = ServerThread(self.app)
        self.port = self._server.port
        self.http.base_url = httpx.URL(self.rest_url)
        self._server.start()
        self._server.wait_ready(self.timeout)
        return self

    def stop(self) -> None:
        """Stop every agent started here, then the platform."""
        errors: list[BaseException] = []
        for running in reversed(self._agents):
            try:
                running.stop()
            except Exception as exc:  # stop the rest; report the first failure afterwards
                errors.append(exc)
        self._agents.clear()
        if self._server is not None:
            self._server.stop(self.timeout)
            self._server = None
        self.http.close()
        if errors:
            raise errors[0]

    def _on_server(self, fn: Callable[..., R], *args: object) -> R:
        """Run the store call ``fn(store, *args)`` on the server's loop (the store's thread)."""
        loop = self._server.loop if self._server is not None else None
        assert loop is not None and self.app is not None, "the platform is not running"
        coro: Coroutine[Any, Any, R] = self.app.state.directory.run(fn, *args)
        return asyncio.run_coroutine_threadsafe(coro, loop).result(self.timeout)

    # --- people, agents, rooms ------------------------------------------------------------

    @property
    def me(self) -> Person:
        """The platform's local person (the one ``band dev`` creates)."""
        if self._me is None:
            assert self.app is not None, "the platform is not running"
            key = str(self.app.state.user_key)
            r = self.http.get("/api/v1/me/profile", headers={"X-API-Key": key})
            r.raise_for_status()
            self._me = Person(self, r.json()["data"], key)
        return self._me

    def person(self, name: str, handle: str | None = None) -> Person:
        """Create another person with their own key (a stranger until contacts connect them)."""
        from band.devserver.store.db import Store

        key = "band_u_" + secrets.token_hex(16)
        base = handle or re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "person"
        info = self._on_server(Store.create_user, name, base, key)
        return Person(self, info, key)

    def register_agent(
        self, name: str, description: str | None = None, *, owner: Person | None = None
    ) -> AgentHandle:
        """Register an agent (owned by the local person unless ``owner``)."""
        return (owner or self.me).register_agent(name, description)

    def _agent(
        self,
        adapter: SimpleAdapter[Any],
        *,
        name: str | None = None,
        handle: AgentHandle | None = None,
        owner: Person | None = None,
        **agent_kwargs: Any,  # Agent.create's options, passed on
    ) -> tuple[Agent, AgentHandle]:
        """The agent for ``adapter`` and the credentials it runs with (the options of
        :meth:`agent` and :meth:`run_agent`)."""
        from band.agent import Agent

        creds = handle or self.register_agent(name or type(adapter).__name__, owner=owner)
        agent = Agent.create(
            adapter=adapter,
            agent_id=creds.id,
            api_key=creds.api_key,
            rest_url=self.rest_url,
            ws_url=self.ws_url,
            **agent_kwargs,
        )
        return agent, creds

    @parameters_of(_agent)
    def agent(self, adapter: SimpleAdapter[Any], **options: Any) -> Agent:
        """A ``band.Agent`` for ``adapter`` pointed at this platform (not started).

        Registers an agent named ``name`` (default: the adapter's class name) unless
        ``handle`` is given; ``agent_kwargs`` go to ``Agent.create``.
        """
        return self._agent(adapter, **options)[0]

    @parameters_of(_agent)
    def run_agent(self, adapter: SimpleAdapter[Any], **options: Any) -> RunningAgent:
        """Register (unless ``handle``) and start an agent for ``adapter``; stopped by
        :meth:`stop`."""
        agent, creds = self._agent(adapter, **options)
        running = RunningAgent(agent, creds, self.timeout)
        self._agents.append(running)
        return running

    def room(self, *members: Member, title: str | None = None, owner: Person | None = None) -> Room:
        """A new room owned by the local person (or ``owner``) with ``members`` in it."""
        return (owner or self.me).create_room(*members, title=title)

    def connect(self, a: Person, b: Person) -> None:
        """Make two people contacts (a request from ``a`` that ``b`` approves)."""
        body = {"contact_request": {"recipient_handle": b.handle}}
        r = a.request("POST", "/me/contacts/requests", json=body)
        request_id = a._ok(r, 200, 201)["id"]
        b._ok(b.request("POST", f"/me/contacts/requests/{request_id}/approve"), 200, 201)


@contextlib.contextmanager
def local_band(db: str = ":memory:", *, timeout: float = DEFAULT_TIMEOUT) -> Iterator[LocalBand]:
    """A started ``LocalBand``, stopped (agents first) on exit."""
    band = LocalBand(db, timeout=timeout)
    band.start()
    try:
        yield band
    finally:
        band.stop()
