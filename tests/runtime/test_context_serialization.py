"""band-sdk's ``context_item_to_dict``: a room-context row as the runtime's plain dict."""

from __future__ import annotations

import asyncio

import pytest
from bandtest.platform import Live, room_with, say

from band.client.rest import AsyncRestClient, RestClient, aclose_rest_client, path
from band.core.wire import MessageRow
from band.runtime.context_serialization import context_item_to_dict

KEYS = [
    "id",
    "content",
    "sender_id",
    "sender_type",
    "sender_name",
    "message_type",
    "metadata",
    "inserted_at",
    "created_at",
]


def test_every_form_of_a_band_dev_row_gives_the_same_dict(live: Live) -> None:
    aid, _, key = live.register("Ctx")
    rid = room_with(live, aid)
    mid = say(live, rid, "what is the plan", aid)

    async def go() -> list[dict[str, object]]:
        async with RestClient(key, live.rest) as ours:
            resp = await ours.request("GET", path("/agent/chats/{}/messages", rid))
        theirs = AsyncRestClient(api_key=key, base_url=live.rest)
        listing = await theirs.agent_api_messages.list_agent_messages(chat_id=rid, status="all")
        await aclose_rest_client(theirs)
        (raw,) = [r for r in resp.rows_as(MessageRow) if r.id == mid]
        (row,) = [r for r in resp.data if r["id"] == mid]  # type: ignore[union-attr,index]
        (model,) = [m for m in listing.data if m.id == mid]
        return [context_item_to_dict(x) for x in (raw, row, model)]

    ours_struct, ours_json, band_rest_model = asyncio.run(go())
    assert list(ours_json) == KEYS
    assert ours_json["id"] == mid and ours_json["sender_type"] == "User"
    assert str(ours_json["content"]).endswith("what is the plan")
    assert ours_json["created_at"] == ours_json["inserted_at"] is not None
    assert isinstance(ours_json["metadata"], dict)
    assert ours_struct == ours_json
    # band_rest parses the timestamp into a datetime and dumps its metadata model's unset
    # fields as None (band-sdk's does too); everything else is the same
    same = ("id", "content", "sender_id", "sender_type", "sender_name", "message_type")
    assert [band_rest_model[k] for k in same] == [ours_json[k] for k in same]
    dumped = {k: v for k, v in band_rest_model["metadata"].items() if v is not None}
    assert dumped["mentions"][0]["id"] == aid
    assert dumped.keys() == ours_json["metadata"].keys()  # type: ignore[attr-defined]
    assert band_rest_model["inserted_at"].isoformat().startswith(str(ours_json["inserted_at"])[:19])


def test_the_name_stands_in_for_a_missing_sender_name_and_absent_fields_are_empty() -> None:
    got = context_item_to_dict({"id": "m1", "name": "Ann", "inserted_at": "2026-01-01T00:00:00Z"})
    assert got == {
        "id": "m1",
        "content": "",
        "sender_id": "",
        "sender_type": "",
        "sender_name": "Ann",
        "message_type": "text",
        "metadata": {},
        "inserted_at": "2026-01-01T00:00:00Z",
        "created_at": "2026-01-01T00:00:00Z",
    }


def test_a_row_without_an_id_is_refused() -> None:
    with pytest.raises(ValueError, match="needs an id"):
        context_item_to_dict({"content": "x"})
