"""Peers flag established contacts (is_contact) on the agent and human APIs."""

from __future__ import annotations

from typing import Any

from .conftest import Live, room_with

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
