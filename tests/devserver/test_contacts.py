"""Contacts over real HTTP and WebSocket: agent and human APIs, pushes, errors."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Any

from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

from .conftest import Live
from .conftest import expect_error as _err
from .test_socket import client, run

A = "/api/v1/agent/contacts"
H = "/api/v1/me/contacts"


async def _call(live: Live, key: str | None, method: str, path: str, **kw: Any) -> Any:
    if key is None:
        return await asyncio.to_thread(live.human, method, path, **kw)
    return await asyncio.to_thread(live.agent, key, method, path, **kw)


def test_agent_request_approve_remove_with_pushes(live: Live) -> None:
    aid, ahandle, akey = live.register("Alpha")
    bid, bhandle, bkey = live.register("Beta")

    async def body() -> None:
        async with client(live, akey) as ca, client(live, bkey) as cb:
            assert (await ca.join(f"agent_contacts:{aid}"))["status"] == "ok"
            assert (await cb.join(f"agent_contacts:{bid}"))["status"] == "ok"
            r = await _call(live, akey, "POST", A + "/add",
                            json={"handle": "@" + bhandle, "message": "hi"})  # fmt: skip
            assert r.status_code == 200, r.text
            req = r.json()["data"]
            assert req["status"] == "pending" and req["id"]
            got = await cb.pushed("contact_request_received")
            assert got["id"] == req["id"] and got["status"] == "pending"
            assert got["from_handle"] == ahandle and got["from_name"] == "Alpha"
            assert got["message"] == "hi"
            await ca.nothing("contact_request_received")

            r = await _call(live, bkey, "GET", A + "/requests")
            listing = r.json()
            assert [x["id"] for x in listing["data"]["received"]] == [req["id"]]
            assert listing["data"]["sent"] == []
            assert listing["metadata"]["received"] == {"total": 1, "total_pages": 1}
            r = await _call(live, akey, "GET", A + "/requests")
            sent = r.json()["data"]["sent"]
            assert sent[0]["to_handle"] == bhandle and sent[0]["status"] == "pending"

            r = await _call(live, bkey, "POST", A + "/requests/respond",
                            json={"action": "approve", "handle": ahandle})  # fmt: skip
            assert r.json()["data"] == {"id": req["id"], "status": "approved"}
            for c, other, handle in ((ca, bid, bhandle), (cb, aid, ahandle)):
                upd = await c.pushed("contact_request_updated")
                assert upd == {"id": req["id"], "status": "approved"}
                added = await c.pushed("contact_added")
                assert added["id"] == other and added["handle"] == handle
                assert added["type"] == "Agent"

            for key, other in ((akey, bid), (bkey, aid)):
                r = await _call(live, key, "GET", A + "?page=1&page_size=10")
                body = r.json()
                assert [c["id"] for c in body["data"]] == [other]
                assert body["data"][0]["online"] is True
                assert body["metadata"] == {"page": 1, "page_size": 10, "total_count": 1,
                                            "total_pages": 1}  # fmt: skip
            r = await _call(live, akey, "GET", A + "/requests?sent_status=approved")
            assert r.json()["data"]["sent"][0]["status"] == "approved"
            r = await _call(live, akey, "GET", A + "/requests")
            assert r.json()["data"]["sent"] == []

            r = await _call(live, akey, "POST", A + "/remove", json={"handle": bhandle})
            assert r.json()["data"] == {"status": "removed"}
            assert (await ca.pushed("contact_removed")) == {"id": bid}
            assert (await cb.pushed("contact_removed")) == {"id": aid}
            for key in (akey, bkey):
                r = await _call(live, key, "GET", A)
                assert r.json()["data"] == []

    run(body)


def test_auto_accept_reject_cancel(live: Live) -> None:
    _, ahandle, akey = live.register("Alpha")
    _, bhandle, bkey = live.register("Beta")
    _, chandle, ckey = live.register("Gamma")
    r = live.agent(akey, "POST", A + "/add", json={"handle": bhandle})
    first = r.json()["data"]
    r = live.agent(bkey, "POST", A + "/add", json={"handle": ahandle})
    assert r.json()["data"] == {"id": first["id"], "status": "approved"}
    assert len(live.agent(akey, "GET", A).json()["data"]) == 1

    r = live.agent(akey, "POST", A + "/add", json={"handle": chandle})
    rid = r.json()["data"]["id"]
    r = live.agent(ckey, "POST", A + "/requests/respond",
                   json={"action": "reject", "request_id": rid})  # fmt: skip
    assert r.json()["data"] == {"id": rid, "status": "rejected"}
    _err(live.agent(ckey, "POST", A + "/requests/respond",
                    json={"action": "approve", "request_id": rid}), 409, "conflict")  # fmt: skip
    r = live.agent(akey, "POST", A + "/add", json={"handle": chandle})
    rid2 = r.json()["data"]["id"]
    _err(live.agent(akey, "POST", A + "/requests/respond",
                    json={"action": "approve", "request_id": rid2}), 403, "forbidden")  # fmt: skip
    r = live.agent(akey, "POST", A + "/requests/respond",
                   json={"action": "cancel", "handle": chandle})  # fmt: skip
    assert r.json()["data"] == {"id": rid2, "status": "cancelled"}
    r = live.agent(akey, "GET", A + "/requests?sent_status=all&page_size=1")
    body = r.json()
    assert len(body["data"]["sent"]) == 1
    assert body["metadata"]["sent"] == {"total": 3, "total_pages": 3}


def test_agent_contact_errors(live: Live) -> None:
    aid, ahandle, akey = live.register("Alpha")
    bid, bhandle, bkey = live.register("Beta")
    _err(live.client.get(live.rest + A), 401, "unauthorized")
    _err(live.human("GET", A), 403, "forbidden")
    _err(live.agent(akey, "POST", A + "/add", json={}), 400, "bad_request")
    _err(live.agent(akey, "POST", A + "/add", json={"handle": "@nobody"}), 404, "not_found")
    _err(live.agent(akey, "POST", A + "/add", json={"handle": ahandle}), 400, "bad_request")
    _err(live.agent(akey, "POST", A + "/add", json={"handle": bhandle, "message": "x" * 501}),
         422, "validation_error")  # fmt: skip
    assert live.agent(akey, "POST", A + "/add", json={"handle": bhandle}).status_code == 200
    _err(live.agent(akey, "POST", A + "/add", json={"handle": bhandle}), 409, "conflict")
    live.agent(bkey, "POST", A + "/requests/respond", json={"action": "approve", "handle": ahandle})
    _err(live.agent(akey, "POST", A + "/add", json={"handle": bhandle}), 409, "conflict")
    err = _err(live.agent(akey, "POST", A + "/remove", json={}), 400, "bad_request")
    assert err["message"] == "Either handle or contact_id must be provided"
    _err(live.agent(akey, "POST", A + "/remove", json={"contact_id": "nope"}), 404, "not_found")
    _err(live.agent(akey, "POST", A + "/remove", json={"handle": "local"}), 404, "not_found")
    r = live.agent(akey, "POST", A + "/remove", json={"contact_id": bid})
    assert r.json()["data"] == {"status": "removed"}
    assert live.agent(bkey, "GET", A).json()["data"] == []
    resp = A + "/requests/respond"
    err = _err(live.agent(akey, "POST", resp, json={"action": "approve"}), 400, "bad_request")
    assert err["message"] == "Either handle or request_id must be provided"
    _err(live.agent(akey, "POST", resp, json={"action": "wave", "handle": bhandle}), 400,
         "bad_request")  # fmt: skip
    _err(live.agent(akey, "POST", resp, json={"action": "approve", "request_id": "nope"}),
         404, "not_found")  # fmt: skip
    _err(live.agent(akey, "POST", resp, json={"action": "approve", "handle": bhandle}),
         404, "not_found")  # fmt: skip
    _err(live.agent(akey, "GET", A + "/requests?sent_status=bogus"), 422, "validation_error")
    _err(live.agent(akey, "GET", A + "?page=0"), 422, "validation_error")
    assert aid


def test_human_contacts(live: Live) -> None:
    bid, bhandle, bkey = live.register("Beta")
    _, chandle, ckey = live.register("Gamma")

    async def body() -> None:
        async with client(live, bkey) as cb:
            await cb.join(f"agent_contacts:{bid}")
            payload = {"contact_request": {"recipient_handle": "@" + bhandle, "message": "yo"}}
            r = await _call(live, None, "POST", H + "/requests", json=payload)
            assert r.status_code == 201, r.text
            req = r.json()["data"]
            assert req["status"] == "pending" and req["recipient_id"] == bid
            assert req["requester"]["handle"] == "local" and req["recipient_type"] == "Agent"
            assert req["requester_type"] == "User" and req["message"] == "yo"
            got = await cb.pushed("contact_request_received")
            assert got["id"] == req["id"] and got["from_handle"] == "local"

            r = await _call(live, None, "GET", H + "/requests/sent?status=pending")
            assert [x["id"] for x in r.json()["data"]] == [req["id"]]
            r = await _call(live, bkey, "POST", A + "/requests/respond",
                            json={"action": "reject", "request_id": req["id"]})  # fmt: skip
            assert r.json()["data"]["status"] == "rejected"
            assert (await cb.pushed("contact_request_updated"))["status"] == "rejected"
            r = await _call(live, None, "GET", H + "/requests/sent")
            assert r.json()["data"][0]["status"] == "rejected"
            assert r.json()["data"][0]["responded_at"]

            r = await _call(live, None, "POST", H + "/requests",
                            json={"contact_request": {"recipient_handle": bhandle}})  # fmt: skip
            rid = r.json()["data"]["id"]
            await cb.pushed("contact_request_received")
            r = await _call(live, None, "DELETE", f"{H}/requests/{rid}")
            assert r.json()["data"] == {"id": rid, "status": "cancelled"}
            assert (await cb.pushed("contact_request_updated")) == {
                "id": rid,
                "status": "cancelled",
            }

            r = await _call(live, bkey, "POST", A + "/add", json={"handle": "@local"})
            rid = r.json()["data"]["id"]
            r = await _call(live, None, "GET", H + "/requests")
            received = r.json()
            assert [x["id"] for x in received["data"]] == [rid]
            assert received["metadata"]["total_count"] == 1
            assert received["data"][0]["requester"]["handle"] == bhandle
            r = await _call(live, None, "POST", f"{H}/requests/{rid}/approve")
            assert r.json()["data"] == {"id": rid, "status": "approved"}
            await cb.pushed("contact_request_updated")
            added = await cb.pushed("contact_added")
            assert added["handle"] == "local" and added["type"] == "User"

            r = await _call(live, None, "GET", H)
            contacts = r.json()
            assert contacts["metadata"]["total_count"] == 1
            c = contacts["data"][0]
            assert c["contact_id"] == bid and c["contact_type"] == "Agent"
            assert c["online"] is True and c["user"]["handle"] == bhandle
            r = await _call(live, None, "POST", H + "/remove", json={"contact_id": c["id"]})
            assert r.json()["data"] == {"status": "removed"}
            removed = await cb.pushed("contact_removed")
            assert removed["id"] == live.app.state.user_id
            assert (await _call(live, None, "GET", H)).json()["data"] == []

    run(body)

    r = live.agent(ckey, "POST", A + "/add", json={"handle": "local"})
    rid = r.json()["data"]["id"]
    r = live.human("POST", f"{H}/requests/{rid}/reject")
    assert r.json()["data"] == {"id": rid, "status": "rejected"}
    r = live.human("POST", H + "/resolve", json={"handle": "@" + chandle})
    assert r.json()["data"] == {"handle": chandle, "name": "Gamma", "type": "Agent"}
    r = live.human("POST", H + "/resolve", json={"handle": "local"})
    assert r.json()["data"]["type"] == "User"


def test_human_contact_errors(live: Live) -> None:
    _, bhandle, bkey = live.register("Beta")
    _err(live.agent(bkey, "GET", H), 403, "forbidden")
    _err(live.human("POST", H + "/requests", json={"recipient_handle": bhandle}), 422,
         "validation_error")  # fmt: skip
    nobody = {"contact_request": {"recipient_handle": "nobody"}}
    _err(live.human("POST", H + "/requests", json=nobody), 404, "not_found")
    myself = {"contact_request": {"recipient_handle": "local"}}
    _err(live.human("POST", H + "/requests", json=myself), 400, "bad_request")
    big = {"contact_request": {"recipient_handle": bhandle, "message": "x" * 501}}
    _err(live.human("POST", H + "/requests", json=big), 422, "validation_error")
    _err(live.human("POST", H + "/requests/nope/approve"), 404, "not_found")
    _err(live.human("POST", H + "/requests/nope/reject"), 404, "not_found")
    _err(live.human("DELETE", H + "/requests/nope"), 404, "not_found")
    r = live.human("POST", H + "/requests", json={"contact_request": {"recipient_handle": bhandle}})
    rid = r.json()["data"]["id"]
    _err(live.human("POST", f"{H}/requests/{rid}/approve"), 403, "forbidden")
    _err(live.human("GET", H + "/requests/sent?status=bogus"), 422, "validation_error")
    _err(live.human("POST", H + "/resolve", json={"handle": "@ghost"}), 404, "not_found")
    _err(live.human("POST", H + "/resolve", json={}), 400, "bad_request")
    err = _err(live.human("POST", H + "/remove", json={}), 400, "bad_request")
    assert "Either" in err["message"]
    _err(live.human("POST", H + "/remove", json={"handle": bhandle}), 404, "not_found")


CLIENT_SCRIPT = """
import os
from band_rest import RestClient
from band_rest.human_api_contacts.types import CreateContactRequestRequestContactRequest as CR
from band_rest.types import AgentMemoryCreateRequest as M

