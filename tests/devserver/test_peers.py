"""Peers: one owner's agents, that owner and established contacts (flagged is_contact)."""

from __future__ import annotations

import asyncio
from typing import Any

from band.devserver.store.db import Store

from .conftest import Live, expect_error, room_with

C = "/api/v1/agent/contacts"


def _by_id(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in rows}


def _agent_peers(live: Live, key: str, **params: Any) -> dict[str, dict[str, Any]]:
    r = live.agent(key, "GET", "/api/v1/agent/peers", params={"page_size": 100, **params})
    assert r.status_code == 200, r.text
    return _by_id(r.json()["data"])


def test_agent_peers_flag_contacts_both_ways_until_removed(live: Live) -> None:
    aid, ahandle, akey = live.register("PeerA")
    bid, bhandle, bkey = live.register("PeerB")
    cid, _, _ = live.register("PeerC")
    assert live.agent(akey, "POST", C + "/add", json={"handle": bhandle}).status_code == 200
    # a pending request is not a contact yet
    assert _agent_peers(live, akey)[bid]["is_contact"] is False
    body = {"action": "approve", "handle": ahandle}
    assert live.agent(bkey, "POST", C + "/requests/respond", json=body).status_code == 200

    peers = _agent_peers(live, akey)
    assert peers[bid]["is_contact"] is True and peers[cid]["is_contact"] is False
    assert aid not in peers
    assert _agent_peers(live, bkey)[aid]["is_contact"] is True
    # not_in_chat still excludes room members, contact or not
    rid = room_with(live, aid, bid)
    assert bid not in _agent_peers(live, akey, not_in_chat=rid)

    r = live.agent(akey, "POST", C + "/remove", json={"handle": bhandle})
    assert r.status_code == 200, r.text
    assert _agent_peers(live, akey)[bid]["is_contact"] is False
    assert _agent_peers(live, bkey)[aid]["is_contact"] is False


def test_human_peers_flag_contacts(live: Live) -> None:
    aid, _, akey = live.register("HumanPeer")
    oid, _, _ = live.register("OtherPeer")
    assert live.agent(akey, "POST", C + "/add", json={"handle": "@local"}).status_code == 200
    reqs = live.human("GET", "/api/v1/me/contacts/requests").json()["data"]
    [req] = [q for q in reqs if q["requester_id"] == aid]
    r = live.human("POST", f"/api/v1/me/contacts/requests/{req['id']}/approve")
    assert r.status_code == 200, r.text
    peers = _by_id(live.human("GET", "/api/v1/me/peers", params={"page_size": 100}).json()["data"])
    assert peers[aid]["is_contact"] is True and peers[oid]["is_contact"] is False


def _second_person(live: Live) -> tuple[str, str, str]:
    """Bob, another person on the same platform, with one agent; return (bob id, agent id, key)."""
    bob_key = "band_u_" + "c" * 32
    bob = asyncio.run(live.app.state.directory.run(Store.create_user, "Bob", "bob", bob_key))
    body = {"agent": {"name": "Bobs Agent", "description": "Bob's"}}
    r = live.agent(bob_key, "POST", "/api/v1/me/agents/register", json=body)
    assert r.status_code == 201, r.text
    d = r.json()["data"]
    return bob["id"], d["agent"]["id"], d["credentials"]["api_key"]


def test_peers_are_siblings_the_owner_and_contacts_not_everyone(live: Live) -> None:
    aid, ahandle, akey = live.register("Mine")
    sid, _, _ = live.register("MySibling")
    bob_id, bob_agent, bob_agent_key = _second_person(live)
    me = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]

    peers = _agent_peers(live, akey)
    assert sid in peers and me in peers and peers[me]["type"] == "User"
    assert bob_id not in peers and bob_agent not in peers and aid not in peers
    bobs = _agent_peers(live, bob_agent_key)
    assert bob_id in bobs and aid not in bobs and sid not in bobs and me not in bobs
    mine = _by_id(live.human("GET", "/api/v1/me/peers", params={"page_size": 100}).json()["data"])
    assert aid in mine and sid in mine and bob_id not in mine and bob_agent not in mine

    # a contact crosses owners, both ways
    r = live.agent(bob_agent_key, "POST", C + "/add", json={"handle": ahandle})
    assert r.status_code == 200, r.text
    assert bob_agent not in _agent_peers(live, akey)  # a pending request is not enough
    reqs = live.agent(akey, "GET", C + "/requests").json()["data"]
    body = {"action": "approve", "request_id": reqs["received"][0]["id"]}
    assert live.agent(akey, "POST", C + "/requests/respond", json=body).status_code == 200
    assert _agent_peers(live, akey)[bob_agent]["is_contact"] is True
    assert _agent_peers(live, bob_agent_key)[aid]["is_contact"] is True
    assert bob_id not in _agent_peers(live, akey)  # the contact's owner is not


def test_only_peers_can_be_added_to_a_room(live: Live) -> None:
    aid, ahandle, akey = live.register("Adder")
    sid, _, _ = live.register("AddedSibling")
    bob_id, bob_agent, bob_agent_key = _second_person(live)
    rid = room_with(live, aid)
    url = f"/api/v1/agent/chats/{rid}/participants"

    def add(pid: str) -> Any:
        return live.agent(akey, "POST", url, json={"participant": {"participant_id": pid}})

    for stranger in (bob_id, bob_agent):
        err = expect_error(add(stranger), 403, "forbidden")
        assert err["message"] == "participant is not a peer; add them as a contact first"
    human_url = f"/api/v1/me/chats/{rid}/participants"
    r = live.human("POST", human_url, json={"participant": {"participant_id": bob_agent}})
    expect_error(r, 403, "forbidden")
    parts = {p["id"] for p in live.human("GET", human_url).json()["data"]}
    assert bob_id not in parts and bob_agent not in parts
    assert add(sid).status_code == 201

    assert (
        live.agent(bob_agent_key, "POST", C + "/add", json={"handle": ahandle}).status_code == 200
    )
    req = live.agent(akey, "GET", C + "/requests").json()["data"]["received"][0]
    body = {"action": "approve", "request_id": req["id"]}
    assert live.agent(akey, "POST", C + "/requests/respond", json=body).status_code == 200
    assert add(bob_agent).status_code == 201
    parts = {p["id"] for p in live.human("GET", human_url).json()["data"]}
    assert {aid, sid, bob_agent} <= parts and bob_id not in parts
