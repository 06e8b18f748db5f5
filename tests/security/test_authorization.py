"""Authorization on the local platform: keys act only for their owner, rooms only for members."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import websockets
from bandtest.platform import Live, live_platform, room_with
from starlette.routing import Route

from band.devserver.access.authz import POLICY
from band.devserver.access.authz import undeclared as authz_undeclared
from band.devserver.app import create_app

from .authz_cast import (
    AGENT_SIDE,
    CALLERS,
    FILE_HEADERS,
    GARBLED,
    HUMAN_SIDE,
    STRANGERS,
    Cast,
    make_cast,
    register,
)

OUTSIDER_CALLS = [
    ("GET", "/agent/chats/{rid}"),
    ("GET", "/agent/chats/{rid}/messages"),
    ("GET", "/agent/chats/{rid}/messages/next"),
    ("GET", "/agent/chats/{rid}/context"),
    ("GET", "/agent/chats/{rid}/participants"),
    ("POST", "/agent/chats/{rid}/messages"),
    ("POST", "/agent/chats/{rid}/events"),
    ("POST", "/agent/chats/{rid}/activity"),
    ("POST", "/agent/chats/{rid}/participants"),
    ("DELETE", "/agent/chats/{rid}/participants/{aid}"),
    ("POST", "/agent/chats/{rid}/messages/{mid}/processing"),
    ("POST", "/agent/chats/{rid}/messages/{mid}/processed"),
    ("POST", "/agent/chats/{rid}/messages/{mid}/failed"),
]
BODIES = {
    "/messages": {"message": {"content": "intrusion", "mentions": [{"id": "x"}]}},
    "/events": {"event": {"content": "intrusion", "message_type": "thought"}},
    "/activity": {"working": True},
    "/participants": {"participant": {"participant_id": "{oid}"}},
    "/failed": {"error": "intrusion"},
}


def _refused(r: Any) -> None:
    """A 403 or 404 in Band's error envelope (never a 2xx, never a 5xx)."""
    assert r.status_code in (403, 404), (r.status_code, r.text)
    err = r.json()["error"]
    assert err["code"] in ("forbidden", "not_found") and err["message"] and err["request_id"]


@pytest.fixture
def setting(live: Live) -> dict[str, str]:
    """Agent A in a room with a pending message for it; agent O outside that room."""
    aid, _, akey = live.register("Insider")
    oid, _, okey = live.register("Outsider")
    rid = room_with(live, aid)
    body = {"message": {"content": "for A", "mentions": [{"id": aid}]}}
    mid = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body).json()["data"]["id"]
    return {"aid": aid, "akey": akey, "oid": oid, "okey": okey, "rid": rid, "mid": mid}


@pytest.mark.parametrize(("method", "template"), OUTSIDER_CALLS)
def test_agent_outside_a_room_cannot_touch_it(
    live: Live, setting: dict[str, str], method: str, template: str
) -> None:
    url = "/api/v1" + template.format(**setting)
    suffix = next((s for s in BODIES if template.endswith(s)), None)
    body = (
        json.loads(json.dumps(BODIES[suffix]).replace("{oid}", setting["oid"])) if suffix else None
    )
    _refused(live.agent(setting["okey"], method, url, json=body))
    rows = live.human("GET", f"/api/v1/me/chats/{setting['rid']}/messages").json()["data"]
    assert [m["sender_id"] for m in rows] != [] and setting["oid"] not in {
        m["sender_id"] for m in rows
    }
    parts = live.human("GET", f"/api/v1/me/chats/{setting['rid']}/participants").json()["data"]
    assert setting["oid"] not in {p["id"] for p in parts}
    [msg] = [m for m in rows if m["id"] == setting["mid"]]
    assert setting["oid"] not in msg["metadata"].get("delivery_status", {})
    assert msg["metadata"]["delivery_status"][setting["aid"]]["status"] != "processed"