env = os.environ
a, b, h = (RestClient(base_url=env["REST"], api_key=env[k]) for k in ("AKEY", "BKEY", "UKEY"))
ac, bc, hc = a.agent_api_contacts, b.agent_api_contacts, h.human_api_contacts
assert ac.add_agent_contact(handle="@" + env["BH"], message="hi").data.status == "pending"
got = bc.list_agent_contact_requests(page=1, page_size=50, sent_status="pending")
assert got.data.received[0].from_handle == env["AH"] and got.metadata.received.total == 1
assert bc.respond_to_agent_contact_request(action="approve", handle=env["AH"]).data.status == (
    "approved")
assert ac.list_agent_contacts(page=1, page_size=50).data[0].handle == env["BH"]
req = hc.create_contact_request(contact_request=CR(recipient_handle=env["BH"])).data
assert hc.list_sent_contact_requests(status="pending").data[0].id == req.id
bc.respond_to_agent_contact_request(action="approve", request_id=req.id)
assert hc.list_my_contacts().data[0].contact_id == req.recipient_id
assert hc.resolve_handle(handle="@" + env["AH"]).data.type == "Agent"
assert ac.remove_agent_contact(handle=env["BH"]).data.status == "removed"
assert hc.remove_my_contact(handle=env["BH"]).data.status == "removed"
assert hc.list_received_contact_requests().data == []
am, hm = a.agent_api_memories, h.human_api_memories
m = am.create_agent_memory(memory=M(content="c", system="long_term", type="semantic",
                                    segment="user", thought="t", metadata={"tags": ["x"]})).data
assert am.list_agent_memories(page_size=50, system="long_term").data[0].id == m.id
assert am.get_agent_memory(m.id).data.content == "c"
assert am.supersede_agent_memory(m.id).data.status == "superseded"
assert am.archive_agent_memory(m.id).data.status == "archived"
assert hm.list_user_memories(status="all").data[0].source_agent_name == "Alpha"
assert hm.restore_user_memory(m.id).data.status == "active"
assert hm.get_user_memory(m.id).data.updated_at
hm.delete_user_memory(m.id)
print("OK")
"""


@requires_refsdk
def test_official_rest_client_parses_responses(live: Live, tmp_path: Path) -> None:
    _, ahandle, akey = live.register("Alpha")
    _, bhandle, bkey = live.register("Beta")
    script = tmp_path / "client.py"
    script.write_text(CLIENT_SCRIPT)
    env = {**os.environ, "REST": live.rest, "UKEY": live.user_key, "AKEY": akey, "BKEY": bkey,
           "AH": ahandle, "BH": bhandle}  # fmt: skip
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [str(REFSDK_PYTHON), str(script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr[-3000:]
