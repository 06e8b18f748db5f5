"""The cast of the authorization matrix: people and agents in every room role, plus strangers.

Every person beyond the local one is made with ``band dev user create`` (the CLI, writing the
platform's SQLite file) and everything else through the public API: nothing reaches into the
store. A room made by ``Cast.room()``:

    Alice  person  creator, owner        Otto  agent  owner      Olga  agent  owner
    Bob    person  admin                 Ada   agent  admin      Abe   agent  admin
    Carol  person  member                Max   agent  member     Mia   agent  member
    Dave   person  removed               Rex   agent  removed
    Eve    person  never in it           Sam   agent (Eve's) never in it

with one message from Alice mentioning Otto, Ada, Max and Rex (sent before Rex was removed),
and a task and a file from Otto.
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from bandtest.platform import Live

from band.cli import main

#: The callers of the matrix, in the order of its columns.
CALLERS = (
    "owner", "admin", "member", "removed", "stranger_person", "stranger_agent", "no_key",
    "garbled_key",
)  # fmt: skip
#: Who plays each caller on the agent API and on the human API.
AGENT_SIDE = {"owner": "Otto", "admin": "Ada", "member": "Max", "removed": "Rex"}
HUMAN_SIDE = {"owner": "Alice", "admin": "Bob", "member": "Carol", "removed": "Dave"}
STRANGERS = {"stranger_person": "Eve", "stranger_agent": "Sam"}
ROLES = {
    "Otto": "owner", "Olga": "owner", "Bob": "admin", "Ada": "admin", "Abe": "admin",
    "Carol": "member", "Max": "member", "Mia": "member", "Dave": "member", "Rex": "member",
}  # fmt: skip
GARBLED = "band_a_" + "Zz9-" * 10
FILE_HEADERS = {"x-file-name": "notes.txt", "content-type": "text/plain"}


@dataclass
class Who:
    """One identity: id, handle, key, and whether the key is an agent's."""

    id: str
    handle: str
    key: str
    agent: bool


@dataclass
class Cast:
    """Everyone, on one live platform."""

    live: Live
    who: dict[str, Who] = field(default_factory=dict)
    spare: dict[str, Who] = field(default_factory=dict)  # a peer each caller may add to a room

    def call(
        self, key: str | None, method: str, path: str, headers: Any = None, **kw: Any
    ) -> httpx.Response:
        """Call the platform with ``key`` (no X-API-Key header when None)."""
        sent = {**(headers or {}), **({} if key is None else {"X-API-Key": key})}
        return self.live.client.request(method, self.live.rest + path, headers=sent, **kw)

    def alice(self, method: str, path: str, **kw: Any) -> httpx.Response:
        """Call the human API as the room's creator."""
        r = self.call(self.who["Alice"].key, method, path, **kw)
        assert r.status_code < 300, r.text
        return r

    def room(self) -> dict[str, str]:
        """Create a room with the whole cast; return its id and the mentioning message's id."""
        rid = self.alice("POST", "/api/v1/me/chats", json={"chat": {"title": "matrix"}})
        rid = rid.json()["data"]["id"]
        for name, role in ROLES.items():
            body = {"participant": {"participant_id": self.who[name].id, "role": role}}
            self.alice("POST", f"/api/v1/me/chats/{rid}/participants", json=body)
        mentions = [{"id": self.who[n].id} for n in ("Otto", "Ada", "Max", "Rex")]
        body = {"message": {"content": "for the agents", "mentions": mentions}}
        mid = self.alice("POST", f"/api/v1/me/chats/{rid}/messages", json=body)
        for name in ("Dave", "Rex"):
            self.alice("DELETE", f"/api/v1/me/chats/{rid}/participants/{self.who[name].id}")
        otto, chat = self.who["Otto"].key, f"/api/v1/agent/chats/{rid}"
        task = self.call(otto, "POST", chat + "/tasks", json={"subject": "a task"})
        file = self.call(otto, "PUT", chat + "/files", headers=FILE_HEADERS, content=b"bytes")
        assert task.status_code < 300 and file.status_code < 300, (task.text, file.text)
        return {
            "rid": rid,
            "mid": mid.json()["data"]["id"],
            "tid": task.json()["data"]["id"],
            "fid": file.json()["data"]["id"],
        }

    def snapshot(self, rid: str) -> Any:
        """What a refused call must leave unchanged: title, roles, messages, delivery states."""
        room = self.alice("GET", f"/api/v1/me/chats/{rid}").json()["data"]
        parts = self.alice("GET", f"/api/v1/me/chats/{rid}/participants?page_size=100")
        msgs = self.alice("GET", f"/api/v1/me/chats/{rid}/messages?limit=100").json()["data"]
        return (
            room["title"],
            sorted((p["id"], p["role"]) for p in parts.json()["data"]),
            [(m["id"], m["content"], m["metadata"].get("delivery_status")) for m in msgs],
        )


def user_create(live: Live, db: str, name: str) -> Who:
    """Make a person with ``band dev user create`` and return them."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["dev", "user", "create", name, "--db", db]) == 0
    made = json.loads(out.getvalue().strip().splitlines()[-1])
    assert set(made) == {"id", "handle", "api_key"} and made["api_key"].startswith("band_u_")
    return Who(made["id"], made["handle"], made["api_key"], False)


def register(cast: Cast, owner: str, name: str) -> Who:
    """Register an agent of person ``owner``."""
    body = {"agent": {"name": name, "description": f"{name} agent"}}
    r = cast.call(cast.who[owner].key, "POST", "/api/v1/me/agents/register", json=body)
    assert r.status_code == 201, r.text
    d = r.json()["data"]
    return Who(d["agent"]["id"], d["agent"]["handle"], d["credentials"]["api_key"], True)


def befriend(cast: Cast, asker: str, approver: str) -> None:
    """Make two people contacts (a request, then its approval) so rooms can hold both."""
    body = {"contact_request": {"recipient_handle": "@" + cast.who[approver].handle}}
    r = cast.call(cast.who[asker].key, "POST", "/api/v1/me/contacts/requests", json=body)
    assert r.status_code == 201, r.text
    rq = r.json()["data"]["id"]
    r = cast.call(cast.who[approver].key, "POST", f"/api/v1/me/contacts/requests/{rq}/approve")
    assert r.status_code == 200, r.text


def make_cast(live: Live, db: str) -> Cast:
    """Create every person (CLI) and agent (API) of the cast."""
    cast = Cast(live)
    me = cast.call(live.user_key, "GET", "/api/v1/me/profile").json()["data"]
    cast.who["Alice"] = Who(me["id"], me["handle"], live.user_key, False)
    for name in ("Bob", "Carol", "Dave", "Eve"):
        cast.who[name] = user_create(live, db, name)
    for name in ("Otto", "Olga", "Ada", "Abe", "Max", "Mia", "Rex"):
        cast.who[name] = register(cast, "Alice", name)
    cast.who["Sam"] = register(cast, "Eve", "Sam")
    for name in ("Bob", "Carol", "Dave"):
        befriend(cast, name, "Alice")
    spare = register(cast, "Alice", "Spare")
    cast.spare = {n: spare for n in ("Alice", *AGENT_SIDE.values())}
    for name in ("Bob", "Carol", "Dave", "Eve"):
        cast.spare[name] = register(cast, name, f"{name}'s helper")
    cast.spare["Sam"] = cast.who["Eve"]
    return cast