def test_agent_cannot_join_another_room_or_agents_topics(
    live: Live, setting: dict[str, str]
) -> None:
    async def join(key: str, topic: str) -> dict[str, Any]:
        url = f"{live.ws}?vsn=2.0.0&agent_id={setting['oid']}"
        async with websockets.connect(url, additional_headers={"x-api-key": key}) as ws:
            await ws.send(json.dumps(["1", "1", topic, "phx_join", {}]))
            return json.loads(await asyncio.wait_for(ws.recv(), 5))[4]

    for topic in (
        f"chat_room:{setting['rid']}",
        f"room_participants:{setting['rid']}",
        f"agent_control:{setting['aid']}",
        f"agent_rooms:{setting['aid']}",
    ):
        reply = asyncio.run(join(setting["okey"], topic))
        assert reply == {"status": "error", "response": {"reason": "unauthorized"}}, topic


def test_keys_stay_on_their_own_api(live: Live, setting: dict[str, str]) -> None:
    r = live.agent(setting["akey"], "GET", "/api/v1/me/chats")
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    r = live.agent(live.user_key, "GET", "/api/v1/agent/chats")
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    for key in ("", "band_a_" + "x" * 40, setting["akey"][:-1]):
        r = live.agent(key, "GET", "/api/v1/agent/me")
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"


