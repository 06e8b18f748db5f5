"""Message attachments over real HTTP and WebSocket: attachment_ids name room files."""

from __future__ import annotations

from typing import Any

from .conftest import Live, expect_error, room_with
from .payloads import check_payload
from .test_socket import client, run

A = "/api/v1/agent"


def _upload(live: Live, key: str, rid: str, blob: bytes, name: str) -> dict[str, Any]:
    headers = {"X-API-Key": key, "x-file-name": name, "content-type": "text/plain"}
    r = live.client.put(f"{live.rest}{A}/chats/{rid}/files", content=blob, headers=headers)
    assert r.status_code == 200, r.text
    return dict(r.json()["data"])


def _post(live: Live, key: str, rid: str, **extra: Any) -> Any:
    me = live.app.state.user_id
    msg = {"content": "see file", "mentions": [{"id": me}], **extra}
    return live.agent(key, "POST", f"{A}/chats/{rid}/messages", json={"message": msg})


def _human_msgs(live: Live, rid: str) -> list[dict[str, Any]]:
    r = live.human("GET", f"/api/v1/me/chats/{rid}/messages", params={"limit": 100})
    assert r.status_code == 200, r.text
    return list(r.json()["data"])


def test_attachments_show_on_the_message_everywhere(live: Live) -> None:
    aid, _, key = live.register("Att")
    bid, _, bkey = live.register("AttReader")
    rid = room_with(live, aid, bid)
    one = _upload(live, key, rid, b"first file", "one.txt")
    two = _upload(live, key, rid, b"second file", "two.txt")

    async def body() -> None:
        async with client(live, bkey) as c:
            assert (await c.join(f"chat_room:{rid}"))["status"] == "ok"
            msg = {
                "content": "files",
                "mentions": [{"id": bid}],
                "attachment_ids": [two["id"], one["id"]],
            }
            r = live.agent(key, "POST", f"{A}/chats/{rid}/messages", json={"message": msg})
            assert r.status_code == 201, r.text
            mid = r.json()["data"]["id"]
            push = (await c.push("message_created"))[4]
            check_payload("message_created", push)
            assert push["id"] == mid and push["attachments"] == [two, one]

            # the same attachments through the agent views of the mentioned agent ...
            nxt = live.agent(bkey, "GET", f"{A}/chats/{rid}/messages/next").json()["data"]
            assert nxt["id"] == mid and nxt["attachments"] == [two, one]
            listed = live.agent(bkey, "GET", f"{A}/chats/{rid}/messages").json()["data"]
            assert [m["attachments"] for m in listed if m["id"] == mid] == [[two, one]]
            # ... the sender's context (what band_list_room_files reads) and the human view
            ctx = live.agent(key, "GET", f"{A}/chats/{rid}/context").json()["data"]
            assert [m["attachments"] for m in ctx if m["id"] == mid] == [[two, one]]
            human = [m for m in _human_msgs(live, rid) if m["id"] == mid]
            assert human[0]["attachments"] == [two, one]
            # the attachment id downloads the exact bytes
            d = live.agent(bkey, "GET", f"{A}/chats/{rid}/files/{one['id']}")
            assert d.status_code == 200 and d.content == b"first file"

    run(body)


def test_message_without_attachments_has_an_empty_list(live: Live) -> None:
    aid, _, key = live.register("NoAtt")
    rid = room_with(live, aid)
    assert _post(live, key, rid).status_code == 201
    assert _post(live, key, rid, attachment_ids=[]).status_code == 201
    assert [m["attachments"] for m in _human_msgs(live, rid)] == [[], []]


def test_unknown_or_other_room_attachment_is_refused_and_nothing_written(live: Live) -> None:
    aid, _, key = live.register("BadAtt")
    rid, other = room_with(live, aid), room_with(live, aid)
    mine = _upload(live, key, rid, b"here", "here.txt")
    elsewhere = _upload(live, key, other, b"there", "there.txt")
    for ids in (["no-such-file"], [elsewhere["id"]], [mine["id"], elsewhere["id"]]):
        err = expect_error(_post(live, key, rid, attachment_ids=ids), 422, "unknown_attachment")
        assert ids[-1] in str(err["details"]["attachment_ids"])
    assert _human_msgs(live, rid) == []


def test_null_or_malformed_attachment_ids_are_rejected(live: Live) -> None:
    aid, _, key = live.register("NullAtt")
    rid = room_with(live, aid)
    for bad in (None, "id", [1], [""], {"id": "x"}):
        err = expect_error(_post(live, key, rid, attachment_ids=bad), 422, "validation_error")
        assert "attachment_ids" in err["details"]
    assert _human_msgs(live, rid) == []


def test_human_message_can_attach_a_room_file(live: Live) -> None:
    aid, _, key = live.register("HumanAtt")
    rid = room_with(live, aid)
    att = _upload(live, key, rid, b"shared", "shared.txt")
    msg = {"content": "look", "mentions": [{"id": aid}], "attachment_ids": [att["id"]]}
    r = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json={"message": msg})
    assert r.status_code == 201, r.text
    nxt = live.agent(key, "GET", f"{A}/chats/{rid}/messages/next").json()["data"]
    assert nxt["attachments"] == [att]
    bad = {"message": {**msg, "attachment_ids": ["nope"]}}
    r = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=bad)
    expect_error(r, 422, "unknown_attachment")