def test_one_persons_key_cannot_act_for_another(cast: Cast) -> None:
    """Eve, a second person made by ``band dev user create``, sees nothing of Alice's."""
    ids = cast.room()
    rid, mid, aid, eve = ids["rid"], ids["mid"], cast.who["Otto"].id, cast.who["Eve"]

    def as_eve(method: str, path: str, **kw: Any) -> Any:
        return cast.call(eve.key, method, "/api/v1/me" + path, **kw)

    assert as_eve("GET", "/profile").json()["data"]["handle"] == eve.handle == "eve"
    assert as_eve("GET", "/chats").json()["data"] == []
    assert {a["name"] for a in as_eve("GET", "/agents").json()["data"]} == {"Sam", "Eve's helper"}
    _refused(as_eve("DELETE", f"/agents/{aid}"))
    _refused(as_eve("POST", f"/agents/{aid}/control", json={"mode": "stop"}))
    _refused(as_eve("GET", f"/agents/{aid}/control"))
    r = as_eve("POST", "/chats/bulk-delete", json={"ids": [rid]})
    assert r.status_code == 202 and r.json()["data"]["succeeded"] == 0
    assert r.json()["data"]["results"][0]["error"]["code"] == "not_found"  # existence not shown
    # nothing changed for Alice
    rows = cast.alice("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    assert [m["id"] for m in rows] == [mid]
    agents = cast.alice("GET", "/api/v1/me/agents?page_size=100").json()["data"]
    assert aid in {a["id"] for a in agents}


def test_an_agent_keeps_no_memory_about_a_stranger(cast: Cast) -> None:
    """A subject memory needs a room or a contact in common with the subject (least privilege):
    otherwise 403, the same answer as for an id that names no one."""
    memory = {"content": "likes tea", "system": "long_term", "type": "semantic",
              "segment": "user", "thought": "t", "scope": "subject"}  # fmt: skip
    otto, sam, eve, alice = (cast.who[n] for n in ("Otto", "Sam", "Eve", "Alice"))
    for agent, subject in ((otto, eve.id), (sam, alice.id), (otto, "no-such-person")):
        body = {"memory": {**memory, "subject_id": subject}}
        r = cast.call(agent.key, "POST", "/api/v1/agent/memories", json=body)
        assert r.status_code == 403, r.text
        assert r.json()["error"]["code"] == "forbidden"
        assert r.json()["error"]["message"] == (
            "subject_id is not someone this agent shares a room or a contact with"
        )
    assert cast.call(eve.key, "GET", "/api/v1/me/memories").json()["data"] == []
    # its own person (the owner) is fine, and that person sees it
    body = {"memory": {**memory, "subject_id": alice.id}}
    made = cast.call(otto.key, "POST", "/api/v1/agent/memories", json=body)
    assert made.status_code == 201, made.text
    mine = cast.alice("GET", "/api/v1/me/memories?scope=subject").json()["data"]
    assert made.json()["data"]["id"] in {m["id"] for m in mine}


# -- the matrix: every operation x every kind of caller, REST and WebSocket ------------------
#
# The expectations below are band/devserver/AUTHORIZATION.md written as code, independently of
# band/devserver/authz.py: a change to either that the other does not share fails here.

R = "/chats/{rid}"


@dataclass(frozen=True)
class Op:
    """One REST operation of the matrix."""

    name: str
    api: str  # "agent" or "me"
    method: str
    path: str
    rule: str  # read, post, rename, add:<role>, remove:<target>, control, mark, peers
    body: Any = None
    raw: bytes | None = None  # a raw upload instead of a JSON body


OPS = [
    Op("get_chat", "agent", "GET", R, "read"),
    Op("rename", "agent", "PATCH", R, "rename", {"chat": {"title": "renamed"}}),
    Op("list_messages", "agent", "GET", R + "/messages?status=all", "read"),
    Op("post_message", "agent", "POST", R + "/messages", "post",
       {"message": {"content": "hi", "mentions": [{"id": "{alice}"}]}}),
    Op("next_message", "agent", "GET", R + "/messages/next", "read"),
    Op("mark_processing", "agent", "POST", R + "/messages/{mid}/processing", "mark"),
    Op("mark_processed", "agent", "POST", R + "/messages/{mid}/processed", "mark"),
    Op("mark_failed", "agent", "POST", R + "/messages/{mid}/failed", "mark", {"error": "x"}),
    Op("post_event", "agent", "POST", R + "/events", "post",
       {"event": {"content": "hm", "message_type": "thought"}}),
    Op("context", "agent", "GET", R + "/context", "read"),
    Op("activity", "agent", "POST", R + "/activity", "post", {"working": True}),
    Op("participants", "agent", "GET", R + "/participants", "read"),
    Op("peers_not_in_room", "agent", "GET", "/peers?not_in_chat={rid}", "peers"),
    Op("list_tasks", "agent", "GET", R + "/tasks", "read"),
    Op("create_task", "agent", "POST", R + "/tasks", "post", {"subject": "do it"}),
    Op("get_task", "agent", "GET", R + "/tasks/{tid}", "read"),
    Op("update_task", "agent", "POST", R + "/tasks/{tid}", "post", {"comment": "noted"}),
    Op("task_history", "agent", "GET", R + "/tasks/{tid}/history", "read"),
    Op("upload_file", "agent", "PUT", R + "/files", "post", raw=b"more bytes"),
    Op("download_file", "agent", "GET", R + "/files/{fid}", "read"),
    Op("get_board", "agent", "GET", R + "/board", "read"),
    Op("set_board", "agent", "PUT", R + "/board", "post", {"goal_title": "goal"}),
    Op("get_chat", "me", "GET", R, "read"),
    Op("list_messages", "me", "GET", R + "/messages", "read"),
    Op("post_message", "me", "POST", R + "/messages", "post", {"message": {"content": "hi"}}),
    Op("participants", "me", "GET", R + "/participants", "read"),
    Op("peers_not_in_room", "me", "GET", "/peers?not_in_chat={rid}", "peers"),
    Op("control_status", "me", "GET", R + "/control", "read"),
    Op("control_stop", "me", "POST", R + "/control", "control",
       {"mode": "stop", "agent_id": "{max}"}),
]  # fmt: skip
for api in ("agent", "me"):
    for role in ("member", "admin", "owner"):
        body = {"participant": {"participant_id": "{spare}", "role": role}}
        OPS.append(Op(f"add_as_{role}", api, "POST", R + "/participants", f"add:{role}", body))
    for target in ("creator", "owner", "admin", "member", "self"):
        path = R + "/participants/{" + target + "}"
        OPS.append(Op(f"remove_{target}", api, "DELETE", path, f"remove:{target}"))
MUTATING = ("rename", "add:", "remove:", "control")
CASES = [(op, caller) for op in OPS for caller in CALLERS]


def expected(op: Op, caller: str) -> int:
    """The status the model gives ``caller`` for ``op`` (200 = allowed)."""
    if caller in ("no_key", "garbled_key"):
        return 401
    agent_key = caller == "stranger_agent" or (caller not in STRANGERS and op.api == "agent")
    if agent_key != (op.api == "agent"):
        return 403  # the other kind of key
    if caller in ("removed", "stranger_person", "stranger_agent"):
        return 404  # a room it cannot see
    role = {"owner": 3, "admin": 2, "member": 1}[caller]
    kind, _, arg = op.rule.partition(":")
    if kind == "rename":
        return 200 if role == 3 else 403
    if kind == "control":
        return 200 if role >= 2 else 403
    if kind == "add":
        return 200 if {"member": 1, "admin": 2, "owner": 3}[arg] <= role else 403
    if kind == "remove":
        is_creator = arg == "creator" or (arg == "self" and op.api == "me" and caller == "owner")
        if is_creator or role == 1:
            return 403
        if role == 2 and arg in ("owner", "admin"):
            return 403
        return 200
    return 200


def _caller_key(cast: Cast, op: Op, caller: str) -> tuple[str | None, str | None]:
    """(key, name) of whoever plays ``caller`` on ``op``'s API."""
    if caller == "no_key":
        return None, None
    if caller == "garbled_key":
        return GARBLED, None
    name = STRANGERS.get(caller) or (AGENT_SIDE if op.api == "agent" else HUMAN_SIDE)[caller]
    return cast.who[name].key, name


def _fill(text: str, cast: Cast, ids: dict[str, str], name: str | None) -> str:
    me = cast.who[name].id if name else "nobody"
    spare = cast.spare[name].id if name else "nobody"
    values = {
        "rid": ids["rid"], "mid": ids["mid"], "tid": ids["tid"], "fid": ids["fid"],
        "alice": cast.who["Alice"].id,
        "max": cast.who["Max"].id, "spare": spare, "creator": cast.who["Alice"].id,
        "owner": cast.who["Olga"].id, "admin": cast.who["Abe"].id,
        "member": cast.who["Mia"].id, "self": me,
    }  # fmt: skip
    for k, v in values.items():
        text = text.replace("{" + k + "}", v)
    return text


@pytest.fixture(scope="module")
def cast(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cast]:
    """The cast on one platform over a SQLite file (so the CLI can add people to it)."""
    db = str(tmp_path_factory.mktemp("authz") / "band.sqlite3")
    for live in live_platform(db):
        c = make_cast(live, db)
        c.shared = c.room()  # type: ignore[attr-defined]
        yield c


@pytest.mark.parametrize(("op", "caller"), CASES, ids=[f"{o.api}-{o.name}-{c}" for o, c in CASES])
def test_rest_matrix(cast: Cast, op: Op, caller: str) -> None:
    """One probe: ``caller`` tries ``op``; allowed gets 2xx, refused the envelope and no change."""
    ids = cast.room() if op.rule.startswith(MUTATING) else cast.shared  # type: ignore[attr-defined]
    key, name = _caller_key(cast, op, caller)
    path = f"/api/v1/{op.api}" + _fill(op.path, cast, ids, name)
    body = json.loads(_fill(json.dumps(op.body), cast, ids, name)) if op.body else None
    if op.name in ("mark_processed", "mark_failed") and name:  # they need a live attempt
        cast.call(key, "POST", path.rsplit("/", 1)[0] + "/processing")
    before = cast.snapshot(ids["rid"])
    if op.raw is not None:
        r = cast.call(key, op.method, path, headers=FILE_HEADERS, content=op.raw)
    else:
        r = cast.call(key, op.method, path, json=body)
    want = expected(op, caller)
    if want == 200:
        assert 200 <= r.status_code < 300, (r.status_code, r.text)
        return
    assert r.status_code == want, (r.status_code, r.text)
    err = r.json()["error"]
    assert err["code"] == {401: "unauthorized", 403: "forbidden", 404: "not_found"}[want]
    assert err["message"] and err["request_id"]
    assert cast.snapshot(ids["rid"]) == before, "a refused call changed the room"


def test_every_operation_has_a_rule() -> None:
    """Each API route of the app is declared in the model, and the model names no dead route."""
    app = create_app(":memory:")
    ops = {f"{m} {r.path}" for r in app.routes if isinstance(r, Route) for m in r.methods or ()}
    ops = {o for o in ops if " /api/v1/" in o and not o.startswith("HEAD")}
    assert ops == set(POLICY)
    assert authz_undeclared([*ops, "GET /api/v1/agent/secret"]) == ["GET /api/v1/agent/secret"]


class Socket:
    """A Phoenix V2 client socket on the live platform, read frame by frame."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ref = 0

    async def request(self, topic: str, event: str) -> dict[str, Any]:
        """Send ``event`` on ``topic`` and return the reply's payload (pushes before it are kept
        in ``self.seen``)."""
        self.ref += 1
        ref = str(self.ref)
        await self.ws.send(json.dumps([ref, ref, topic, event, {}]))
        while True:
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), 5))
            if frame[1] == ref and frame[3] == "phx_reply":
                return dict(frame[4])
            self.seen.append(frame)

    seen: list[list[Any]]

    async def join(self, topic: str) -> str:
        """Join ``topic``; return "ok" or the refusal reason."""
        reply = await self.request(topic, "phx_join")
        return "ok" if reply["status"] == "ok" else str(reply["response"]["reason"])

    async def drain(self) -> list[list[Any]]:
        """Every push that reached this socket up to now (a heartbeat's reply is the fence:
        the platform sends a socket's frames in order)."""
        await self.request("phoenix", "heartbeat")
        out, self.seen = self.seen, []
        return out


@contextlib.asynccontextmanager
async def opened(live: Live, key: str) -> AsyncIterator[Socket]:
    """Open a socket with ``key``."""
    url = f"{live.ws}?vsn=2.0.0"
    async with websockets.connect(url, additional_headers={"X-API-Key": key}) as ws:
        sock = Socket(ws)
        sock.seen = []
        yield sock


WS_CASES = [(side, topic, caller) for side in ("agent", "me")
            for topic in ("chat_room", "room_participants", "owners_rooms")
            for caller in CALLERS]  # fmt: skip


@pytest.mark.parametrize(
    ("side", "topic", "caller"), WS_CASES, ids=[f"{s}-{t}-{c}" for s, t, c in WS_CASES]
)
def test_websocket_matrix(cast: Cast, side: str, topic: str, caller: str) -> None:
    """One probe: ``caller`` joins a room topic (members only) or the owner's own rooms topic
    (``agent_rooms:{Otto}`` / ``user_rooms:{Alice}``: that identity only)."""
    rid = cast.shared["rid"]  # type: ignore[attr-defined]
    key, _ = _caller_key(cast, Op("join", side, "JOIN", "", "read"), caller)
    if topic == "owners_rooms":
        owner = cast.who["Otto" if side == "agent" else "Alice"]
        topic, rid = ("agent_rooms" if side == "agent" else "user_rooms"), owner.id

    async def go() -> str:
        if key is None or key == GARBLED:
            with pytest.raises(websockets.InvalidStatus) as refused:
                async with opened(cast.live, key or ""):
                    pass
            return str(refused.value.response.status_code)
        async with opened(cast.live, key) as sock:
            return await sock.join(f"{topic}:{rid}")

    got = asyncio.run(go())
    want = {"owner": "ok", "admin": "ok", "member": "ok", "no_key": "401", "garbled_key": "401"}
    if topic.endswith("_rooms") and caller in ("admin", "member"):
        want[caller] = "unauthorized"
    assert got == want.get(caller, "unauthorized")


@pytest.mark.parametrize("side", ["agent", "me"])
def test_removed_participant_gets_no_more_pushes(cast: Cast, side: str) -> None:
    """Sockets that joined a room's topics hear nothing of the room once removed from it."""
    ids = cast.room()
    rid = ids["rid"]
    gone = cast.who["Max" if side == "agent" else "Carol"]
    stays = cast.who["Ada"]  # an agent that stays, mentioned below: proof pushes still flow
    room_topics = {f"chat_room:{rid}", f"room_participants:{rid}"}
    own = f"agent_rooms:{gone.id}" if gone.agent else f"user_rooms:{gone.id}"

    async def go() -> None:
        async with opened(cast.live, gone.key) as sock, opened(cast.live, stays.key) as other:
            for topic in (*sorted(room_topics), own):
                assert await sock.join(topic) == "ok"
            for topic in sorted(room_topics):
                assert await other.join(topic) == "ok"
            hello = {"message": {"content": "before", "mentions": [{"id": gone.id}]}}
            await asyncio.to_thread(
                cast.alice, "POST", f"/api/v1/me/chats/{rid}/messages", json=hello
            )
            assert [f[3] for f in await sock.drain()] == ["message_created"]
            await asyncio.to_thread(
                cast.alice, "DELETE", f"/api/v1/me/chats/{rid}/participants/{gone.id}"
            )
            farewell = await sock.drain()
            assert [(f[2], f[3]) for f in farewell] == [
                (f"room_participants:{rid}", "participant_removed"),
                (own, "room_removed"),
            ]
            assert farewell[0][4]["id"] == gone.id
            # the room goes on: a message to everyone, an event, a member added and removed
            everyone = [{"id": cast.who[n].id} for n in ("Ada", "Otto", "Abe")]
            msg = {"message": {"content": "after", "mentions": everyone}}
            await asyncio.to_thread(
                cast.alice, "POST", f"/api/v1/me/chats/{rid}/messages", json=msg
            )
            event = {"event": {"content": "thinking", "message_type": "thought"}}
            r = await asyncio.to_thread(
                cast.call, stays.key, "POST", f"/api/v1/agent/chats/{rid}/events", json=event
            )
            assert r.status_code == 201, r.text
            add = {"participant": {"participant_id": cast.spare["Alice"].id}}
            await asyncio.to_thread(
                cast.alice, "POST", f"/api/v1/me/chats/{rid}/participants", json=add
            )
            heard = {f[3] for f in await other.drain()}
            assert {"message_created", "event_created", "participant_added"} <= heard
            assert await sock.drain() == []
            # and it cannot listen again
            for topic in sorted(room_topics):
                assert await sock.join(topic) == "unauthorized"

    asyncio.run(go())


def test_delivery_status_names_only_mentioned_agents(cast: Cast) -> None:
    """An agent in the room cannot put itself in the delivery status of a message to others."""
    ids = cast.room()
    rid, otto, max_ = ids["rid"], cast.who["Otto"], cast.who["Max"]
    body = {"message": {"content": "only Otto", "mentions": [{"id": otto.id}]}}
    mid = cast.alice("POST", f"/api/v1/me/chats/{rid}/messages", json=body).json()["data"]["id"]
    url = f"/api/v1/agent/chats/{rid}/messages/{mid}/processing"
    r = cast.call(max_.key, "POST", url)
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", r.text
    assert cast.call(otto.key, "POST", url).status_code == 200
    msgs = cast.alice("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    [msg] = [m for m in msgs if m["id"] == mid]
    assert set(msg["metadata"]["delivery_status"]) == {otto.id}
    recipients = cast.alice("POST", f"/api/v1/me/chats/{rid}/messages", json=body)
    assert [p["id"] for p in recipients.json()["data"]["recipients"]] == [otto.id]


def test_creator_stays_in_their_room(cast: Cast) -> None:
    """Neither an owner added later nor the creator can take the creator out of the room."""
    rid = cast.room()["rid"]
    alice = cast.who["Alice"]
    for key, api in ((cast.who["Otto"].key, "agent"), (alice.key, "me")):
        r = cast.call(key, "DELETE", f"/api/v1/{api}/chats/{rid}/participants/{alice.id}")
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden", r.text
    parts = cast.alice("GET", f"/api/v1/me/chats/{rid}/participants?page_size=100")
    assert (alice.id, "owner") in {(p["id"], p["role"]) for p in parts.json()["data"]}


def test_deleted_agent_is_disconnected(cast: Cast) -> None:
    """Deleting an agent closes its sockets (1008): its rooms' pushes stop with its key."""
    rid = cast.room()["rid"]
    temp = register(cast, "Alice", "Temp")
    add = {"participant": {"participant_id": temp.id}}
    cast.alice("POST", f"/api/v1/me/chats/{rid}/participants", json=add)

    async def go() -> None:
        async with opened(cast.live, temp.key) as sock:
            assert await sock.join(f"chat_room:{rid}") == "ok"
            await asyncio.to_thread(cast.alice, "DELETE", f"/api/v1/me/agents/{temp.id}")
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    frame = json.loads(await asyncio.wait_for(sock.ws.recv(), 5))
                    assert frame[2] != f"chat_room:{rid}", frame
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008

    asyncio.run(go())
    r = cast.call(temp.key, "GET", "/api/v1/agent/me")
    assert r.status_code == 401
